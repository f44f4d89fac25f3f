/**
 * `deno task compile` and `deno task compile:pi` embed what the program runs on and
 * nothing the tests and benchmarks need.
 *
 * `deno compile` downloads its base runtime (`denort`) from the internet, which this
 * network blocks. `DENORT_BIN` names a local one instead (package managers that ship
 * `denort` set it); without one, the test uses the `deno` running it, which compiles
 * the module graph and lists the embedded files just the same but whose output does
 * not start the program. So this pins down the module graph, the npm packages
 * embedded and the flags of both tasks, not the binary's behaviour.
 */
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
const config = JSON.parse(
  await Deno.readTextFile(new URL("deno.json", root)),
) as { tasks: Record<string, string> };

/** A task's words, without `--output PATH` and `--target TARGET`. */
function compileFlags(task: string): string[] {
  const words = config.tasks[task]?.split(/\s+/) ?? [];
  return words.filter((word, i) =>
    !["--output", "--target"].includes(word) &&
    !["--output", "--target"].includes(words[i - 1] ?? "")
  );
}

/** Packages only the tests and benchmarks import. */
const TEST_ONLY = [
  "puppeteer-core",
  "fauxqs",
  "json-server",
  "autocannon",
  "cors-anywhere",
  "sqs-consumer",
  "fake-timers",
];
/** Packages the roles load at run time. */
const RUNTIME = [
  "client-sqs",
  "credential-providers",
  "hono",
  "logtape",
  "influxdb-client",
  "noble",
  "mqtt",
];

Deno.test("compile:pi builds what compile builds, for aarch64", () => {
  assert.deepEqual(compileFlags("compile:pi"), compileFlags("compile"));
  assert.match(
    config.tasks["compile:pi"] ?? "",
    /--target aarch64-unknown-linux-gnu /,
  );
});

Deno.test({
  name: "compile embeds the roles' npm packages and no test-only package",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "homewire-compile-" });
    try {
      const [deno, ...args] = compileFlags("compile");
      assert.equal(deno, "deno");
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [...args.slice(0, -1), "--output", `${dir}/homewire`, "main.ts"],
        cwd: root.pathname,
        env: {
          NO_COLOR: "1",
          DENORT_BIN: Deno.env.get("DENORT_BIN") ?? Deno.execPath(),
        },
        stdin: "null",
      }).output();
      const output = new TextDecoder().decode(stdout) +
        new TextDecoder().decode(stderr);
      assert.equal(code, 0, output);
      const embedded = output.slice(output.indexOf("Embedded Files"));
      for (const name of RUNTIME) {
        assert.match(embedded, new RegExp(`[─ /]${name}/`), `${name} missing`);
      }
      for (const name of TEST_ONLY) {
        assert.doesNotMatch(embedded, new RegExp(name), `${name} embedded`);
      }
      const total = /Files: ([\d.]+)MB/.exec(embedded);
      assert.ok(total, embedded.slice(-300));
      assert.ok(Number(total[1]) < 40, `embedded ${total[1]} MB`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
