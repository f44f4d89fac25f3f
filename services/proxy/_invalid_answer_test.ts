import assert from "node:assert/strict";
import { InvalidResponseError } from "../../lib/http1/client.ts";
import { isInvalidAnswer } from "./_invalid_answer.ts";

Deno.test("isInvalidAnswer() knows the pooled client's and fetch's parse errors", () => {
  const fetchFailed = (reason: string) =>
    new TypeError(
      `fetch failed: error sending request for http://h/x (h:80): client error (SendRequest): ${reason}`,
    );
  const invalid = [
    new InvalidResponseError("Invalid header line from the remote: no colon"),
    fetchFailed("invalid HTTP header parsed"),
    fetchFailed("invalid HTTP status-code parsed"),
    fetchFailed("invalid HTTP version parsed"),
    fetchFailed("invalid content-length parsed"),
    fetchFailed("unexpected transfer-encoding parsed"),
    fetchFailed("message head is too large"),
    new TypeError("fetch failed", {
      cause: new Error("invalid HTTP header parsed"),
    }),
  ];
  for (const error of invalid) assert.equal(isInvalidAnswer(error), true);
  const unreachable = [
    new TypeError("Connection refused (os error 111)"),
    fetchFailed("connection closed before message completed"),
    new Error("Connection closed by the remote"),
    "invalid HTTP header parsed",
    undefined,
  ];
  for (const error of unreachable) assert.equal(isInvalidAnswer(error), false);
});
