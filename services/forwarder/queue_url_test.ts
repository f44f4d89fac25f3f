import assert from "node:assert/strict";
import { queueEndpoint, queueUrlRegion } from "./queue_url.ts";

Deno.test("queueEndpoint()", async (t) => {
  await t.step("prefers QUEUE_ENDPOINT_URL", () => {
    assert.equal(
      queueEndpoint(
        "https://sqs.eu-west-1.amazonaws.com/1/q",
        "eu-west-1",
        "http://h:1",
      ),
      "http://h:1",
    );
  });

  await t.step(
    "leaves the regional endpoint the SDK resolves to the SDK",
    () => {
      assert.equal(
        queueEndpoint("https://sqs.eu-west-1.amazonaws.com/123/q", "eu-west-1"),
        undefined,
      );
      assert.equal(
        queueEndpoint(
          "https://sqs.cn-north-1.amazonaws.com.cn/123/q",
          "cn-north-1",
        ),
        undefined,
      );
    },
  );

  await t.step(
    "uses the origin of an AWS queue URL the SDK does not resolve",
    () => {
      for (
        const [url, origin] of [
          [
            "https://eu-west-1.queue.amazonaws.com/123/q",
            "https://eu-west-1.queue.amazonaws.com",
          ],
          [
            "https://vpce-0a1b2c3d-4e5f6a7b.sqs.eu-west-1.vpce.amazonaws.com/123/q",
            "https://vpce-0a1b2c3d-4e5f6a7b.sqs.eu-west-1.vpce.amazonaws.com",
          ],
          ["https://queue.amazonaws.com/123/q", "https://queue.amazonaws.com"],
          [
            "https://sqs-fips.eu-west-1.amazonaws.com/123/q",
            "https://sqs-fips.eu-west-1.amazonaws.com",
          ],
          [
            "http://sqs.eu-west-1.amazonaws.com/123/q",
            "http://sqs.eu-west-1.amazonaws.com",
          ],
          [
            "https://sqs.eu-west-1.amazonaws.com:8443/123/q",
            "https://sqs.eu-west-1.amazonaws.com:8443",
          ],
        ]
      ) {
        assert.equal(queueEndpoint(url!, "eu-west-1"), origin, String(url));
      }
    },
  );

  await t.step("uses the origin of another server's queue URL", () => {
    assert.equal(
      queueEndpoint("http://127.0.0.1:4566/000000000000/q", "us-east-1"),
      "http://127.0.0.1:4566",
    );
    assert.equal(
      queueEndpoint(
        "http://sqs.us-east-1.localhost:4566/000000000000/q",
        "us-east-1",
      ),
      "http://localhost:4566",
    );
  });
});

Deno.test("queueUrlRegion()", async (t) => {
  await t.step("reads the region of every AWS host form that names one", () => {
    for (
      const url of [
        "https://sqs.eu-west-1.amazonaws.com/123/q",
        "https://sqs-fips.eu-west-1.amazonaws.com/123/q",
        "https://sqs.eu-west-1.api.aws/123/q",
        "https://eu-west-1.queue.amazonaws.com/123/q",
        "https://vpce-0a1b2c3d-4e5f6a7b.sqs.eu-west-1.vpce.amazonaws.com/123/q",
      ]
    ) {
      assert.equal(queueUrlRegion(url), "eu-west-1", url);
    }
    assert.equal(
      queueUrlRegion("https://sqs.cn-north-1.amazonaws.com.cn/123/q"),
      "cn-north-1",
    );
  });

  await t.step("names none for other hosts", () => {
    for (
      const url of [
        "https://queue.amazonaws.com/123/q",
        "http://127.0.0.1:4566/000000000000/q",
        "http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/q",
        "https://sqs.eu-west-1.amazonaws.com.example.org/123/q",
      ]
    ) {
      assert.equal(queueUrlRegion(url), undefined, url);
    }
  });
});
