/**
 * The notifier through `main.ts` masks a target's secrets in everything a service's
 * response carries to the client and to the log: in an error text longer than what
 * is shown (masked before it is cut), and in the push API's body it hands on as it
 * is (a gateway echoing the request's headers).
 */
import assert from "node:assert/strict";
import { freePort, type MainProcess, startMain } from "./_test_helpers.ts";

/** A stand-in for a service: returns `respond(request)`. */
function serviceStandIn(respond: (request: Request) => Response) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      await request.body?.cancel();
      return respond(request);
    },
  );
  return {
    host: `127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

async function startNotifier(env: Record<string, string>) {
  const port = freePort();
  const main = startMain(["notifier"], {
    env: { NOTIFIER_HOST: "127.0.0.1", NOTIFIER_PORT: String(port), ...env },
  });
  await main.waitFor(/notifier listening on http:\/\/127\.0\.0\.1:\d+/);
  return { main, base: `http://127.0.0.1:${port}` };
}

function output(main: MainProcess): string {
  return [...main.stdout, ...main.stderr].join("\n");
}

/** Fails when `text` shows `secret`, or any 5 characters of it in a row. */
function assertMasked(text: string, secret: string): void {
  for (let i = 0; i + 5 <= secret.length; i++) {
    const part = secret.slice(i, i + 5);
    assert.ok(
      !text.includes(part),
      `"${part}" of the secret shown in:\n${text}`,
    );
  }
}

Deno.test("main.ts notifier masks a secret that the 200-character cut of an error text would split", async () => {
  const secret = "JSONPASS1";
  // The secret starts at character 196: a cut at 200 before masking leaves "JSONP".
  const text = `${"x".repeat(195)} ${secret} was refused`;
  const service = serviceStandIn(() =>
    Response.json({ message: text }, { status: 400 })
  );
  const { main, base } = await startNotifier({
    NOTIFIER_URLS: `json://user:${secret}@${service.host}/hook`,
  });
  try {
    const response = await fetch(`${base}/note/a/b`);
    assert.equal(response.status, 502);
    const body = await response.json();
    const error: string = body.results[0].error;
    assert.equal(
      error,
      `JSON endpoint returned HTTP 400: ${"x".repeat(195)} ****`,
    );
    assertMasked(JSON.stringify(body), secret);
  } finally {
    assert.equal(await main.stop(), 0);
    await service.close();
  }
  assert.match(
    output(main),
    /\[WARNING\] Cannot send note "a": JSON endpoint returned HTTP 400: x+ \*\*\*\* \(json:\/\/user:\*\*\*\*@/,
  );
  assertMasked(output(main), secret);
});

Deno.test("main.ts notifier with pbul:// alone masks the token in the push API's body it hands on", async () => {
  const token = "o.EchoT0kenSecret";
  // A gateway that echoes the request's headers in its body.
  const service = serviceStandIn((request) =>
    Response.json({
      iden: "ujpah72o0",
      headers: Object.fromEntries(request.headers),
    })
  );
  const { main, base } = await startNotifier({
    NOTIFIER_URLS: `pbul://${token}`,
    PUSH_BASE_URL: `http://${service.host}`,
  });
  try {
    const response = await fetch(`${base}/note/a/b`);
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.iden, "ujpah72o0");
    assert.equal(body.headers["access-token"], "****");
    assert.equal(body.headers["authorization"], "Basic ****");
    assertMasked(JSON.stringify(body), token);
  } finally {
    assert.equal(await main.stop(), 0);
    await service.close();
  }
  assertMasked(output(main), token);
});
