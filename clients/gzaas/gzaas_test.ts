import assert from "node:assert/strict";
import { freePort } from "../../tests/_test_helpers.ts";
import {
  bomb,
  peakResidentMb,
  resetPeakResidentMb,
  startBombUpstream,
} from "../../tests/_test_bombs.ts";
import { Gzaas, GZAAS_DEFAULT_BASE_URL, GzaasError } from "./mod.ts";

/** A request seen by the stand-in. */
interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string | null;
  form: [string, string][];
}

/** A stand-in of the styled-message API on 127.0.0.1, responding with `reply`. */
function standIn(reply: (request: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      seen.push({
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        contentType: request.headers.get("content-type"),
        form: [...new URLSearchParams(text)],
      });
      return reply(request);
    },
  );
  return {
    seen,
    base: `http://127.0.0.1:${server.addr.port}/api/v1`,
    close: () => server.shutdown(),
  };
}

const json = (body: unknown, status = 200) => Response.json(body, { status });

/** Waits until the client goes away, so the stand-in never responds. */
function hang(request: Request): Promise<Response> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(json([])), 10_000);
    request.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(json([]));
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<GzaasError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GzaasError, `not a GzaasError: ${error}`);
    return error;
  }
  assert.fail("expected a rejection");
}

const FONTS = [
  { hashtag: "ultra", description: "Ultra bold", fontFamily: "Ultra" },
  { hashtag: "mono", description: null, fontFamily: "monospace" },
];
const STYLES = [{
  hashtag: "retro",
  description: "Retro",
  font: FONTS[0],
  pattern: { hashtag: "stripes", description: "Stripes" },
  color: "ff0000",
  backcolor: "000000",
  shadow: "1px 1px #000",
}];

Deno.test("Gzaas list calls", async (t) => {
  const api = standIn((request) => {
    const path = new URL(request.url).pathname;
    if (path.endsWith("/fonts")) return json(FONTS);
    if (path.endsWith("/styles")) return json(STYLES);
    if (path.endsWith("/patterns")) return json([STYLES[0]!.pattern]);
    return json({ valid: false, errorMessage: "No such path" }, 404);
  });
  const gzaas = new Gzaas({ baseUrl: `${api.base}/` });

  await t.step(
    "listFonts() sends GET /fonts with both query fields",
    async () => {
      const fonts = await gzaas.listFonts({ nowFeatured: true, numResults: 5 });
      assert.deepEqual(api.seen.at(-1), {
        method: "GET",
        path: "/api/v1/fonts",
        query: { nowFeatured: "1", numResults: "5" },
        contentType: null,
        form: [],
      });
      assert.equal(fonts[0]?.fontFamily, "Ultra");
      assert.equal(
        fonts[1]?.description,
        "",
        "null description reads as empty",
      );
    },
  );

  await t.step(
    "listStyles() defaults to nowFeatured=0 and numResults=0",
    async () => {
      const styles = await gzaas.listStyles();
      assert.equal(api.seen.at(-1)?.path, "/api/v1/styles");
      assert.deepEqual(api.seen.at(-1)?.query, {
        nowFeatured: "0",
        numResults: "0",
      });
      assert.deepEqual(styles, STYLES);
      assert.equal(styles[0]?.font?.fontFamily, "Ultra");
    },
  );

  await t.step("listPatterns() sends GET /patterns", async () => {
    const patterns = await gzaas.listPatterns({
      nowFeatured: false,
      numResults: 2,
    });
    assert.equal(api.seen.at(-1)?.path, "/api/v1/patterns");
    assert.deepEqual(api.seen.at(-1)?.query, {
      nowFeatured: "0",
      numResults: "2",
    });
    assert.deepEqual(patterns, [{
      hashtag: "stripes",
      description: "Stripes",
    }]);
  });

  await t.step(
    "a negative or fractional numResults is a TypeError",
    async () => {
      const count = api.seen.length;
      await assert.rejects(gzaas.listFonts({ numResults: -1 }), TypeError);
      await assert.rejects(gzaas.listFonts({ numResults: 1.5 }), TypeError);
      assert.equal(api.seen.length, count, "nothing sent");
    },
  );

  await api.close();
});

Deno.test("Gzaas list calls fail with a typed error", async (t) => {
  let respond: (request: Request) => Response | Promise<Response> = () =>
    json([]);
  const api = standIn((request) => respond(request));
  const gzaas = new Gzaas({ baseUrl: api.base, timeoutMs: 300 });

  await t.step("503 with errorMessage is kind http", async () => {
    respond = () =>
      json({ valid: false, errorMessage: "Under maintenance" }, 503);
    const error = await rejection(gzaas.listFonts());
    assert.equal(error.kind, "http");
    assert.equal(error.status, 503);
    assert.equal(error.errorMessage, "Under maintenance");
    assert.equal(
      error.message,
      "Gzaas API returned HTTP 503 to GET /fonts: Under maintenance",
    );
  });

  await t.step("an error status without JSON has no errorMessage", async () => {
    respond = () => new Response("<h1>Bad gateway</h1>", { status: 502 });
    const error = await rejection(gzaas.listStyles());
    assert.equal(error.kind, "http");
    assert.equal(error.status, 502);
    assert.equal(error.errorMessage, undefined);
  });

  await t.step("malformed JSON is kind invalid-reply", async () => {
    respond = () => new Response("[{", { status: 200 });
    const error = await rejection(gzaas.listPatterns());
    assert.equal(error.kind, "invalid-reply");
    assert.equal(error.status, 200);
  });

  await t.step(
    "JSON that is not a list of entries is kind invalid-reply",
    async () => {
      for (
        const body of [{ fonts: [] }, [1], [{ description: "no hashtag" }]]
      ) {
        respond = () => json(body);
        const error = await rejection(gzaas.listFonts());
        assert.equal(error.kind, "invalid-reply", JSON.stringify(body));
      }
    },
  );

  await t.step("a reply slower than timeoutMs is kind timeout", async () => {
    respond = hang;
    const error = await rejection(gzaas.listFonts());
    assert.equal(error.kind, "timeout");
    assert.equal(error.status, undefined);
    assert.match(error.message, /within 300 ms/);
  });

  await t.step("an aborted signal is kind aborted", async () => {
    respond = hang;
    const controller = new AbortController();
    const pending = gzaas.listStyles({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(pending);
    assert.equal(error.kind, "aborted");
    const already = await rejection(
      gzaas.listStyles({ signal: AbortSignal.abort() }),
    );
    assert.equal(already.kind, "aborted");
  });

  await api.close();
});

Deno.test("Gzaas.create()", async (t) => {
  let respond: (request: Request) => Response | Promise<Response> = () =>
    json({ valid: true, urlGzaas: "http://gzaas.com/abc", urlKey: "abc" }, 201);
  const api = standIn((request) => respond(request));

  await t.step(
    "posts every field that was set, form-encoded, and resolves to urlGzaas",
    async () => {
      const gzaas = new Gzaas({ baseUrl: api.base })
        .setApiKey("k3y")
        .setFont("ultra")
        .setColor("ff0000")
        .setBackcolor("0F0")
        .setBackPattern("stripes")
        .setShadows("1px 1px 2px #000")
        .setStyle("retro")
        .setVisibility(0)
        .setLauncher("Look & see");
      const url = await gzaas.create("Dinner is ready: 20€ & 100%");
      assert.equal(url, "http://gzaas.com/abc");
      const request = api.seen.at(-1)!;
      assert.equal(request.method, "POST");
      assert.equal(request.path, "/api/v1/write");
      assert.match(
        request.contentType ?? "",
        /^application\/x-www-form-urlencoded/,
      );
      assert.deepEqual(request.form, [
        ["apikey", "k3y"],
        ["message", "Dinner is ready: 20€ & 100%"],
        ["font", "ultra"],
        ["color", "ff0000"],
        ["backcolor", "0F0"],
        ["backpattern", "stripes"],
        ["shadows", "1px 1px 2px #000"],
        ["style", "retro"],
        ["visibility", "0"],
        ["launcher", "Look & see"],
      ]);
    },
  );

  await t.step(
    "sends only the fields that were set; a later setter replaces",
    async () => {
      const gzaas = new Gzaas({ baseUrl: api.base }).setApiKey("a").setApiKey(
        "b",
      );
      await gzaas.create("Hi");
      assert.deepEqual(api.seen.at(-1)?.form, [["apikey", "b"], [
        "message",
        "Hi",
      ]]);
    },
  );

  await t.step("accepts 200 as success too", async () => {
    respond = () =>
      json({ valid: true, urlGzaas: "http://gzaas.com/x", visibility: 1 });
    assert.equal(
      await new Gzaas({ baseUrl: api.base }).create("Hi"),
      "http://gzaas.com/x",
    );
  });

  await t.step(
    "400 with errorMessage is kind http with the server's text",
    async () => {
      respond = () =>
        json({ valid: false, errorMessage: "Invalid API key" }, 400);
      const error = await rejection(
        new Gzaas({ baseUrl: api.base }).setApiKey("secret-key").create("Hi"),
      );
      assert.equal(error.kind, "http");
      assert.equal(error.status, 400);
      assert.equal(error.errorMessage, "Invalid API key");
      assert.equal(
        error.message,
        "Gzaas API returned HTTP 400 to POST /write: Invalid API key",
      );
      assert.doesNotMatch(error.message, /secret-key/);
    },
  );

  await t.step("503 is kind http", async () => {
    respond = () =>
      json({ valid: false, errorMessage: "Service unavailable" }, 503);
    const error = await rejection(
      new Gzaas({ baseUrl: api.base }).create("Hi"),
    );
    assert.equal(error.status, 503);
    assert.equal(error.errorMessage, "Service unavailable");
  });

  await t.step("a success status with valid false is kind http", async () => {
    respond = () =>
      json({ valid: false, errorMessage: "Message too long" }, 200);
    const error = await rejection(
      new Gzaas({ baseUrl: api.base }).create("Hi"),
    );
    assert.equal(error.kind, "http");
    assert.equal(error.errorMessage, "Message too long");
  });

  await t.step(
    "malformed JSON or a missing urlGzaas is kind invalid-reply",
    async () => {
      for (
        const reply of [
          () => new Response("{valid: true", { status: 201 }),
          () => json({ valid: true }, 201),
          () => json({ valid: true, urlGzaas: "" }, 201),
          () => new Response(null, { status: 204 }),
        ]
      ) {
        respond = reply;
        const error = await rejection(
          new Gzaas({ baseUrl: api.base }).create("Hi"),
        );
        assert.equal(error.kind, "invalid-reply");
      }
    },
  );

  await t.step(
    "a slow reply past timeoutMs is kind timeout; an abort is kind aborted",
    async () => {
      respond = hang;
      const slow = new Gzaas({ baseUrl: api.base, timeoutMs: 200 });
      assert.equal((await rejection(slow.create("Hi"))).kind, "timeout");
      const controller = new AbortController();
      const pending = new Gzaas({ baseUrl: api.base }).create("Hi", {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(new Error("user left")), 50);
      const error = await rejection(pending);
      assert.equal(error.kind, "aborted");
      assert.equal((error.cause as Error).message, "user left");
    },
  );

  await api.close();
});

Deno.test("Gzaas against an unreachable port fails with kind network", async () => {
  const gzaas = new Gzaas({ baseUrl: `http://127.0.0.1:${freePort()}/api/v1` });
  const error = await rejection(gzaas.create("Hi"));
  assert.equal(error.kind, "network");
  assert.equal(error.status, undefined);
  assert.match(error.message, /^Gzaas API unreachable for POST \/write: /);
  const reason = (error.cause as Error).cause as Error;
  assert.ok(
    error.message.endsWith(`: ${reason.message}`),
    "the message carries the reason",
  );
  assert.equal((await rejection(gzaas.listFonts())).kind, "network");
});

Deno.test("Gzaas uses the injected fetch and the default base URL", async () => {
  const urls: string[] = [];
  const gzaas = new Gzaas({
    fetch: (input) => {
      urls.push(String(input));
      return Promise.resolve(json([]));
    },
  });
  assert.deepEqual(await gzaas.listFonts(), []);
  assert.deepEqual(urls, [
    `${GZAAS_DEFAULT_BASE_URL}/fonts?nowFeatured=0&numResults=0`,
  ]);
});

Deno.test("Gzaas calls the injected fetch without a `this`, as window.fetch requires", async () => {
  const gzaas = new Gzaas({
    // Like a browser's window.fetch: "Illegal invocation" on any other `this`.
    fetch: function (this: unknown) {
      if (this !== undefined && this !== globalThis) {
        throw new TypeError("Illegal invocation");
      }
      return Promise.resolve(json([]));
    },
  });
  assert.deepEqual(await gzaas.listPatterns(), []);
});

Deno.test("Gzaas without an injected fetch looks up the global fetch at each call", async () => {
  const gzaas = new Gzaas();
  const original = globalThis.fetch;
  globalThis.fetch = () => Promise.resolve(json([]));
  try {
    assert.deepEqual(await gzaas.listStyles(), []);
  } finally {
    globalThis.fetch = original;
  }
});

Deno.test("Gzaas setters and arguments throw a TypeError when the value is invalid", async () => {
  const gzaas = new Gzaas();
  assert.equal(
    gzaas.setColor("aBc123").setBackcolor("fff"),
    gzaas,
    "chainable",
  );
  assert.throws(() => gzaas.setColor("#ff0000"), {
    name: "TypeError",
    message:
      'Invalid color "#ff0000": expected 3 or 6 hex digits without #, such as ff0000',
  });
  for (const bad of ["#ff0000", "red", "ff00", "gg0000", ""]) {
    assert.throws(() => gzaas.setColor(bad), TypeError, bad);
    assert.throws(() => gzaas.setBackcolor(bad), TypeError, bad);
  }
  assert.throws(() => gzaas.setVisibility(1.5), TypeError);
  assert.throws(() => gzaas.setFont(""), TypeError);
  assert.throws(
    () => gzaas.setApiKey(""),
    /^TypeError: Invalid API key: expected/,
  );
  assert.throws(() => new Gzaas({ baseUrl: "gzaas.com" }), TypeError);
  assert.throws(() => new Gzaas({ timeoutMs: 0 }), TypeError);
  for (const bad of [0, -1, 1.5, Infinity]) {
    assert.throws(() => new Gzaas({ maxReplyBytes: bad }), TypeError);
  }
  await assert.rejects(() => gzaas.create(""), TypeError);
});

Deno.test("Gzaas fails with kind too-large on a reply over maxReplyBytes, in bounded memory", async (t) => {
  const api = startBombUpstream({
    "api/v1/fonts": { coding: "br", bytes: await bomb("br", 1) },
    "api/v1/styles": { coding: "gzip", bytes: await bomb("gzip", 1) },
    "api/v1/patterns": { endless: true },
  });
  // The growth of the test process's peak in each step (the process runs other
  // tests too): it would pass 1 GiB reading a bomb whole.
  const MAX_GROWTH_MB = 250;
  try {
    const gzaas = new Gzaas({
      baseUrl: `${api.url}/api/v1`,
      timeoutMs: 60_000,
    });
    const cases: [string, () => Promise<unknown>, string][] = [
      ["a 1 GiB br bomb", () => gzaas.listFonts(), "GET /fonts"],
      ["a 1 GiB gzip bomb", () => gzaas.listStyles(), "GET /styles"],
      ["an endless body", () => gzaas.listPatterns(), "GET /patterns"],
    ];
    for (const [what, call, name] of cases) {
      await t.step(what, async () => {
        const before = await resetPeakResidentMb(Deno.pid);
        const error = await rejection(call());
        assert.equal(error.kind, "too-large");
        assert.equal(error.status, 200);
        assert.equal(
          error.message,
          `Gzaas API responded to ${name} with a body over 4194304 bytes`,
        );
        const peak = await peakResidentMb(Deno.pid);
        assert.ok(
          peak - before < MAX_GROWTH_MB,
          `peak resident size ${peak} MB, ${before} MB before the request`,
        );
      });
    }
    await t.step("a smaller bound is the client's option", async () => {
      const small = new Gzaas({
        baseUrl: `${api.url}/api/v1`,
        maxReplyBytes: 1000,
      });
      const error = await rejection(small.listPatterns());
      assert.equal(
        error.message,
        "Gzaas API responded to GET /patterns with a body over 1000 bytes",
      );
    });
  } finally {
    await api.stop();
  }
});
