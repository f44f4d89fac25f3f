import assert from "node:assert/strict";
import { EndOfStream } from "../../lib/http1/_byte_reader.ts";
import { InvalidResponseError } from "../../lib/http1/client.ts";
import { isInvalidResponse, upstreamFailureText } from "./_invalid_response.ts";

Deno.test("upstreamFailureText() tells an invalid answer from a network failure by type, never by text", () => {
  const invalid = new InvalidResponseError(
    "Invalid header line from the remote: no colon",
  );
  assert.equal(isInvalidResponse(invalid), true);
  assert.equal(
    upstreamFailureText(invalid),
    "answered with an invalid HTTP response",
  );
  for (
    const error of [
      new Deno.errors.ConnectionRefused("Connection refused (os error 111)"),
      new EndOfStream(0),
    ]
  ) {
    assert.equal(isInvalidResponse(error), false);
    assert.equal(upstreamFailureText(error), "is unreachable");
  }
  // fetch's failures: one type whatever happened, and the text is not read.
  for (
    const reason of ["invalid HTTP header parsed", "tcp connect error"]
  ) {
    const error = new TypeError("fetch failed", { cause: new Error(reason) });
    assert.equal(isInvalidResponse(error), false);
    assert.equal(
      upstreamFailureText(error),
      "is unreachable or answered with an invalid HTTP response",
    );
  }
});
