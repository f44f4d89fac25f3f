import assert from "node:assert/strict";
import {
  ConnectionClosedError,
  InvalidHeaderError,
  InvalidRequestError,
  SocketError,
} from "../../lib/http1/errors.ts";
import { isInvalidResponse, upstreamFailureText } from "./_invalid_response.ts";

Deno.test("upstreamFailureText() tells an invalid response from a network failure by type, never by text", () => {
  const invalid = new InvalidHeaderError(
    "Invalid header line from the server: no colon",
  );
  assert.equal(isInvalidResponse(invalid), true);
  assert.equal(
    upstreamFailureText(invalid),
    "sent an invalid HTTP response",
  );
  for (
    const error of [
      new SocketError(
        new Deno.errors.ConnectionRefused("Connection refused (os error 111)"),
      ),
      new ConnectionClosedError(0),
    ]
  ) {
    assert.equal(isInvalidResponse(error), false);
    assert.equal(upstreamFailureText(error), "is unreachable");
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
    assert.equal(isInvalidResponse(error), false);
    assert.equal(
      upstreamFailureText(error),
      "is unreachable or sent an invalid HTTP response",
    );
  }
});
