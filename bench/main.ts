/**
 * `deno task bench ROLE...`: runs the benchmarks of the named roles (all when none).
 *
 * Each `bench/<role>.ts` exports `run(): Promise<void>` printing its comparison lines.
 *
 * Layout: benchmarks may import anything; nothing imports them.
 *
 * @module
 */
const BENCHES = [
  "forwarder",
  "messages",
  "proxy",
  "data-api",
  "pi-memory",
  "soak",
];

const names = Deno.args.length > 0 ? Deno.args : BENCHES;
for (const name of names) {
  if (!BENCHES.includes(name)) {
    console.error(
      `Unknown benchmark "${name}": expected one of ${BENCHES.join(", ")}`,
    );
    Deno.exit(2);
  }
}
for (const name of names) {
  console.log(`# ${name}`);
  const module = await import(`./${name.replace("-", "_")}.ts`);
  await module.run();
}
