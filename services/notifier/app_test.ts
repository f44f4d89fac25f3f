import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createNotifierApp } from "./app.ts";
import { createRegistry } from "../../lib/metrics/registry.ts";
import type { Delivery } from "./deliver.ts";
import type { Notify, NotifyOutcome } from "./notify.ts";
import type { Message } from "./targets/mod.ts";

/** A notify recording the messages it is given and responding `reply`. */
function fakeNotify(reply: (message: Message) => NotifyOutcome) {
  const notes: { title: string; body: string }[] = [];
  const calls: { message: Message; tag?: string }[] = [];
  const notify: Notify = (message, tag) => {
    notes.push({ title: message.title, body: message.body });
    calls.push({ message, tag });
    return Promise.resolve(reply(message));
  };
  return { notify, notes, calls };
}

function pushReply(body: unknown): NotifyOutcome {
  return {
    kind: "sent",
    deliveries: [{
      target: "pbul://****",
      ok: true,
      status: 200,
      reply: JSON.stringify(body),
    }],
  };
}

Deno.test("createNotifierApp()", async (t) => {
  let reply: (message: Message) => NotifyOutcome = (message) =>
    pushReply({
      iden: "p1",
      type: "note",
      title: message.title,
      body: message.body,
    });
  const { notify, notes } = fakeNotify((message) => reply(message));
  const log = createMemoryLog();
  const app = createNotifierApp({
    notify,
    pushbulletReply: true,
    log,
    maxTitleLength: 10,
    maxBodyLength: 20,
  });

  await t.step("GET / returns the usage text", async () => {
    const response = await app.request("/");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await response.text(), "Usage: GET /note/{title}/{body}");
  });

  await t.step("GET /healthz returns ok", async () => {
    const response = await app.request("/healthz");
    assert.deepEqual(await response.json(), { status: "ok" });
  });

  await t.step(
    "GET /note/{title}/{body} sends the decoded note and returns the reply",
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
    "malformed percent-encoding returns 400 and sends nothing",
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

  await t.step("a title or body past its limit returns 400", async () => {
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

  await t.step("other note paths return 404", async () => {
    for (
      const path of ["/note", "/note/", "/note/a", "/note/a/b/c", "/note/a/b/"]
    ) {
      const response = await app.request(path);
      assert.equal(response.status, 404, path);
      await response.body?.cancel();
    }
  });

  await t.step("other methods return 405 and send nothing", async () => {
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
    "a push API failure returns 502 with its message",
    async () => {
      reply = () => ({
        kind: "sent",
        deliveries: [{
          target: "pbul://****",
          ok: false,
          status: 401,
          error: "Push API returned HTTP 401: Invalid token",
        }],
      });
      const response = await app.request("/note/Door/Opened");
      assert.equal(response.status, 502);
      assert.deepEqual(await response.json(), {
        message: "Push API returned HTTP 401: Invalid token",
      });
    },
  );

  await t.step("a push API reply that is not JSON returns 502", async () => {
    reply = () => ({
      kind: "sent",
      deliveries: [{
        target: "pbul://****",
        ok: true,
        status: 200,
        reply: "<html>",
      }],
    });
    const response = await app.request("/note/Door/Opened");
    assert.equal(response.status, 502);
    assert.deepEqual(await response.json(), {
      message: "Push API returned HTTP 200 with invalid JSON",
    });
  });

  await t.step("an unexpected error returns a logged 500", async () => {
    reply = () => {
      throw new Error("bug");
    };
    const response = await app.request("/note/Door/Opened");
    assert.equal(response.status, 500);
    assert.equal(log.at("ERROR").length, 1);
  });
});

const OK: Delivery = { target: "ntfy://h/a", ok: true, status: 200 };
const DOWN: Delivery = {
  target: "gotify://h/****",
  ok: false,
  status: null,
  error: "Gotify unreachable: Connection refused",
};

Deno.test("createNotifierApp() with several targets", async (t) => {
  let outcome: NotifyOutcome = { kind: "sent", deliveries: [OK, OK] };
  const { notify, calls } = fakeNotify(() => outcome);
  const app = createNotifierApp({
    notify,
    pushbulletReply: false,
    log: createMemoryLog(),
  });
  const post = (body: BodyInit, type = "application/json") =>
    app.request("/notify", {
      method: "POST",
      headers: { "content-type": type },
      body,
    });

  await t.step("GET /note returns the results", async () => {
    const response = await app.request("/note/T/B");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      results: [
        { target: "ntfy://h/a", ok: true, status: 200 },
        { target: "ntfy://h/a", ok: true, status: 200 },
      ],
    });
    assert.deepEqual(calls.at(-1), {
      message: { title: "T", body: "B", type: "info" },
      tag: undefined,
    });
  });

  await t.step("a failed target returns 502 with the same body", async () => {
    outcome = { kind: "sent", deliveries: [OK, DOWN] };
    const response = await post(JSON.stringify({ body: "B" }));
    assert.equal(response.status, 502);
    assert.deepEqual(await response.json(), {
      results: [
        { target: "ntfy://h/a", ok: true, status: 200 },
        {
          target: "gotify://h/****",
          ok: false,
          status: null,
          error: "Gotify unreachable: Connection refused",
        },
      ],
    });
    outcome = { kind: "sent", deliveries: [OK] };
  });

  await t.step("POST /notify reads JSON and form payloads", async () => {
    const json = await post(
      JSON.stringify({ title: "T", body: "B", type: "Failure", tag: "home" }),
    );
    assert.equal(json.status, 200);
    await json.body?.cancel();
    assert.deepEqual(calls.at(-1), {
      message: { title: "T", body: "B", type: "failure" },
      tag: "home",
    });
    const form = await post(
      "body=Hello+world&title=Hi&type=warning&tag=a%2Cb",
      "application/x-www-form-urlencoded",
    );
    assert.equal(form.status, 200);
    await form.body?.cancel();
    assert.deepEqual(calls.at(-1), {
      message: { title: "Hi", body: "Hello world", type: "warning" },
      tag: "a,b",
    });
    const data = new FormData();
    data.set("body", "multi");
    const multipart = await app.request("/notify/", {
      method: "POST",
      body: data,
    });
    assert.equal(multipart.status, 200);
    await multipart.body?.cancel();
    assert.equal(calls.at(-1)!.message.body, "multi");
  });

  await t.step(
    "POST /notify refuses urls with 403, sending nothing",
    async () => {
      const count = calls.length;
      for (
        const response of [
          await post(JSON.stringify({ body: "B", urls: "json://evil.test" })),
          await post("body=B&urls=", "application/x-www-form-urlencoded"),
        ]
      ) {
        assert.equal(response.status, 403);
        assert.match((await response.json()).message, /urls field is refused/);
      }
      assert.equal(calls.length, count);
    },
  );

  await t.step("POST /notify returns 400 for a bad payload", async () => {
    const count = calls.length;
    for (
      const [body, message] of [
        ["{}", /^Missing body/],
        ['{"body": "  "}', /^Missing body/],
        ['{"body": 5}', /^Invalid body: expected a string/],
        ['{"body": "b", "type": "panic"}', /^Invalid type "panic"/],
        ["[1]", /expected a JSON object/],
        ["{not json", /expected a JSON object or form fields/],
        [JSON.stringify({ body: "x".repeat(4097) }), /the limit is 4096/],
      ] as const
    ) {
      const response = await post(body);
      assert.equal(response.status, 400, body);
      assert.match((await response.json()).message, message);
    }
    // curl -d '{...}' sends JSON as a form: the response says what to do.
    const jsonForm = await post(
      '{"body": "b"}',
      "application/x-www-form-urlencoded",
    );
    assert.equal(jsonForm.status, 400);
    assert.match(
      (await jsonForm.json()).message,
      /JSON sent as form data: send it with Content-Type: application\/json/,
    );
    const text = await post("body", "text/plain");
    assert.equal(text.status, 415);
    await text.body?.cancel();
    assert.equal(calls.length, count);
  });

  await t.step("POST /notify returns 413 for a huge body", async () => {
    const response = await post(JSON.stringify({ body: "x".repeat(70_000) }));
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });

  await t.step("GET /notify returns 405", async () => {
    const response = await app.request("/notify");
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "POST");
    await response.body?.cancel();
  });

  await t.step("a repeat returns deduplicated", async () => {
    outcome = { kind: "deduplicated" };
    const response = await app.request("/note/T/B");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { deduplicated: true });
  });

  await t.step("a tag no target has returns 424", async () => {
    outcome = { kind: "no-target" };
    const response = await post(JSON.stringify({ body: "B", tag: "garage" }));
    assert.equal(response.status, 424);
    assert.deepEqual(await response.json(), {
      message: 'No target has the tag "garage"',
    });
  });
});

Deno.test("createNotifierApp() with a token", async (t) => {
  const { notify, calls } = fakeNotify(() => ({
    kind: "sent",
    deliveries: [OK],
  }));
  const app = createNotifierApp({
    notify,
    pushbulletReply: false,
    token: "s3cret-T0ken",
    log: createMemoryLog(),
  });

  await t.step("sends need Authorization: Bearer", async () => {
    for (
      const [path, init] of [
        ["/note/a/b", {}],
        ["/notify", { method: "POST", body: '{"body":"b"}' }],
        ["/notify/", { method: "POST", body: '{"body":"b"}' }],
      ] as const
    ) {
      for (
        const authorization of [undefined, "Bearer wrong", "Basic s3cret-T0ken"]
      ) {
        const response = await app.request(path, {
          ...init,
          headers: authorization ? { authorization } : {},
        });
        assert.equal(response.status, 401, `${path} ${authorization}`);
        assert.equal(response.headers.get("www-authenticate"), "Bearer");
        const body = await response.json();
        assert.equal(typeof body.message, "string");
        assert.ok(!JSON.stringify(body).includes("s3cret"));
      }
    }
    assert.equal(calls.length, 0);
    const ok = await app.request("/note/a/b", {
      headers: { authorization: "Bearer s3cret-T0ken" },
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    assert.equal(calls.length, 1);
  });

  await t.step("GET / and /healthz stay open", async () => {
    assert.equal((await app.request("/")).status, 200);
    assert.equal((await app.request("/healthz")).status, 200);
  });
});

Deno.test("createNotifierApp() responds to /readyz and counts requests by route when given metrics", async () => {
  const registry = createRegistry();
  const { notify } = fakeNotify(() => ({ kind: "deduplicated" }));
  const app = createNotifierApp({
    notify,
    pushbulletReply: false,
    log: createMemoryLog(),
    metrics: registry.with({ role: "notifier" }),
  });
  assert.equal((await app.request("/readyz")).status, 200);
  await (await app.request("/note/a/b")).body?.cancel();
  assert.match(
    await registry.render(),
    /^homewire_http_requests_total\{role="notifier",route="\/note\/\*",method="GET",status_class="2xx"\} 1$/m,
  );
});
