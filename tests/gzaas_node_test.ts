/**
 * The styled-message client library outside Deno: bundled to plain JavaScript and run
 * by Node against a stand-in of the API. Skipped with a printed reason when `node` is
 * not installed (the library's own suite runs everywhere).
 */
import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname;

function findNode(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/node`).isFile) return `${dir}/node`;
    } catch {
      // not in this folder
    }
  }
  console.warn(
    "Skipping the Node run of the gzaas library: node is not installed",
  );
  return undefined;
}

const node = findNode();

async function run(command: string, args: string[]) {
  const output = await new Deno.Command(command, {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return {
    code: output.code,
    stdout: decode(output.stdout),
    stderr: decode(output.stderr),
  };
}

Deno.test({
  name:
    "the gzaas library runs in Node: lists, creates and reports typed errors",
  ignore: node === undefined,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "gzaas-node-" });
    const seen: string[] = [];
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (request) => {
        const url = new URL(request.url);
        const body = await request.text();
        seen.push(`${request.method} ${url.pathname}${url.search} ${body}`);
        if (url.pathname === "/api/v1/fonts") {
          return Response.json([
            { hashtag: "ultra", description: "Ultra", fontFamily: "Ultra" },
          ]);
        }
        if (url.pathname === "/api/v1/write") {
          return new URLSearchParams(body).get("apikey") === "good"
            ? Response.json(
              { valid: true, urlGzaas: "http://gzaas.test/abc" },
              {
                status: 201,
              },
            )
            : Response.json({ valid: false, errorMessage: "Invalid API key" }, {
              status: 400,
            });
        }
        return Response.json({ message: "Not found" }, { status: 404 });
      },
    );
    try {
      const bundle = await run(Deno.execPath(), [
        "bundle",
        "--platform=neutral",
        "clients/gzaas/mod.ts",
        "-o",
        `${dir}/gzaas.mjs`,
      ]);
      assert.equal(bundle.code, 0, bundle.stderr);
      const script = `
        import { Gzaas, GzaasError } from "./gzaas.mjs";
        const base = ${
        JSON.stringify(`http://127.0.0.1:${server.addr.port}/api/v1`)
      };
        const fonts = await new Gzaas({ baseUrl: base }).listFonts({ nowFeatured: true, numResults: 1 });
        const url = await new Gzaas({ baseUrl: base }).setApiKey("good").setColor("ff0000").create("Hi");
        let error;
        try { await new Gzaas({ baseUrl: base }).setApiKey("bad").create("Hi"); } catch (e) { error = e; }
        console.log(JSON.stringify({
          fonts, url,
          typed: error instanceof GzaasError, kind: error.kind, status: error.status, errorMessage: error.errorMessage,
        }));
      `;
      await Deno.writeTextFile(`${dir}/main.mjs`, script);
      const result = await run(node!, [`${dir}/main.mjs`]);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), {
        fonts: [{
          hashtag: "ultra",
          description: "Ultra",
          fontFamily: "Ultra",
        }],
        url: "http://gzaas.test/abc",
        typed: true,
        kind: "http",
        status: 400,
        errorMessage: "Invalid API key",
      });
      assert.deepEqual(seen, [
        "GET /api/v1/fonts?nowFeatured=1&numResults=1 ",
        "POST /api/v1/write apikey=good&message=Hi&color=ff0000",
        "POST /api/v1/write apikey=bad&message=Hi",
      ]);
    } finally {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
