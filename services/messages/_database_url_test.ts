import assert from "node:assert/strict";
import {
  databaseProblem,
  isPostgresUrl,
  maskPassword,
  scrub,
} from "./_database_url.ts";

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

Deno.test("maskPassword() hides a password holding an unescaped ?, # or /", () => {
  for (const password of ["se?cret", "se#cret", "se/cret", "p@ss?w/rd"]) {
    const masked = maskPassword(`postgres://app:${password}@db:5432/app`);
    assert.equal(masked, "postgres://app:***@db:5432/app", masked);
  }
  const withAt = maskPassword("postgres://app:se?cret@db/app?x=a@b");
  assert.ok(!withAt.includes("se?cret") && !withAt.includes("cret"), withAt);
});

Deno.test("scrub() hides a URL the driver names whole, whatever its password holds", () => {
  const url = "postgres://app:se?cret@db:5432/app";
  const text = scrub(`Invalid URL: '${url}'`, url);
  assert.ok(!text.includes("cret"), text);
  assert.equal(text, "Invalid URL: 'postgres://app:***@db:5432/app'");
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

Deno.test("databaseProblem() refuses a URL of another scheme, its password masked", () => {
  for (
    const value of [
      "postgress://app:secret@db/app",
      "mysql://app:secret@db/app",
      "sqlite:///var/m.db",
      "PG://app:secret@db/app",
    ]
  ) {
    const problem = databaseProblem(value) ?? "";
    assert.ok(problem.startsWith("Invalid MESSAGES_DB"), value);
    assert.ok(!problem.includes("secret"), problem);
  }
  assert.match(
    databaseProblem("mysql://a:secret@db/x")!,
    /"mysql:\/\/a:\*\*\*@db\/x".*not a mysql:\/\/ URL/,
  );
  for (
    const value of [
      "./data/messages.sqlite3",
      ":memory:",
      "file:m.db?mode=rwc",
      "file:///tmp/m.db",
      "postgres://a:b@db/x",
      "POSTGRESQL://db/x",
      "C://data/m.db",
      "/srv/a://b.db",
    ]
  ) {
    assert.equal(databaseProblem(value), undefined, value);
  }
});

Deno.test("databaseProblem() refuses a PostgreSQL URL that does not parse, its password masked", () => {
  for (
    const value of [
      "postgres://app:secret@[::1/app",
      "postgresql://app:secret@db:port/app",
    ]
  ) {
    const problem = databaseProblem(value) ?? "";
    assert.match(problem, /^Invalid MESSAGES_DB ".*": not a URL/, value);
    assert.ok(!problem.includes("secret"), problem);
  }
  for (
    const value of [
      "postgres://app:secret@[::1]:5432/app",
      "postgres://app@h1,h2/app",
      "postgres://app:secret@h1:5432,h2:5433/app",
      "postgres://app:secret@h1:5432,[::1]:5433",
      "postgres://app:p%40ss@db/app?sslmode=disable",
    ]
  ) {
    assert.equal(databaseProblem(value), undefined, value);
  }
});
