import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { EXIT_USAGE } from "../lib/role.ts";
import { main, type MainOptions, programName } from "../main.ts";
import { defineRole, type RoleDescriptor } from "../lib/role.ts";
import { port, text } from "../lib/setting_kinds.ts";

function recordingRole(
  name: string,
  events: string[],
  options: {
    done?: number | Error;
    fail?: boolean;
    stopFails?: boolean;
  } = {},
) {
  return defineRole({
    name,
    summary: `${name} for tests`,
    usage: `${name} [WORD]`,
    maxArgs: 1,
    settings: {
      [`${name.toUpperCase()}_PORT`]: port({ description: "Port", default: 1 }),
      [`${name.toUpperCase()}_NAME`]: text({
        description: "Name",
        default: "x",
      }),
    },
    argsToEnv: (args) =>
      args[0] ? { [`${name.toUpperCase()}_NAME`]: args[0] } : {},
    start(settings, { log }) {
      if (options.fail) return Promise.reject(new Error("port taken"));
      events.push(`start ${name} ${JSON.stringify(settings)}`);
      log.info(`${name} started`);
      return Promise.resolve({
        done: options.done === undefined
          ? undefined
          : options.done instanceof Error
          ? Promise.reject(options.done)
          : Promise.resolve(options.done),
        stop: () => {
          events.push(`stop ${name}`);
          return options.stopFails
            ? Promise.reject(new Error("flush failed"))
            : Promise.resolve();
        },
      });
    },
  });
}

function run(
  argv: string[],
  roles: RoleDescriptor[],
  overrides: Partial<MainOptions> = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const logs: string[] = [];
  const code = main({
    argv,
    env: {},
    cwd: Deno.makeTempDirSync(),
    roles,
    print: (line) => out.push(line),
    printError: (line) => err.push(line),
    stopRequested: new Promise(() => {}),
    writeLog: (line) => logs.push(line),
    ...overrides,
  }).finally(reset);
  return { code, out, err, logs };
}

Deno.test("main() starts every named role with its arguments and stops them on a signal", async () => {
  const events: string[] = [];
  let signal!: (name: string) => void;
  const roles = [recordingRole("alpha", events), recordingRole("beta", events)];
  const { code, logs } = run(["alpha", "hello", "beta"], roles, {
    env: { BETA_PORT: "8080" },
    stopRequested: new Promise((resolve) => signal = resolve),
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  signal("SIGTERM");
  assert.equal(await code, 0);
  assert.deepEqual(events, [
    'start alpha {"ALPHA_PORT":1,"ALPHA_NAME":"hello"}',
    'start beta {"BETA_PORT":8080,"BETA_NAME":"x"}',
    "stop beta",
    "stop alpha",
  ]);
  assert.ok(
    logs.some((line) => /\[INFO\] Received SIGTERM: stopping$/.test(line)),
  );
});

Deno.test("main() exits 2 with one line per problem, starting nothing", async () => {
  const events: string[] = [];
  const { code, err } = run(["alpha", "a", "b", "nope"], [
    recordingRole("alpha", events),
  ], {
    env: { ALPHA_PORT: "99999", LOG_LEVEL: "LOUD" },
  });
  assert.equal(await code, EXIT_USAGE);
  assert.deepEqual(err, [
    'Unknown role "b", or an argument too many: alpha takes at most 1 argument (roles: alpha)',
    'Unknown role "nope", or an argument too many: alpha takes at most 1 argument (roles: alpha)',
    'Invalid LOG_LEVEL "LOUD": expected one of DEBUG, INFO, WARNING, ERROR',
    'alpha: Invalid ALPHA_PORT "99999": expected an integer from 0 to 65535',
    "Run with --help to see every role and setting.",
  ]);
  assert.deepEqual(events, []);
});

Deno.test("main() ends with the role's code when every role is one-shot", async () => {
  const events: string[] = [];
  const { code } = run(["alpha"], [
    recordingRole("alpha", events, { done: 3 }),
  ]);
  assert.equal(await code, 3);
  assert.deepEqual(events.at(-1), "stop alpha");
});

Deno.test("main() exits 1 and says so when a role cannot stop cleanly", async () => {
  const events: string[] = [];
  let signal!: (name: string) => void;
  const { code, logs } = run(["alpha"], [
    recordingRole("alpha", events, { stopFails: true }),
  ], { stopRequested: new Promise((resolve) => signal = resolve) });
  await new Promise((resolve) => setTimeout(resolve, 20));
  signal("SIGTERM");
  assert.equal(await code, 1);
  assert.ok(
    logs.some((line) =>
      line.endsWith("[ERROR] Cannot stop alpha: flush failed")
    ),
  );
  assert.ok(!logs.some((line) => line.endsWith("[INFO] Stopped")));
});

Deno.test("main() exits 1 and stops the roles when a one-shot role fails", async () => {
  const events: string[] = [];
  const { code, logs } = run(["alpha"], [
    recordingRole("alpha", events, { done: new Error("sensor on fire") }),
  ]);
  assert.equal(await code, 1);
  assert.equal(events.at(-1), "stop alpha");
  assert.ok(
    logs.some((line) => line.endsWith("[ERROR] alpha failed: sensor on fire")),
  );
});

Deno.test("main() stops the started roles and exits 1 when a role cannot start", async () => {
  const events: string[] = [];
  const roles = [
    recordingRole("alpha", events),
    recordingRole("beta", events, { fail: true }),
  ];
  const { code, logs } = run(["alpha", "beta"], roles);
  assert.equal(await code, 1);
  assert.deepEqual(events.slice(1), ["stop alpha"]);
  assert.ok(
    logs.some((line) => line.endsWith("[ERROR] Cannot start beta: port taken")),
  );
});

Deno.test("main() stops at a signal that comes while a role is still starting", async () => {
  const events: string[] = [];
  let requestStop = (_signal: string) => {};
  const stopRequested = new Promise<string>((resolve) => requestStop = resolve);
  const slow = defineRole({
    name: "slow",
    summary: "slow for tests",
    settings: {},
    start() {
      requestStop("SIGTERM");
      return new Promise(() => {}); // a credential process that never responds
    },
  });
  const { code, logs } = run(["alpha", "slow"], [
    recordingRole("alpha", events),
    slow,
  ], { stopRequested, lateStartMs: 10 });
  assert.equal(await code, 0);
  assert.deepEqual(events.slice(1), ["stop alpha"]);
  assert.ok(
    logs.some((line) =>
      line.endsWith("[INFO] Received SIGTERM while starting slow: stopping")
    ),
  );
});

Deno.test("main() stops a role that ends its start soon after the signal, before returning", async () => {
  const events: string[] = [];
  let requestStop = (_signal: string) => {};
  const stopRequested = new Promise<string>((resolve) => requestStop = resolve);
  const late = defineRole({
    name: "late",
    summary: "late for tests",
    settings: {},
    async start() {
      requestStop("SIGINT");
      await new Promise((resolve) => setTimeout(resolve, 50));
      events.push("started late");
      return { stop: () => Promise.resolve(void events.push("stop late")) };
    },
  });
  const { code, logs } = run(["late"], [late], { stopRequested });
  const exit = await code;
  events.push("returned");
  assert.equal(exit, 0);
  assert.deepEqual(events, ["started late", "stop late", "returned"]);
  assert.ok(logs.some((line) => line.endsWith("[INFO] Stopped")));
});

Deno.test("main() starts nothing after a signal that came first", async () => {
  const events: string[] = [];
  const { code, logs } = run(["alpha"], [recordingRole("alpha", events)], {
    stopRequested: Promise.resolve("SIGTERM"),
  });
  assert.equal(await code, 0);
  assert.deepEqual(events, []);
  assert.ok(
    logs.some((line) => line.endsWith("[INFO] Received SIGTERM: stopping")),
  );
});

Deno.test("main() --help lists roles, usage and settings with defaults", async () => {
  const { code, out } = run(["--help"], [recordingRole("alpha", [])]);
  assert.equal(await code, 0);
  const help = out.join("\n");
  assert.match(help, /alpha\s+alpha for tests/);
  assert.match(help, /alpha \[WORD\]:/);
  assert.match(help, /ALPHA_PORT\s+Port \(default 1\)/);
  assert.match(help, /LOG_LEVEL\s+.*\(default INFO\)/);
});

Deno.test("main() --help names the program as the user started it", async () => {
  const roles = [recordingRole("alpha", [])];
  const task = run(["--help"], roles);
  assert.equal(await task.code, 0);
  assert.match(task.out[0]!, /^Usage: deno task start \[ROLE/);
  const binary = run(["--help"], roles, {
    program: programName("/usr/local/bin/homewire"),
  });
  assert.equal(await binary.code, 0);
  assert.match(binary.out[0]!, /^Usage: homewire \[ROLE/);
  assert.equal(programName("/usr/bin/deno"), "deno task start");
  assert.equal(programName("C:\\deno\\deno.exe"), "deno task start");
});
