import assert from "node:assert/strict";
import { EndOfStream } from "../../lib/http1/_byte_reader.ts";
import { InvalidResponseError } from "../../lib/http1/client.ts";
import { failedCallText, isInvalidAnswer } from "./_invalid_answer.ts";

Deno.test("failedCallText() tells an invalid answer from a network failure by type, never by text", () => {
  const invalid = new InvalidResponseError(
    "Invalid header line from the remote: no colon",
  );
  assert.equal(isInvalidAnswer(invalid), true);
  assert.equal(
    failedCallText(invalid),
    "answered with an invalid HTTP response",
  );
  for (
    const error of [
      new Deno.errors.ConnectionRefused("Connection refused (os error 111)"),
      new EndOfStream(0),
    ]
  ) {
    assert.equal(isInvalidAnswer(error), false);
    assert.equal(failedCallText(error), "is unreachable");
  }
  // fetch's failures: one type whatever happened, and the text is not read.
  for (
    const reason of ["invalid HTTP header parsed", "tcp connect error"]
  ) {
    const error = new TypeError("fetch failed", { cause: new Error(reason) });
    assert.equal(isInvalidAnswer(error), false);
    assert.equal(
      failedCallText(error),
      "is unreachable or answered with an invalid HTTP response",
    );
  }
});
