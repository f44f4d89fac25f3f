/**
 * The systemd unit templates in `deploy/`: `systemd-analyze verify` finds nothing wrong
 * with them but the missing program (this machine has no /usr/local/bin/homewire or
 * /usr/local/bin/deno), and the Deno unit runs `deno run` with the flags of
 * `deno task start` and the binary unit's service settings; that command serves a role
 * as the unit runs it, from a project folder its user cannot write, with an empty
 * DENO_DIR and the npm registry unreachable.
 */
import assert from "node:assert/strict";
import {
  freePort,
  listeningUrl,
  requireBinary,
  startMain,
} from "./_test_helpers.ts";

const DEPLOY = new URL("../deploy/", import.meta.url);
const ROOT = new URL("..", import.meta.url).pathname;
const analyze = requireBinary("systemd-analyze");
/**
 * The unit's user stands in as nobody; only root can switch to it. `setpriv` execs
 * the command itself (no supervising parent, unlike runuser), so SIGTERM reaches
 * Deno as systemd sends it.
 */
const NOBODY = 65534;
const AS_NOBODY = [
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  "--clear-groups",
  "--",
];
const setpriv = requireBinary("setpriv");
const unitUserReason = Deno.uid() !== 0
  ? "it runs as root, to start the role as nobody"
  : setpriv.ignore
  ? "setpriv is missing"
  : !(await asNobody(["test", "-r", `${ROOT}main.ts`]))
  ? `nobody cannot read the project in ${ROOT}`
  : undefined;
if (unitUserReason) {
  console.warn(
    `Skipping the read-only project check of the Deno unit: ${unitUserReason}`,
  );
}

/** Whether `command` succeeds as the user nobody. */
async function asNobody(command: string[]): Promise<boolean> {
  const { success } = await new Deno.Command("setpriv", {
    args: [...AS_NOBODY, ...command],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return success;
}

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
  // The unit runs from the project's installed node_modules (a Pi may be offline),
  // not from the global cache the start task fills from deno.start.lock.
  const fromGlobalCache = [
    "--node-modules-dir=none",
    "--frozen",
    "--lock=deno.start.lock",
  ];
  const [deno, ...all] = config.tasks.start!.split(/\s+/);
  // The task sizes V8's young generation for a server; the unit leaves that to V8,
  // which scales it to the device's memory, and to DENO_V8_FLAGS, which a flag on
  // the command line would override.
  const v8 = all.filter((flag) => flag.startsWith("--v8-flags="));
  assert.equal(v8.length, 1, "deno task start needs exactly one --v8-flags");
  const flags = all.filter((flag) =>
    !fromGlobalCache.includes(flag) && !v8.includes(flag)
  );
  assert.deepEqual(
    all.filter((flag) => fromGlobalCache.includes(flag)),
    fromGlobalCache,
  );
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

Deno.test({
  name:
    "the Deno unit's command serves a role from a read-only project folder with the npm registry unreachable",
  ignore: unitUserReason !== undefined,
  async fn() {
    // As under the unit: the project (here, this folder and its node_modules) is
    // not writable by the role's user, the working folder and DENO_DIR are empty
    // and its own, and the npm registry does not respond.
    assert.equal(await asNobody(["test", "-w", `${ROOT}node_modules`]), false);
    const dir = await Deno.makeTempDir({ prefix: "homewire-unit-" });
    try {
      const state = `${dir}/state`;
      const cache = `${dir}/cache`;
      for (const folder of [dir, state, cache]) {
        await Deno.mkdir(folder, { recursive: true });
        await Deno.chown(folder, NOBODY, NOBODY);
      }
      const messages = startMain(["messages"], {
        runtime: [setpriv.path!, ...AS_NOBODY, Deno.execPath()],
        cwd: state,
        env: {
          HOME: state,
          DENO_DIR: cache,
          DENO_NO_UPDATE_CHECK: "1",
          NPM_CONFIG_REGISTRY: `http://127.0.0.1:${freePort()}/`,
          MESSAGES_HOST: "127.0.0.1",
          MESSAGES_PORT: "0",
        },
      });
      try {
        const base = await messages.waitFor(
          /messages listening on http:\/\//,
          60_000,
        ).then(() => listeningUrl(messages, "messages"));
        const created = await fetch(`${base}/api/message/resource`, {
          method: "POST",
          body: JSON.stringify({ author: "unit", message: "read-only" }),
        });
        assert.equal(created.status, 201, await created.text());
      } finally {
        assert.equal(
          await messages.stop("SIGTERM"),
          0,
          messages.stderr.join("\n"),
        );
      }
      // MESSAGES_DB's default, relative to the working folder as under the unit.
      assert.ok((await Deno.stat(`${state}/data/messages.sqlite3`)).isFile);
      assert.doesNotMatch(messages.stderr.join("\n"), /error:|denied/i);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
