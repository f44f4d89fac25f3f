import assert from "node:assert/strict";
import {
  ConnectionClosedError,
  InvalidHeaderError,
  InvalidRequestError,
  SocketError,
} from "../../lib/http1/errors.ts";
import { failedCallText, isInvalidAnswer } from "./_invalid_answer.ts";

Deno.test("failedCallText() tells an invalid answer from a network failure by type, never by text", () => {
  const invalid = new InvalidHeaderError(
    "Invalid header line from the remote: no colon",
  );
  assert.equal(isInvalidAnswer(invalid), true);
  assert.equal(
    failedCallText(invalid),
    "answered with an invalid HTTP response",
  );
  for (
    const error of [
      new SocketError(
        new Deno.errors.ConnectionRefused("Connection refused (os error 111)"),
      ),
      new ConnectionClosedError(0),
    ]
  ) {
    assert.equal(isInvalidAnswer(error), false);
    assert.equal(failedCallText(error), "is unreachable");
  }
  // fetch's failures: one type whatever happened, and the text is not read.
  for (
    const error of [
      ...["invalid HTTP header parsed", "tcp connect error"].map((reason) =>
        new TypeError("fetch failed", { cause: new Error(reason) })
      ),
      new InvalidRequestError('Invalid method "G T": not a token'),
    ]
  ) {
    assert.equal(isInvalidAnswer(error), false);
    assert.equal(
      failedCallText(error),
      "is unreachable or answered with an invalid HTTP response",
    );
  }
});
