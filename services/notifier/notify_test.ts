import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createDedupe } from "./dedupe.ts";
import type { Delivery } from "./deliver.ts";
import { createNotify, matchesTag } from "./notify.ts";
import { parseTargetUrl } from "./targets/mod.ts";
import { createRegistry } from "../../lib/metrics/registry.ts";
import { notifierMetrics } from "./notifier_metrics.ts";

Deno.test("matchesTag() reads commas as or, blanks as and, all as anything", () => {
  const tags = new Set(["home", "door"]);
  assert.equal(matchesTag(tags), true);
  assert.equal(matchesTag(tags, " "), true);
  assert.equal(matchesTag(tags, "home"), true);
  assert.equal(matchesTag(tags, "HOME"), true);
  assert.equal(matchesTag(tags, "garage, door"), true);
  assert.equal(matchesTag(tags, "home door"), true);
  assert.equal(matchesTag(tags, "home+door"), true);
  assert.equal(matchesTag(tags, "home garage"), false);
  assert.equal(matchesTag(tags, "garage"), false);
  assert.equal(matchesTag(new Set(), "garage"), false);
  assert.equal(matchesTag(new Set(), "all"), true);
});

Deno.test("createNotify()", async (t) => {
  const log = createMemoryLog();
  const sent: string[] = [];
  let failing = "";
  const notify = createNotify({
    targets: [
      { target: parseTargetUrl("ntfy://h/a"), tags: new Set(["home"]) },
      { target: parseTargetUrl("ntfy://h/b"), tags: new Set(["work"]) },
    ],
    deliver: (target, message): Promise<Delivery> => {
      sent.push(`${target.display} ${message.body}`);
      return Promise.resolve(
        target.display === failing
          ? {
            target: target.display,
            ok: false,
            status: 500,
            error: "ntfy returned HTTP 500",
          }
          : { target: target.display, ok: true, status: 200 },
      );
    },
    dedupe: createDedupe(60_000),
    log,
  });
  const message = { title: "T", body: "B", type: "info" } as const;

  await t.step("sends to the tagged targets only", async () => {
    const outcome = await notify(message, "home");
    assert.equal(outcome.kind, "sent");
    assert.deepEqual(sent, ["ntfy://h/a B"]);
    assert.deepEqual(log.at("INFO"), ['Sent note "T" to ntfy://h/a']);
  });
  await t.step("a repeat within the window is not sent", async () => {
    assert.deepEqual(await notify(message, "home"), { kind: "deduplicated" });
    assert.equal(sent.length, 1);
    assert.equal(
      log.at("INFO").at(-1)!,
      'Not sending note "T" again to ntfy://h/a: the same note was sent within NOTIFIER_DEDUPE_MS',
    );
  });
  await t.step(
    "a repeat to more targets goes only to those it has not reached",
    async () => {
      const outcome = await notify(message);
      assert.equal(outcome.kind, "sent");
      assert.deepEqual(sent, ["ntfy://h/a B", "ntfy://h/b B"]);
      assert.deepEqual(await notify(message), { kind: "deduplicated" });
      assert.equal(sent.length, 2);
    },
  );
  await t.step("another type is another message", async () => {
    await notify({ ...message, type: "failure" });
    assert.equal(sent.length, 4);
  });
  await t.step("no target with the tag: nothing sent", async () => {
    assert.deepEqual(await notify({ ...message, body: "x" }, "garage"), {
      kind: "no-target",
    });
  });
  await t.step(
    "a failure is logged at WARNING and the retry reaches the failed target",
    async () => {
      failing = "ntfy://h/b";
      const failed = { ...message, body: "fails" };
      await notify(failed);
      assert.deepEqual(log.at("WARNING"), [
        'Cannot send note "T": ntfy returned HTTP 500 (ntfy://h/b)',
      ]);
      const before = sent.length;
      const again = await notify(failed);
      assert.equal(again.kind, "sent");
      // Only the target that failed gets the retry.
      assert.deepEqual(sent.slice(before), ["ntfy://h/b fails"]);
    },
  );
});

Deno.test("createNotify() forgets a message whose sending threw, so a retry goes through", async () => {
  let calls = 0;
  const notify = createNotify({
    targets: [{ target: parseTargetUrl("ntfy://h/a"), tags: new Set() }],
    deliver: (target) => {
      calls++;
      return calls === 1
        ? Promise.reject(new Error("unexpected"))
        : Promise.resolve({ target: target.display, ok: true, status: 200 });
    },
    dedupe: createDedupe(60_000),
    log: createMemoryLog(),
  });
  const message = { title: "T", body: "B", type: "info" } as const;
  await assert.rejects(notify(message), /unexpected/);
  assert.equal((await notify(message)).kind, "sent");
});

Deno.test("createNotify() sends a message again to targets it has not reached", async () => {
  const sent: string[] = [];
  const notify = createNotify({
    targets: [
      { target: parseTargetUrl("ntfy://h/a"), tags: new Set(["home"]) },
      { target: parseTargetUrl("ntfy://h/b"), tags: new Set(["work"]) },
    ],
    deliver: (target) => {
      sent.push(target.display);
      return Promise.resolve({ target: target.display, ok: true, status: 200 });
    },
    dedupe: createDedupe(60_000),
    log: createMemoryLog(),
  });
  const message = { title: "T", body: "B", type: "info" } as const;
  assert.equal((await notify(message, "home")).kind, "sent");
  assert.equal((await notify(message, "work")).kind, "sent");
  assert.equal((await notify(message, "home")).kind, "deduplicated");
  assert.equal((await notify(message, "HOME")).kind, "deduplicated");
  assert.deepEqual(sent, ["ntfy://h/a", "ntfy://h/b"]);
});

Deno.test("createNotify() names a note without a title by its body in the log", async () => {
  const log = createMemoryLog();
  const notify = createNotify({
    targets: [{ target: parseTargetUrl("ntfy://h/a"), tags: new Set() }],
    deliver: (target) =>
      Promise.resolve({ target: target.display, ok: true, status: 200 }),
    dedupe: createDedupe(0),
    log,
  });
  await notify({ title: "", body: "Disk full", type: "warning" });
  assert.deepEqual(log.at("INFO"), ['Sent note "Disk full" to ntfy://h/a']);
});

Deno.test("createNotify() counts notes by scheme and outcome, and repeats", async () => {
  const registry = createRegistry();
  const targets = ["ntfy://h/a", "gotify://h/T"].map((url) => ({
    target: parseTargetUrl(url),
    tags: new Set<string>(),
  }));
  const notify = createNotify({
    targets,
    deliver: (target) =>
      Promise.resolve({
        target: target.display,
        ok: target.scheme === "ntfy",
        status: target.scheme === "ntfy" ? 200 : 500,
        ...(target.scheme === "ntfy" ? {} : { error: "down" }),
      }),
    dedupe: createDedupe(60_000),
    log: createMemoryLog(),
    metrics: notifierMetrics(registry),
  });
  const message = { title: "t", body: "b", type: "info" } as const;
  await notify(message);
  await notify(message);
  const text = await registry.render();
  assert.match(
    text,
    /^homewire_notifier_notes_total\{scheme="ntfy",outcome="sent"\} 1$/m,
  );
  assert.match(
    text,
    /^homewire_notifier_notes_total\{scheme="gotify",outcome="failed"\} 2$/m,
  );
  assert.match(text, /^homewire_notifier_deduplicated_total 1$/m);
});
