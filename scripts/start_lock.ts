/**
 * `deno task lock`: writes `deno.start.lock`, the lockfile of `deno task start`,
 * from `deno.lock`: the same versions, but only the npm packages the program
 * (`main.ts` and the roles it can load) imports, so a first start fetches those
 * and not the test and benchmark packages. Run it after changing the imports of
 * `deno.json` or of the program; `tests/start_lock_test.ts` fails until it has run.
 *
 * @module
 */

/** The parts of a version 5 lockfile this script reads and writes. */
export interface Lockfile {
  version: string;
  specifiers: Record<string, string>;
  npm: Record<
    string,
    {
      dependencies?: string[];
      optionalDependencies?: string[];
    } & Record<string, unknown>
  >;
  workspace?: unknown;
  [key: string]: unknown;
}

/** The npm packages (`name@version`) the program's module graph imports directly. */
export async function programPackages(root: URL): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--node-modules-dir=none", "main.ts"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno info main.ts failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { kind?: string; npmPackage?: string }[];
  };
  return [
    ...new Set(
      info.modules.flatMap((m) =>
        m.kind === "npm" && m.npmPackage ? [m.npmPackage] : []
      ),
    ),
  ].sort();
}

/**
 * The lockfile of `lock` cut down to `roots` and the packages they depend on.
 *
 * @example
 * ```ts
 * const lock: Lockfile = {
 *   version: "5",
 *   specifiers: { "npm:a@1.0.0": "1.0.0", "npm:b@2.0.0": "2.0.0" },
 *   npm: { "a@1.0.0": { dependencies: [] }, "b@2.0.0": { dependencies: [] } },
 * };
 * startLock(lock, ["a@1.0.0"]); // only a's specifier and package are left
 * ```
 */
export function startLock(lock: Lockfile, roots: readonly string[]): Lockfile {
  // A dependency is written `name` when the lockfile holds one version of it.
  const byName = new Map<string, string[]>();
  for (const key of Object.keys(lock.npm)) {
    const name = key.replace(/^(@?[^@]+)@.*$/, "$1");
    byName.set(name, [...(byName.get(name) ?? []), key]);
  }
  const keyOf = (dependency: string) => {
    if (lock.npm[dependency] !== undefined) return dependency;
    const only = byName.get(dependency);
    if (only?.length === 1) return only[0]!;
    throw new Error(
      `${dependency} is not in deno.lock: run \`deno install\` first`,
    );
  };
  const kept = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const key = keyOf(pending.pop()!);
    if (kept.has(key)) continue;
    kept.add(key);
    const entry = lock.npm[key]!;
    pending.push(
      ...(entry.dependencies ?? []),
      ...(entry.optionalDependencies ?? []),
    );
  }
  const names = new Set(
    [...kept].map((key) => key.replace(/_.*$/, "")),
  );
  const specifiers = Object.fromEntries(
    Object.entries(lock.specifiers).filter(([specifier, version]) => {
      const name = specifier.replace(/^npm:/, "").replace(/@[^@]*$/, "");
      return names.has(`${name}@${version}`);
    }),
  );
  const npm = Object.fromEntries(
    Object.entries(lock.npm).filter(([key]) => kept.has(key)),
  );
  return { ...lock, specifiers, npm };
}

/** The text `deno.start.lock` should hold, from `deno.lock` and the program's graph. */
export async function expectedStartLock(root: URL): Promise<string> {
  const lock = JSON.parse(
    await Deno.readTextFile(new URL("deno.lock", root)),
  ) as Lockfile;
  return `${
    JSON.stringify(startLock(lock, await programPackages(root)), null, 2)
  }\n`;
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  await Deno.writeTextFile(
    new URL("deno.start.lock", root),
    await expectedStartLock(root),
  );
}
