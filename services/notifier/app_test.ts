import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/testing.ts";
import { createNotifierApp } from "./app.ts";
import type { PushClient, PushNote } from "./push_client.ts";
import { PushError } from "./push_error.ts";

/** A push client recording the notes it is given and answering `reply`. */
function fakePush(reply: (note: PushNote) => Promise<unknown>) {
  const notes: PushNote[] = [];
  const push: PushClient = {
    sendNote(note) {
      notes.push(note);
      return reply(note);
    },
  };
  return { push, notes };
}

Deno.test("createNotifierApp()", async (t) => {
  let reply: (note: PushNote) => Promise<unknown> = (note) =>
    Promise.resolve({ iden: "p1", type: "note", ...note });
  const { push, notes } = fakePush((note) => reply(note));
  const log = createMemoryLog();
  const app = createNotifierApp({
    push,
    log,
    maxTitleLength: 10,
    maxBodyLength: 20,
  });

  await t.step("GET / answers the usage text", async () => {
    const response = await app.request("/");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await response.text(), "Usage: GET /note/{title}/{body}");
  });

  await t.step("GET /healthz answers ok", async () => {
    const response = await app.request("/healthz");
    assert.deepEqual(await response.json(), { status: "ok" });
  });

  await t.step(
    "GET /note/{title}/{body} sends the decoded note and answers the reply",
    async () => {
      const response = await app.request("/note/Door%20%E2%9C%93/a%2Fb+c%25");
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        iden: "p1",
        type: "note",
        title: "Door ✓",
        body: "a/b+c%",
      });
      assert.deepEqual(notes.at(-1), { title: "Door ✓", body: "a/b+c%" });
      assert.deepEqual(log.at("INFO"), ['Sent note "Door ✓"']);
    },
  );

  await t.step("an empty title or body is allowed, not both", async () => {
    const count = notes.length;
    assert.equal((await app.request("/note//body")).status, 200);
    assert.equal((await app.request("/note/title/")).status, 200);
    const response = await app.request("/note//");
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      message: "Empty note: give a title or a body",
    });
    const blank = await app.request("/note/%20/%09");
    assert.equal(blank.status, 400);
    await blank.body?.cancel();
    assert.equal(notes.length, count + 2);
  });

  await t.step(
    "malformed percent-encoding answers 400 and sends nothing",
    async () => {
      const count = notes.length;
      for (
        const path of ["/note/%E0%A4%A/body", "/note/title/100%", "/note/%zz/b"]
      ) {
        const response = await app.request(path);
        assert.equal(response.status, 400, path);
        assert.match(
          (await response.json()).message,
          /malformed percent-encoding/,
        );
      }
      assert.equal(notes.length, count);
    },
  );

  await t.step("a title or body past its limit answers 400", async () => {
    const count = notes.length;
    const title = await app.request(`/note/${"t".repeat(11)}/body`);
    assert.equal(title.status, 400);
    assert.deepEqual(await title.json(), {
      message: "Invalid title: 11 characters, the limit is 10",
    });
    const body = await app.request(`/note/title/${"%C3%A9".repeat(21)}`);
    assert.equal(body.status, 400);
    assert.deepEqual(await body.json(), {
      message: "Invalid body: 21 characters, the limit is 20",
    });
    assert.equal((await app.request(`/note/${"é".repeat(10)}/b`)).status, 200);
    assert.equal(notes.length, count + 1);
  });

  await t.step("other note paths answer 404", async () => {
    for (
      const path of ["/note", "/note/", "/note/a", "/note/a/b/c", "/note/a/b/"]
    ) {
      const response = await app.request(path);
      assert.equal(response.status, 404, path);
      await response.body?.cancel();
    }
  });

  await t.step("other methods answer 405 and send nothing", async () => {
    const count = notes.length;
    for (const method of ["POST", "PUT", "DELETE", "HEAD"]) {
      const response = await app.request("/note/a/b", { method });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get("allow"), "GET");
      await response.body?.cancel();
    }
    assert.equal(notes.length, count);
  });

  await t.step(
    "a push API failure answers 502 with its status and logs a warning",
    async () => {
      reply = () =>
        Promise.reject(
          new PushError("http", "Push API answered HTTP 401: Invalid token", {
            status: 401,
          }),
        );
      const response = await app.request("/note/Door/Opened");
      assert.equal(response.status, 502);
      assert.deepEqual(await response.json(), {
        message: "Push API answered HTTP 401: Invalid token",
      });
      assert.deepEqual(log.at("WARNING"), [
        'Cannot send note "Door": Push API answered HTTP 401: Invalid token',
      ]);
    },
  );

  await t.step("an unexpected error answers a logged 500", async () => {
    reply = () => Promise.reject(new Error("bug"));
    const response = await app.request("/note/Door/Opened");
    assert.equal(response.status, 500);
    assert.equal(log.at("ERROR").length, 1);
  });
});
