/**
 * Readiness: `GET /readyz` returns 200 when a role can do its work now, 503 with
 * `{"message": ...}` naming what is wrong otherwise. `/healthz` stays liveness.
 *
 * @module
 */
import type { Handler } from "hono";

/**
 * What is wrong now (one sentence), or `undefined` when ready. It may be
 * asynchronous (a store's response); a check that throws is not ready, with its error.
 */
export type ReadinessCheck = () =>
  | string
  | undefined
  | Promise<string | undefined>;

/** How long a check may take before it counts as not ready. */
const CHECK_TIMEOUT_MS = 2000;

/**
 * Runs `check` within 2 s: its problem, the error it threw, or a timeout, as one
 * sentence; `undefined` when ready.
 *
 * @example
 * ```ts
 * await readinessProblem(() => undefined); // undefined
 * await readinessProblem(() => "The store does not respond"); // "The store does not respond"
 * ```
 */
export async function readinessProblem(
  check: ReadinessCheck,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`The readiness check took more than ${timeoutMs} ms`),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      Promise.resolve().then(check).catch((error: unknown) =>
        error instanceof Error ? error.message : String(error)
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The handler of `GET /readyz`: 200 `{"status":"ready"}`, or 503
 * `{"message": ...}` with the problem `check` names.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 *
 * let started = false;
 * const app = new Hono();
 * app.get("/readyz", readyzHandler(() => started ? undefined : "Not started yet"));
 * (await app.request("/readyz")).status; // 503
 * started = true;
 * (await app.request("/readyz")).status; // 200
 * ```
 */
export function readyzHandler(check: ReadinessCheck): Handler {
  return async function readyz() {
    return readyzResponse(await readinessProblem(check));
  };
}

/**
 * The response of `GET /readyz` given what is wrong: 200 `{"status":"ready"}` for
 * nothing, else 503 `{"message": problem}`.
 *
 * @example
 * ```ts
 * readyzResponse(undefined).status; // 200
 * readyzResponse("The store does not respond").status; // 503
 * ```
 */
export function readyzResponse(problem: string | undefined): Response {
  return problem === undefined
    ? Response.json({ status: "ready" }, { status: 200 })
    : Response.json({ message: problem }, { status: 503 });
}
