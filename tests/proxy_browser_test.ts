/**
 * End to end in Debian's Chromium (headless, driven by puppeteer-core): a page served
 * from one local origin reads an upstream's data through `main.ts proxy`, which adds the
 * API key the page never sees; the same page from an origin not in
 * `PROXY_ALLOW_ORIGIN` cannot read the response, and the upstream gets no call.
 */
import assert from "node:assert/strict";
import puppeteer, { type Browser } from "puppeteer-core";
import { freePort, requireBinary, startMain } from "./_test_helpers.ts";

const chromium = requireBinary("chromium", ["/usr/bin/chromium"]);
const KEY = "browser-owm-key-5f1e2d3c4b";

/** The page: fetches through the proxy, then writes what it could read into the body. */
function page(proxy: string): string {
  return `<!doctype html><meta charset="utf-8"><title>weather</title>
<script type="module">
  const show = (name, value) => document.body.dataset[name] = JSON.stringify(value);
  const call = async (name, init) => {
    try {
      const response = await fetch("${proxy}/weather/weather?q=Berlin", init);
      show(name, {
        status: response.status,
        data: await response.json(),
        headers: [...response.headers],
      });
    } catch (error) {
      show(name, { error: String(error) });
    }
  };
  await call("simple");
  // A custom header makes the browser send a preflight first.
  await call("preflighted", { headers: { "x-page": "1" } });
  document.body.dataset.done = "yes";
</script><body></body>`;
}

Deno.test({
  name:
    "the proxy in Chromium: a listed page reads the data without the key, an unlisted one reads nothing and calls no upstream",
  ignore: chromium.ignore,
  async fn(t) {
    const calls: string[] = [];
    const upstream = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) => {
        const url = new URL(request.url);
        calls.push(`${request.method} ${url.pathname}${url.search}`);
        if (url.searchParams.get("appid") !== KEY) {
          return Response.json({ cod: 401, message: "Invalid API key" }, {
            status: 401,
          });
        }
        return Response.json({ name: "Berlin", main: { temp: 21.5 } });
      },
    );
    const proxyPort = freePort();
    const proxyUrl = `http://127.0.0.1:${proxyPort}`;
    const html = page(proxyUrl);
    const serve = () =>
      Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        () =>
          new Response(html, {
            headers: { "content-type": "text/html; charset=utf-8" },
          }),
      );
    const listed = serve();
    const unlisted = serve();
    const listedOrigin = `http://127.0.0.1:${listed.addr.port}`;
    const unlistedOrigin = `http://127.0.0.1:${unlisted.addr.port}`;
    const proxy = startMain(["proxy"], {
      env: {
        PROXY_ROUTES: `weather=http://127.0.0.1:${upstream.addr.port}/data/2.5`,
        PROXY_ROUTE_WEATHER_QUERY: `appid=${KEY}&units=metric`,
        PROXY_ALLOW_ORIGIN: `https://other.example,${listedOrigin}`,
        PROXY_HOST: "127.0.0.1",
        PROXY_PORT: String(proxyPort),
      },
    });
    const userDataDir = await Deno.makeTempDir({
      prefix: "homewire-chromium-",
    });
    let browser: Browser | undefined;
    try {
      await proxy.waitFor(/\[INFO\] proxy listening on /);
      browser = await puppeteer.launch({
        executablePath: chromium.path ?? "/usr/bin/chromium",
        args: [
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          `--user-data-dir=${userDataDir}`,
        ],
      });
      const open = async (origin: string) => {
        const tab = await browser!.newPage();
        await tab.goto(`${origin}/`, { waitUntil: "load" });
        await tab.waitForFunction(`document.body.dataset.done === "yes"`, {
          timeout: 15_000,
        });
        const read = (name: string) =>
          tab.$eval("body", (body, n) => body.dataset[n as string]!, name);
        return {
          simple: JSON.parse(await read("simple")),
          preflighted: JSON.parse(await read("preflighted")),
          html: await tab.content(),
        };
      };

      await t.step(
        "the listed page reads the upstream's data; the key stays on the server",
        async () => {
          const seen = await open(listedOrigin);
          for (const result of [seen.simple, seen.preflighted]) {
            assert.equal(result.status, 200, JSON.stringify(result));
            assert.deepEqual(result.data, {
              name: "Berlin",
              main: { temp: 21.5 },
            });
            const headers = Object.fromEntries(result.headers);
            assert.equal(headers["content-type"], "application/json");
          }
          assert.ok(
            !JSON.stringify(seen).includes(KEY),
            "key seen by the page",
          );
          assert.deepEqual(calls, [
            `GET /data/2.5/weather?q=Berlin&appid=${KEY}&units=metric`,
            `GET /data/2.5/weather?q=Berlin&appid=${KEY}&units=metric`,
          ]);
        },
      );
      await t.step(
        "the unlisted page cannot read the response and no upstream request is made",
        async () => {
          const before = calls.length;
          const seen = await open(unlistedOrigin);
          assert.match(seen.simple.error, /TypeError/);
          assert.match(seen.preflighted.error, /TypeError/);
          assert.equal(calls.length, before);
        },
      );
      await t.step("the proxy said 403 to that origin", async () => {
        const refused = await fetch(`${proxyUrl}/weather/weather?q=Berlin`, {
          headers: { origin: unlistedOrigin },
        });
        assert.equal(refused.status, 403);
        assert.equal(refused.headers.has("access-control-allow-origin"), false);
        assert.deepEqual(await refused.json(), {
          message:
            `Origin "${unlistedOrigin}" is not allowed: PROXY_ALLOW_ORIGIN does not list it`,
        });
        const allowed = await fetch(`${proxyUrl}/weather/weather?q=Berlin`, {
          headers: { origin: listedOrigin },
        });
        assert.equal(
          allowed.headers.get("access-control-allow-origin"),
          listedOrigin,
        );
        assert.match(allowed.headers.get("vary") ?? "", /Origin/);
        await allowed.body?.cancel();
      });
    } finally {
      await browser?.close();
      await proxy.stop();
      await listed.shutdown();
      await unlisted.shutdown();
      await upstream.shutdown();
      await Deno.remove(userDataDir, { recursive: true });
    }
  },
});
