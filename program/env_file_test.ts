import assert from "node:assert/strict";
import { join } from "node:path";
import { EnvFileError, findEnvFile, loadEnv } from "./env_file.ts";

Deno.test("loadEnv()", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "homewire-env-" });
  const nested = join(root, "a", "b");
  await Deno.mkdir(nested, { recursive: true });
  await Deno.writeTextFile(
    join(root, ".env"),
    "A=from-file\nB='quoted value'\n# comment\nC=file\n",
  );

  await t.step("findEnvFile() walks up to the nearest .env", () => {
    assert.equal(findEnvFile(nested), join(root, ".env"));
  });

  await t.step("the environment wins over the file", () => {
    const { env, file } = loadEnv({ env: { C: "process" }, cwd: nested });
    assert.equal(file, join(root, ".env"));
    assert.equal(env.A, "from-file");
    assert.equal(env.B, "quoted value");
    assert.equal(env.C, "process");
  });

  await t.step("a nearer .env hides a farther one", async () => {
    await Deno.writeTextFile(join(root, "a", ".env"), "A=nearer\n");
    const { env } = loadEnv({ env: {}, cwd: nested });
    assert.equal(env.A, "nearer");
    assert.equal(env.B, undefined);
  });

  await t.step("a byte order mark does not hide the first variable", () => {
    const { env } = loadEnv({
      env: {},
      cwd: nested,
      readTextFile: () => "\uFEFFA=first\nB=${A}\n",
    });
    assert.equal(env.A, "first");
    assert.equal(env.B, "${A}"); // taken as written
  });

  await t.step("--env-file replaces the search", async () => {
    const other = join(root, "custom.env");
    await Deno.writeTextFile(other, "A=custom\n");
    const { env } = loadEnv({ env: {}, cwd: nested, path: other });
    assert.equal(env.A, "custom");
  });

  await t.step("a missing --env-file is an error naming the path", () => {
    assert.throws(
      () => loadEnv({ env: {}, cwd: nested, path: join(root, "nope.env") }),
      (error: unknown) =>
        error instanceof EnvFileError && error.message.includes("nope.env"),
    );
  });

  await t.step("a .env found but unreadable is an error, not ignored", () => {
    assert.throws(
      () =>
        loadEnv({
          env: {},
          cwd: nested,
          readTextFile: () => {
            throw new Deno.errors.PermissionDenied("Permission denied");
          },
        }),
      (error: unknown) =>
        error instanceof EnvFileError &&
        error.message ===
          `Cannot read env file "${
            join(root, "a", ".env")
          }": Permission denied: make it readable, or name another file with --env-file`,
    );
  });

  await Deno.remove(root, { recursive: true });
});
