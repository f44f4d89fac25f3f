import assert from "node:assert/strict";
import { isPostgresUrl, maskPassword, scrub } from "./_database_url.ts";

Deno.test("maskPassword() replaces the password of a URL with ***", () => {
  assert.equal(
    maskPassword("postgres://app:secret@db:5432/app"),
    "postgres://app:***@db:5432/app",
  );
  assert.equal(
    maskPassword("postgresql://app:p%40ss:w@db/app?sslmode=require"),
    "postgresql://app:***@db/app?sslmode=require",
  );
  assert.equal(maskPassword("postgres://app@db/app"), "postgres://app@db/app");
  assert.equal(maskPassword("./data/m.sqlite3"), "./data/m.sqlite3");
});

Deno.test("scrub() removes the password, encoded or not, from a text", () => {
  const url = "postgres://app:p%40ss@db/app";
  assert.equal(
    scrub("failed for p@ss and p%40ss", url),
    "failed for *** and ***",
  );
  assert.equal(
    scrub("nothing to hide", "postgres://app@db/app"),
    "nothing to hide",
  );
});

Deno.test("isPostgresUrl() takes postgres:// and postgresql:// only", () => {
  assert.ok(isPostgresUrl("postgres://u:p@h/d"));
  assert.ok(isPostgresUrl("PostgreSQL://u@h/d"));
  assert.ok(!isPostgresUrl("file:postgres.db"));
  assert.ok(!isPostgresUrl("./postgres://x"));
  assert.ok(!isPostgresUrl(":memory:"));
});
