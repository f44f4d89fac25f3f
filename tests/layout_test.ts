/**
 * The layout's rules, checked from the code's own imports (every `.ts` file of the
 * repository, its `import`/`export ... from` and `import("...")` specifiers):
 * - `lib/` imports nothing of `program/`, `services/`, `drivers/` or `clients/`;
 * - `drivers/<name>/` import `lib/` and their own folder only;
 * - `services/<role>/` import `lib/`, `drivers/` and their own folder, never
 *   another role, `program/` or `main.ts`;
 * - `clients/gzaas/` imports nothing outside its folder (it is published alone);
 * - `program/` and `main.ts` import no test or benchmark code;
 * - production modules import no test helper, and a module only tests use is
 *   a test (`*_test.ts`) or a test helper, named `_test_<what>.ts` wherever it
 *   lives (`tests/` included): one convention, no other;
 * - a test file's name appears once in `tests/` and nowhere else;
 * - no import cycle between files (type-only imports count too): imports run
 *   one way, as in undici's `client-h1`, which is handed its client.
 * The scan is checked against Deno's own module graph of the program (`deno info`),
 * so an import it misread cannot slip past the rules.
 */
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);

/** Folders that hold no source of ours. */
const SKIP = new Set([
  ".git",
  ".cache",
  "node_modules",
  "data",
  "dist",
  "test_output",
]);

/** Every `.ts` file of the repository, as paths from its root. */
async function sourceFiles(dir = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir || ".", root))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory && !SKIP.has(entry.name)) {
      found.push(...await sourceFiles(`${path}/`));
    } else if (entry.isFile && entry.name.endsWith(".ts")) {
      found.push(path);
    }
  }
  return found.sort();
}

/**
 * Import and re-export specifiers of a module's source. Comments that start a line
 * are removed first (JSDoc examples import too).
 */
function importSpecifiers(source: string): string[] {
  const code = source
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const pattern =
    /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of code.matchAll(pattern)) {
    found.push(match[1] ?? match[2]!);
  }
  return found;
}

/** The repository path a relative specifier of `from` names. */
function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

/** The one name of a test helper: `_test_<what>.ts`, in any folder. */
const TEST_HELPER = /(^|\/)_test_\w+\.ts$/;
const isTest = (path: string) => path.endsWith("_test.ts");
const isTestCode = (path: string) =>
  isTest(path) || TEST_HELPER.test(path) || path.startsWith("bench/");

/** Folder of a unit: `lib`, `drivers/ble`, `services/messages`, ... */
function unitOf(path: string): string {
  const [top, second] = path.split("/");
  if (!path.includes("/")) return path;
  if (top === "drivers" || top === "services" || top === "clients") {
    return `${top}/${second}`;
  }
  return top!;
}

/** Why `from` may not import `to`, or `undefined` when it may. */
function breach(from: string, to: string): string | undefined {
  const source = unitOf(from);
  const target = unitOf(to);
  if (source === target) return undefined;
  const top = source.split("/")[0];
  const targetTop = target.split("/")[0];
  if (isTestCode(from) || top === "scripts") {
    return undefined; // tests, helpers, benchmarks and scripts may use anything
  }
  if (isTestCode(to)) return "production code imports test code";
  switch (top) {
    case "lib":
      return targetTop === "lib" ? undefined : "lib/ imports only lib/";
    case "drivers":
      return targetTop === "lib" ? undefined : "drivers import lib/ only";
    case "services":
      return targetTop === "lib" || targetTop === "drivers"
        ? undefined
        : "services import lib/ and drivers/ only, never each other";
    case "clients":
      return "clients/gzaas imports nothing outside its folder";
    case "program":
    case "main.ts":
      return targetTop === "scripts"
        ? "program code imports scripts/"
        : undefined;
    default:
      return undefined;
  }
}

const files = await sourceFiles();
const imports = new Map<string, string[]>();
// This file's own examples of imports are strings, not imports.
const SELF = "tests/layout_test.ts";
for (const file of files.filter((f) => f !== SELF)) {
  const source = await Deno.readTextFile(new URL(file, root));
  imports.set(
    file,
    importSpecifiers(source)
      .filter((specifier) =>
        specifier.startsWith(".") && /\.tsx?$/.test(specifier)
      )
      .map((specifier) => resolve(file, specifier)),
  );
}

Deno.test("importSpecifiers() finds static, type, re-export and dynamic imports, not comments", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b.ts";',
    'export { c } from "./c.ts";',
    'export * from "./d.ts";',
    'import "./side_effect.ts";',
    'const e = await import("./e.ts");',
    'import {\n  f,\n  type G,\n} from "./f.ts";',
    '// import { x } from "./commented.ts";',
    '/* import { y } from "./block.ts"; */',
    'const url = "http://example.com/path"; // a comment',
  ].join("\n");
  assert.deepEqual(importSpecifiers(source), [
    "./a.ts",
    "../b.ts",
    "./c.ts",
    "./d.ts",
    "./side_effect.ts",
    "./e.ts",
    "./f.ts",
  ]);
});

Deno.test("importSpecifiers() sees every import of Deno's own module graph of the program", async () => {
  const missed: string[] = [];
  for (const entry of ["main.ts", "clients/gzaas/mod.ts", "scripts/docs.ts"]) {
    const { success, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: root,
      stdout: "piped",
      stderr: "null",
    }).output();
    assert.ok(success, `deno info ${entry} failed`);
    const graph = JSON.parse(new TextDecoder().decode(stdout)) as {
      modules: {
        specifier: string;
        dependencies?: {
          code?: { specifier?: string };
          type?: { specifier?: string };
        }[];
      }[];
    };
    const local = (specifier = "") =>
      specifier.startsWith(root.href) && !specifier.includes("/node_modules/")
        ? specifier.slice(root.href.length)
        : undefined;
    for (const module of graph.modules) {
      const file = local(module.specifier);
      if (file === undefined) continue;
      const seen = new Set(imports.get(file) ?? []);
      for (const dependency of module.dependencies ?? []) {
        for (const target of [dependency.code, dependency.type]) {
          const path = local(target?.specifier);
          if (path !== undefined && !seen.has(path)) {
            missed.push(`${file} -> ${path}`);
          }
        }
      }
    }
  }
  assert.deepEqual(missed, [], "imports the layout rules do not see");
});

Deno.test("every relative import names a file of the repository", () => {
  const known = new Set(files);
  const missing = [...imports].flatMap(([file, targets]) =>
    targets.filter((target) => !known.has(target)).map((t) => `${file} -> ${t}`)
  );
  assert.deepEqual(missing, []);
});

Deno.test("imports follow the layout's rules", () => {
  const breaches = [...imports].flatMap(([file, targets]) =>
    targets.flatMap((target) => {
      const why = breach(file, target);
      return why === undefined ? [] : [`${file} -> ${target}: ${why}`];
    })
  );
  assert.deepEqual(breaches, []);
});

Deno.test("a module only tests use is named as a test helper", () => {
  const production = new Set<string>();
  const pending = ["main.ts", "clients/gzaas/mod.ts", "scripts/docs.ts"];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (production.has(file)) continue;
    production.add(file);
    pending.push(...(imports.get(file) ?? []));
  }
  const unnamed = files.filter((file) =>
    !production.has(file) && !isTestCode(file) &&
    !file.startsWith("scripts/")
  );
  assert.deepEqual(unnamed, [], "name them as test helpers, or remove them");
  const helpersInProduction = [...production].filter((file) =>
    TEST_HELPER.test(file)
  );
  assert.deepEqual(
    helpersInProduction,
    [],
    "production code uses test helpers",
  );
});

Deno.test("a suite's name in tests/ is not also a unit test's name", () => {
  const suites = files.filter((f) => f.startsWith("tests/") && isTest(f));
  const units = new Set(
    files.filter((f) => !f.startsWith("tests/") && isTest(f)).map((f) =>
      f.split("/").pop()
    ),
  );
  assert.deepEqual(
    suites.filter((suite) => units.has(suite.split("/").pop())),
    [],
  );
});

Deno.test("breach() names what the rules refuse and lets the rest pass", () => {
  const cases: [string, string, boolean][] = [
    ["lib/http.ts", "lib/log.ts", true],
    ["lib/http.ts", "services/messages/app.ts", false],
    ["lib/http.ts", "drivers/ble/scanner.ts", false],
    ["drivers/ble/beewi.ts", "lib/log.ts", true],
    ["drivers/ble/beewi.ts", "drivers/pressure/chips.ts", false],
    ["services/reader/mod.ts", "drivers/ble/scanner.ts", true],
    ["services/reader/mod.ts", "services/collector/sample.ts", false],
    ["services/reader/mod.ts", "program/cli.ts", false],
    ["services/reader/mod.ts", "lib/_test_memory_log.ts", false],
    ["services/reader/start_reader_test.ts", "lib/_test_memory_log.ts", true],
    ["clients/gzaas/gzaas.ts", "lib/log.ts", false],
    ["program/roles.ts", "services/reader/mod.ts", true],
    ["main.ts", "tests/_test_helpers.ts", false],
    ["tests/messages_test.ts", "services/messages/app.ts", true],
  ];
  for (const [from, to, allowed] of cases) {
    assert.equal(breach(from, to) === undefined, allowed, `${from} -> ${to}`);
  }
});

/**
 * The import cycles of `graph` (file to the files it imports): each strongly
 * connected component of more than one file, or a file importing itself, as its
 * files in order (Tarjan's algorithm).
 */
function importCycles(
  graph: ReadonlyMap<string, readonly string[]>,
): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) {
      cycles.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) {
    if (!index.has(file)) visit(file);
  }
  return cycles;
}

Deno.test("importCycles() finds a cycle, a self-import and nothing in a tree", () => {
  const graph = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts"]],
    ["c.ts", ["a.ts", "d.ts"]],
    ["d.ts", []],
    ["e.ts", ["e.ts"]],
    ["f.ts", ["d.ts"]],
  ]);
  assert.deepEqual(importCycles(graph), [["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
  assert.deepEqual(
    importCycles(new Map([["x.ts", ["y.ts"]], ["y.ts", []]])),
    [],
  );
});

Deno.test("no import cycle between files, type-only imports included", () => {
  assert.deepEqual(
    importCycles(imports),
    [],
    "each list is files that import each other in a ring: make the imports run one way",
  );
});
