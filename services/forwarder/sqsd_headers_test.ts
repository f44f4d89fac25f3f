import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createSqsdHeaders } from "./sqsd_headers.ts";
import type { QueueMessage } from "./sqs_queue.ts";

const MESSAGE: QueueMessage = {
  id: "5fea7756-0ea4-451a-a703-a558b933e274",
  body: "{}",
  receiptHandle: "r",
  systemAttributes: {
    ApproximateFirstReceiveTimestamp: "1764086401234",
    ApproximateReceiveCount: "2",
    SenderId: "AIDAIENQZJOLO23YVJ4VO",
    SentTimestamp: "1764086400999",
  },
  messageAttributes: {
    kind: { dataType: "String", stringValue: "order created" },
    count: { dataType: "Number", stringValue: "42" },
    cents: { dataType: "Number.int", stringValue: "-7" },
    blob: { dataType: "Binary" },
    note: { dataType: "String", stringValue: "café" },
    evil: { dataType: "String", stringValue: "a\r\nX-Injected: 1" },
    "bad name": { dataType: "String", stringValue: "x" },
    empty: { dataType: "String", stringValue: "" },
  },
};

Deno.test("createSqsdHeaders()", async (t) => {
  await t.step("gives the worker daemon's headers and the attributes", () => {
    const log = createMemoryLog();
    const headers = createSqsdHeaders({ queueName: "jobs", log })(MESSAGE);
    assert.deepEqual(headers, [
      ["X-Aws-Sqsd-Msgid", MESSAGE.id],
      ["X-Aws-Sqsd-Queue", "jobs"],
      ["X-Aws-Sqsd-First-Received-At", "2025-11-25T16:00:01Z"],
      ["X-Aws-Sqsd-Sent-At", "2025-11-25T16:00:00Z"],
      ["X-Aws-Sqsd-Receive-Count", "2"],
      ["X-Aws-Sqsd-Sender-Id", "AIDAIENQZJOLO23YVJ4VO"],
      ["X-Aws-Sqsd-Attr-kind", "order created"],
      ["X-Aws-Sqsd-Attr-count", "42"],
      ["X-Aws-Sqsd-Attr-cents", "-7"],
      ["X-Aws-Sqsd-Attr-empty", ""],
    ]);
    assert.deepEqual(log.at("DEBUG"), [
      `Message attribute "blob" of message ${MESSAGE.id} is Binary: not sent as a header`,
    ]);
    const warnings = log.at("WARNING");
    assert.equal(warnings.length, 3);
    for (const name of ["note", "evil", "bad name"]) {
      assert.ok(
        warnings.some((w) => w.startsWith(`Message attribute "${name}" `)),
        name,
      );
    }
    assert.ok(
      warnings.every((w) => !/café|Injected/.test(w)),
      "no value logged",
    );
  });

  await t.step("leaves out what the queue did not give", () => {
    const headers = createSqsdHeaders({
      queueName: "q",
      log: createMemoryLog(),
    })({ id: "m", body: "", receiptHandle: "r" });
    assert.deepEqual(headers, [
      ["X-Aws-Sqsd-Msgid", "m"],
      ["X-Aws-Sqsd-Queue", "q"],
    ]);
  });
});
