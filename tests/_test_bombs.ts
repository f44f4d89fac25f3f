/**
 * Decompression bombs for the suites: zeros compressed with brotli or gzip,
 * made once by streaming node:zlib (no more than 16 MiB of zeros held) and kept
 * under `.cache/bombs/`; and a reader of a process's peak resident size.
 */
import {
  constants,
  createBrotliCompress,
  createGzip,
  type Gzip,
} from "node:zlib";

const CACHE = new URL("../.cache/bombs/", import.meta.url);

/** A bomb's coding, as `Content-Encoding` names it. */
export type BombCoding = "br" | "gzip";

/** The bytes of `gibibytes` GiB of zeros in `coding`, cached. */
export async function bomb(
  coding: BombCoding,
  gibibytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const file = new URL(`zeros-${gibibytes}g.${coding}`, CACHE);
  try {
    return await Deno.readFile(file);
  } catch {
    // made below
  }
  // Quality 4 makes 1 GiB of zeros 809 bytes (in 7 s); quality 1, 195 KB (1.2 s);
  // gzip, 1 MB (2 s).
  const encoder: Gzip = coding === "br"
    ? createBrotliCompress({
      params: {
        [constants.BROTLI_PARAM_QUALITY]: gibibytes > 1 ? 1 : 4,
        [constants.BROTLI_PARAM_LGWIN]: 24,
      },
    }) as unknown as Gzip
    : createGzip({ level: 9 });
  const parts: Uint8Array<ArrayBuffer>[] = [];
  encoder.on("data", (part: Uint8Array<ArrayBuffer>) => parts.push(part));
  const ended = new Promise((resolve) => encoder.on("end", resolve));
  const zeros = new Uint8Array(16 << 20);
  for (let i = 0; i < gibibytes * 64; i++) {
    if (!encoder.write(zeros)) {
      await new Promise((resolve) => encoder.once("drain", resolve));
    }
  }
  encoder.end();
  await ended;
  const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
  await Deno.mkdir(CACHE, { recursive: true });
  await Deno.writeFile(file, bytes);
  return bytes;
}

/** What a hostile upstream serves at a path: a bomb, or an endless plain body. */
export type HostileBody =
  | { coding: BombCoding; bytes: Uint8Array<ArrayBuffer>; status?: number }
  | { endless: true; status?: number };

/** A body of zeros that never ends (64 KiB parts), with no `Content-Length`. */
export function endlessBody(): ReadableStream<Uint8Array> {
  const part = new Uint8Array(64 * 1024);
  return new ReadableStream({
    pull: (controller) => controller.enqueue(part),
  });
}

/**
 * An upstream serving `bombs[path]` at `/NAME` (a bomb with its `Content-Encoding`,
 * or an endless body), to any method; `requests` counts what it was sent.
 */
export function startBombUpstream(
  bombs: Record<string, HostileBody>,
): { url: string; requests: string[]; stop(): Promise<void> } {
  const requests: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      await request.body?.cancel();
      const path = new URL(request.url).pathname.slice(1);
      requests.push(`${request.method} /${path}`);
      const found = bombs[path];
      if (found === undefined) {
        return new Response("no such bomb", { status: 404 });
      }
      if ("endless" in found) {
        return new Response(endlessBody(), {
          status: found.status ?? 200,
          headers: { "content-type": "application/json" },
        });
      }
      return new Response(found.bytes, {
        status: found.status ?? 200,
        headers: {
          "content-encoding": found.coding,
          "content-type": "application/json",
        },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    stop: () => server.shutdown(),
  };
}

/** The peak resident size of process `pid` (VmHWM), in MB. */
export async function peakResidentMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
  return Math.round(kb / 1024);
}

/**
 * Resets the peak resident size of process `pid` to its current size (Linux's
 * `clear_refs` 5) and returns that size in MB, so that a test sharing its process
 * with others measures the growth of its own step, not an earlier test's peak.
 */
export async function resetPeakResidentMb(pid: number): Promise<number> {
  await Deno.writeTextFile(`/proc/${pid}/clear_refs`, "5");
  return await peakResidentMb(pid);
}

/**
 * The hostile bodies the role suites send through `main.ts`, each named for its
 * test: 1 GiB bombs (br and gzip) and an endless plain body.
 */
export const HOSTILE_BODIES: readonly (readonly [
  string,
  () => Promise<HostileBody>,
])[] = [
  [
    "a 1 GiB br bomb",
    async () => ({ coding: "br", bytes: await bomb("br", 1) }),
  ],
  [
    "a 1 GiB gzip bomb",
    async () => ({ coding: "gzip", bytes: await bomb("gzip", 1) }),
  ],
  ["an endless body", () => Promise.resolve({ endless: true })],
];
