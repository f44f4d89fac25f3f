/**
 * End to end in Debian's Chromium (headless, driven by puppeteer-core): a page served
 * from an origin listed in `MESSAGES_ALLOW_ORIGIN` runs react-admin's
 * `ra-data-json-server` (bundled for the browser by `deno bundle`) against
 * `main.ts messages`: list with paging and sort, one record, create with the write
 * token, update and delete. The same page from an origin not listed reads nothing
 * and writes nothing.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser } from "puppeteer-core";
import { freePort, requireBinary, startMain } from "./_test_helpers.ts";

const chromium = requireBinary("chromium", ["/usr/bin/chromium"]);
const TOKEN = "browser-write-token-3a9c";
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** `ra-data-json-server` as one browser script setting `jsonServerProvider`. */
async function bundleProvider(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "homewire-bundle-" });
  try {
    await Deno.writeTextFile(
      `${dir}/entry.ts`,
      `import jsonServerProvider from "ra-data-json-server";
Object.assign(globalThis, { jsonServerProvider });`,
    );
    const { success, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        `--config=${ROOT}deno.json`,
        "--platform=browser",
        `--output=${dir}/provider.js`,
        `${dir}/entry.ts`,
      ],
      cwd: ROOT,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(success, new TextDecoder().decode(stderr));
    return await Deno.readTextFile(`${dir}/provider.js`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The page: react-admin's data provider calls, each result put in the body. */
function page(api: string): string {
  return `<!doctype html><meta charset="utf-8"><title>messages</title>
<script src="/provider.js"></script>
<script type="module">
  const show = (name, value) => document.body.dataset[name] = JSON.stringify(value);
  // What react-admin apps pass to add their token: fetch, and the shape
  // ra-data-json-server reads (status, headers, body, json).
  const httpClient = async (url, options = {}) => {
    const headers = new Headers(options.headers ?? { accept: "application/json" });
    if (options.body) headers.set("content-type", "application/json");
    headers.set("authorization", "Bearer ${TOKEN}");
    const response = await fetch(url, { ...options, headers });
    const body = await response.text();
    if (response.status < 200 || response.status >= 300) {
      throw Object.assign(new Error(body), { status: response.status });
    }
    let json;
    try { json = JSON.parse(body); } catch {}
    return { status: response.status, headers: response.headers, body, json };
  };
  const provider = globalThis.jsonServerProvider("${api}/api", httpClient);
  const R = "message/resource";
  const step = async (name, run) => {
    try {
      show(name, { ok: await run() });
    } catch (error) {
      show(name, { error: String(error), status: error.status });
    }
  };
  await step("create", async () => {
    const made = [];
    for (let i = 1; i <= 12; i++) {
      const { data } = await provider.create(R, {
        data: { author: i % 2 ? "Ada" : "Bob", message: "note " + i },
      });
      made.push(data);
    }
    return made;
  });
  await step("list", () => provider.getList(R, {
    pagination: { page: 2, perPage: 5 },
    sort: { field: "id", order: "DESC" },
    filter: {},
  }));
  await step("one", () => provider.getOne(R, { id: 3 }));
  await step("update", () => provider.update(R, {
    id: 3,
    data: { id: 3, author: "Cy", message: "edited" },
    previousData: { id: 3, author: "Ada", message: "note 3" },
  }));
  await step("delete", () => provider.delete(R, {
    id: 4,
    previousData: { id: 4, author: "Bob", message: "note 4" },
  }));
  await step("after", () => provider.getList(R, {
    pagination: { page: 1, perPage: 100 },
    sort: { field: "id", order: "ASC" },
    filter: {},
  }));
  document.body.dataset.done = "yes";
</script><body></body>`;
}

Deno.test({
  name:
    "messages in Chromium: ra-data-json-server on a listed origin reads and writes, an unlisted origin neither",
  ignore: chromium.ignore,
  async fn(t) {
    const provider = await bundleProvider();
    const port = freePort();
    const api = `http://127.0.0.1:${port}`;
    const html = page(api);
    const serve = () =>
      Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        (request) =>
          new URL(request.url).pathname === "/provider.js"
            ? new Response(provider, {
              headers: { "content-type": "text/javascript" },
            })
            : new Response(html, {
              headers: { "content-type": "text/html; charset=utf-8" },
            }),
      );
    const listed = serve();
    const unlisted = serve();
    const listedOrigin = `http://127.0.0.1:${listed.addr.port}`;
    const unlistedOrigin = `http://localhost:${unlisted.addr.port}`;
    const main = startMain(["messages"], {
      env: {
        MESSAGES_HOST: "127.0.0.1",
        MESSAGES_PORT: String(port),
        MESSAGES_DB: ":memory:",
        MESSAGES_TOKEN: TOKEN,
        MESSAGES_ALLOW_ORIGIN: `https://other.example,${listedOrigin}`,
      },
    });
    const userDataDir = await Deno.makeTempDir({
      prefix: "homewire-chromium-",
    });
    let browser: Browser | undefined;
    try {
      await main.waitFor(/messages listening on /);
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
          timeout: 20_000,
        });
        const read = async (name: string) =>
          JSON.parse(
            await tab.$eval("body", (body, n) =>
              body.dataset[n as string]!, name),
          );
        const names = ["create", "list", "one", "update", "delete", "after"];
        const seen: Record<string, { ok?: unknown; error?: string }> = {};
        for (const name of names) seen[name] = await read(name);
        await tab.close();
        return seen;
      };

      await t.step(
        "the listed page lists, reads, creates, updates and deletes",
        async () => {
          const seen = await open(listedOrigin);
          const created = seen.create!.ok as { id: number }[];
          assert.deepEqual(created.map((r) => r.id), [
            1,
            2,
            3,
            4,
            5,
            6,
            7,
            8,
            9,
            10,
            11,
            12,
          ], JSON.stringify(seen.create));
          const list = seen.list!.ok as {
            data: { id: number }[];
            total: number;
          };
          assert.equal(list.total, 12, JSON.stringify(seen.list));
          assert.deepEqual(list.data.map((r) => r.id), [7, 6, 5, 4, 3]);
          assert.deepEqual((seen.one!.ok as { data: unknown }).data, {
            id: 3,
            author: "Ada",
            message: "note 3",
          });
          assert.ok(seen.update!.ok, JSON.stringify(seen.update));
          assert.ok(seen.delete!.ok, JSON.stringify(seen.delete));
          const after = seen.after!.ok as {
            data: { id: number; author: string }[];
            total: number;
          };
          assert.equal(after.total, 11);
          assert.ok(!after.data.some((r) => r.id === 4));
          assert.equal(after.data.find((r) => r.id === 3)!.author, "Cy");
        },
      );

      await t.step(
        "the unlisted page reads nothing and writes nothing",
        async () => {
          const seen = await open(unlistedOrigin);
          for (const [name, result] of Object.entries(seen)) {
            assert.equal(
              result.ok,
              undefined,
              `${name}: ${JSON.stringify(result)}`,
            );
            assert.match(result.error ?? "", /Failed to fetch|TypeError/, name);
          }
          const response = await fetch(`${api}/api/message/resource`);
          const records = await response.json() as { id: number }[];
          assert.equal(records.length, 11, "the unlisted page changed records");
        },
      );
    } finally {
      await browser?.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
      await listed.shutdown();
      await unlisted.shutdown();
      assert.equal(await main.stop(), 0);
    }
  },
});
