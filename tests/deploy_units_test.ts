/**
 * The systemd unit templates in `deploy/`: `systemd-analyze verify` finds nothing wrong
 * with them but the missing program (this machine has no /usr/local/bin/homewire or
 * /usr/local/bin/deno), and the Deno unit runs `deno run` with the flags of
 * `deno task start` and the binary unit's service settings.
 */
import assert from "node:assert/strict";
import { requireBinary } from "./_helpers.ts";

const DEPLOY = new URL("../deploy/", import.meta.url);
const analyze = requireBinary("systemd-analyze");

/** The unit templates, by file name. */
async function units(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const entry of Deno.readDir(DEPLOY)) {
    if (entry.isFile && entry.name.endsWith("@.service")) {
      found.set(
        entry.name,
        await Deno.readTextFile(new URL(entry.name, DEPLOY)),
      );
    }
  }
  return found;
}

/**
 * What `systemd-analyze verify` says about `text` as the unit `name` instantiated for
 * the collector, less the one complaint allowed here: the program is not installed.
 */
async function complaints(name: string, text: string): Promise<string[]> {
  assert.ok(analyze.path, "systemd-analyze is not installed");
  const dir = await Deno.makeTempDir({ prefix: "homewire-units-" });
  try {
    const instance = name.replace("@.", "@collector.");
    await Deno.writeTextFile(`${dir}/${instance}`, text);
    const { stdout, stderr } = await new Deno.Command(analyze.path, {
      args: ["verify", `${dir}/${instance}`],
      env: { SYSTEMD_LOG_COLOR: "0", SYSTEMD_PAGER: "" },
      stdin: "null",
    }).output();
    const output = new TextDecoder().decode(stdout) +
      new TextDecoder().decode(stderr);
    const missingProgram = new RegExp(
      `^${
        instance.replaceAll(".", "\\.")
      }: Command /usr/local/bin/(homewire|deno) is not executable: No such file or directory$`,
    );
    return output.split("\n").filter((line) =>
      line.trim() !== "" && !missingProgram.test(line)
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `Key=value` lines of a unit's `[Service]` section. */
function serviceSettings(text: string): string[] {
  const section = /^\[Service\]\n([\s\S]*?)(?=^\[)/m.exec(text)?.[1] ?? "";
  return section.split("\n").filter((line) => /^[A-Za-z]+=/.test(line));
}

Deno.test({
  name:
    "systemd-analyze verify finds nothing wrong in deploy/ but the missing program",
  ignore: analyze.ignore,
  async fn(t) {
    const found = await units();
    assert.deepEqual(
      [...found.keys()].sort(),
      ["homewire-deno@.service", "homewire@.service"],
    );
    for (const [name, text] of found) {
      await t.step(name, async () => {
        assert.deepEqual(await complaints(name, text), []);
      });
    }
    await t.step("a mistake is reported (the check can fail)", async () => {
      const text = found.get("homewire-deno@.service")!.replace(
        "KillSignal=SIGTERM",
        "KillSignal=SIGTERN\nRestartSecs=5",
      );
      const said = (await complaints("homewire-deno@.service", text)).join(
        "\n",
      );
      assert.match(said, /Failed to parse signal name, ignoring: SIGTERN/);
      assert.match(said, /Unknown key '?RestartSecs'?/);
    });
  },
});

Deno.test("the Deno unit runs deno run with the flags of deno task start", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  const [deno, ...flags] = config.tasks.start!.split(/\s+/);
  assert.equal(deno, "deno");
  assert.equal(flags.at(-1), "main.ts");
  const text = (await units()).get("homewire-deno@.service")!;
  const execStart = serviceSettings(text)
    .filter((line) => line.startsWith("ExecStart="));
  assert.equal(execStart.length, 1);
  const words = execStart[0]!.slice("ExecStart=".length).split(/\s+/);
  // --config names the project folder: the unit runs in /var/lib/homewire, like the
  // binary's, so relative data paths land in the same place.
  assert.deepEqual(words, [
    "/usr/local/bin/deno",
    ...flags.slice(0, -1),
    "--config=/opt/homewire/deno.json",
    "/opt/homewire/main.ts",
    "%i",
  ]);
});

Deno.test("the Deno unit keeps every service setting of the binary unit", async () => {
  const found = await units();
  const binary = serviceSettings(found.get("homewire@.service")!);
  const deno = serviceSettings(found.get("homewire-deno@.service")!);
  assert.deepEqual(
    binary.filter((line) => !deno.includes(line)),
    ["ExecStart=/usr/local/bin/homewire %i"],
  );
  assert.deepEqual(deno.filter((line) => !binary.includes(line)), [
    "CacheDirectory=homewire",
    "Environment=DENO_DIR=/var/cache/homewire/deno",
    "Environment=DENO_NO_UPDATE_CHECK=1",
    "ExecStart=/usr/local/bin/deno run -A --unstable-cron --config=/opt/homewire/deno.json /opt/homewire/main.ts %i",
  ]);
});
