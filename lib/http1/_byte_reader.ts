/**
 * A buffered reader over a TCP connection, for parsing HTTP/1.1 responses.
 *
 * @module
 */
import {
  ConnectionClosedError,
  HeadersOverflowError,
  InvalidHeaderError,
} from "./errors.ts";

const CHUNK = 64 * 1024;

/**
 * Reads lines and byte runs from a connection, keeping what was read ahead. Reads go
 * into one buffer kept for the connection's life (an allocation per read showed in
 * the proxy's profile): what `readHead` and `take` return are views into it, valid
 * until the next read.
 */
export class ByteReader {
  #conn: Deno.Conn;
  #buffer: Uint8Array<ArrayBuffer> = new Uint8Array(CHUNK);
  #start = 0;
  #end = 0;
  /** A read started by {@linkcode watch}, that the next `fill` takes over. */
  #pending: Promise<number | null> | undefined;
  #received = 0;

  /** Wraps `conn`. */
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Bytes read from the connection in all, ever. */
  get received(): number {
    return this.#received;
  }

  /** Bytes read ahead and not consumed yet. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /**
   * Starts the next read now, on a connection waiting idle with nothing buffered, so
   * that the server closing it is seen while it waits. Resolves when that read ends:
   * `true` when bytes came, `false` at end of stream or on an error. The next read
   * of this reader takes over the read (and its bytes or error).
   */
  watch(): Promise<boolean> {
    this.#start = this.#end = 0;
    const read = this.#conn.read(this.#buffer);
    this.#pending = read;
    return read.then((count) => count !== null, () => false);
  }

  /** Reads more from the connection; `false` at end of stream. */
  async fill(): Promise<boolean> {
    const pending = this.#pending;
    if (pending) {
      this.#pending = undefined;
      return this.#filled(await pending);
    }
    if (this.#start === this.#end) {
      this.#start = this.#end = 0;
    } else if (this.#buffer.length - this.#end < CHUNK / 4) {
      // Too little room left: move the pending bytes to the front of a buffer
      // (a larger one when they fill more than half of it).
      const pending = this.#buffer.subarray(this.#start, this.#end);
      if (pending.length > this.#buffer.length / 2) {
        const larger = new Uint8Array(this.#buffer.length * 2);
        larger.set(pending);
        this.#buffer = larger;
      } else {
        this.#buffer.copyWithin(0, this.#start, this.#end);
      }
      this.#end -= this.#start;
      this.#start = 0;
    }
    return this.#filled(
      await this.#conn.read(this.#buffer.subarray(this.#end)),
    );
  }

  #filled(count: number | null): boolean {
    if (count === null) return false;
    this.#end += count;
    this.#received += count;
    return true;
  }

  /** Takes `count` bytes already buffered (see {@linkcode buffered}). */
  take(count: number): Uint8Array<ArrayBuffer> {
    const bytes = this.#buffer.subarray(
      this.#start,
      Math.min(this.#end, this.#start + count),
    );
    this.#start += bytes.length;
    return bytes;
  }

  /**
   * Returns the bytes up to and without the first blank line (a response's head),
   * consuming it. Lines end in CRLF (RFC 9112 2.2 lets a recipient take a bare LF,
   * which llhttp refuses; so do we: two readers must never frame one response two
   * ways). Throws a `HeadersOverflowError` past `limit` bytes, a
   * `ConnectionClosedError` at end of stream.
   */
  async readHead(limit: number): Promise<Uint8Array> {
    let from = 0; // offset from the start already searched
    while (true) {
      const buffer = this.#buffer;
      const start = this.#start;
      const end = this.#end;
      for (let i = start + from; i < end; i++) {
        if (buffer[i] !== 10) continue;
        if (i === start || buffer[i - 1] !== 13) {
          throw new InvalidHeaderError(
            "Invalid line from the server: it ends in a bare LF",
          );
        }
        if (i - 3 < start || buffer[i - 2] !== 10) continue;
        if (i - start > limit) break;
        this.#start = i + 1;
        // Without the CRLF ending the head's last line.
        return buffer.subarray(start, i - 3);
      }
      if (this.buffered > limit) {
        throw new HeadersOverflowError(
          `Response head too large from the server: over ${limit} bytes`,
        );
      }
      from = this.buffered;
      if (!(await this.fill())) throw new ConnectionClosedError(this.buffered);
    }
  }

  /**
   * Returns one line without its CRLF, as Latin-1 text. Throws an
   * `InvalidHeaderError` for a line ending in a bare LF, a `HeadersOverflowError` for
   * one longer than `limit`, a `ConnectionClosedError` at end of stream.
   */
  async readLine(limit = 8192): Promise<string> {
    while (true) {
      const end = this.#buffer.subarray(0, this.#end).indexOf(10, this.#start);
      if (end >= 0) {
        if (end === this.#start || this.#buffer[end - 1] !== 13) {
          throw new InvalidHeaderError(
            "Invalid line from the server: it ends in a bare LF",
          );
        }
        const line = this.#buffer.subarray(this.#start, end - 1);
        this.#start = end + 1;
        let text = "";
        for (const byte of line) text += String.fromCharCode(byte);
        return text;
      }
      if (this.buffered > limit) {
        throw new HeadersOverflowError(
          `Response line too long from the server: over ${limit} bytes`,
        );
      }
      if (!(await this.fill())) throw new ConnectionClosedError(this.buffered);
    }
  }

  /** Returns up to `max` bytes (at least one), or `null` at end of stream. */
  async readSome(max: number): Promise<Uint8Array | null> {
    if (this.buffered === 0 && !(await this.fill())) return null;
    const end = Math.min(this.#end, this.#start + max);
    // A copy: the consumer may keep it while the buffer is reused.
    const bytes = this.#buffer.slice(this.#start, end);
    this.#start = end;
    return bytes;
  }
}
