import assert from "node:assert/strict";
import { ByteReader } from "./_byte_reader.ts";
import { ConnectionClosedError } from "./errors.ts";

/** A connection whose reads return `parts`, one per read, then end. */
function scripted(parts: Uint8Array[]): Deno.Conn {
  const queue = [...parts];
  return {
    read(target: Uint8Array) {
      const next = queue.shift();
      if (next === undefined) return Promise.resolve(null);
      const count = Math.min(next.length, target.length);
      target.set(next.subarray(0, count));
      if (count < next.length) queue.unshift(next.subarray(count));
      return Promise.resolve(count);
    },
  } as unknown as Deno.Conn;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

Deno.test("ByteReader finds a head split over reads and keeps what follows", async () => {
  const reader = new ByteReader(
    scripted([
      bytes("HTTP/1.1 200 OK\r"),
      bytes("\nx: 1\r\n\r"),
      bytes("\nbody"),
    ]),
  );
  assert.equal(text(await reader.readHead(1024)), "HTTP/1.1 200 OK\r\nx: 1");
  assert.equal(reader.buffered, 4); // "body" came with the head's last read
  assert.equal(text((await reader.readSome(10))!), "body");
  assert.equal(await reader.readSome(10), null);
});

Deno.test("ByteReader keeps pending bytes intact when its buffer moves or grows", async () => {
  // Heads larger than the buffer, arriving in pieces, force a compaction and growth.
  const big = "x".repeat(150_000);
  const whole = bytes(`HTTP/1.1 200 OK\r\nbig: ${big}\r\n\r\nrest\r\n0\r\n`);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < whole.length; at += 7_000) {
    parts.push(whole.subarray(at, at + 7_000));
  }
  const reader = new ByteReader(scripted(parts));
  assert.equal(
    text(await reader.readHead(1024 * 1024)),
    `HTTP/1.1 200 OK\r\nbig: ${big}`,
  );
  assert.equal(await reader.readLine(), "rest");
  assert.equal(await reader.readLine(), "0");
  await assert.rejects(reader.readLine(), ConnectionClosedError);
});

Deno.test("ByteReader refuses a head past its limit", async () => {
  const reader = new ByteReader(scripted([bytes("a".repeat(5000))]));
  await assert.rejects(reader.readHead(1000), /Response head too large/);
});

Deno.test("ByteReader takes whole bodies from its buffer", async () => {
  const reader = new ByteReader(scripted([bytes("H\r\n\r\nabcdef")]));
  await reader.readHead(100);
  assert.equal(text(reader.take(4)), "abcd");
  assert.equal(text(reader.take(10)), "ef");
});

Deno.test("ByteReader refuses a line ending in a bare LF, in a head or after it", async () => {
  for (
    const raw of [
      "HTTP/1.1 200 OK\nx: 1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nx: 1\n\r\n",
      "\nHTTP/1.1 200 OK\r\n\r\n",
    ]
  ) {
    const reader = new ByteReader(scripted([bytes(raw)]));
    await assert.rejects(reader.readHead(1024), /ends in a bare LF/, raw);
  }
  const reader = new ByteReader(scripted([bytes("H\r\n\r\n5\nhello")]));
  await reader.readHead(100);
  await assert.rejects(reader.readLine(), /ends in a bare LF/);
});

Deno.test("ByteReader refuses a head past its limit even when it came in one read", async () => {
  const head = `HTTP/1.1 200 OK\r\nbig: ${"a".repeat(5000)}\r\n\r\n`;
  const reader = new ByteReader(scripted([bytes(head)]));
  await assert.rejects(reader.readHead(1000), /Response head too large/);
});
