/**
 * A buffered reader over a TCP connection, for parsing HTTP/1.1 answers.
 *
 * @module
 */

const CHUNK = 64 * 1024;

/** Reads lines and byte runs from a connection, keeping what was read ahead. */
export class ByteReader {
  #conn: Deno.Conn;
  #buffer: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  #start = 0;
  #scratch = new Uint8Array(CHUNK);

  /** Wraps `conn`. */
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Bytes read ahead and not consumed yet. */
  get buffered(): number {
    return this.#buffer.length - this.#start;
  }

  /** Reads more from the connection; `false` at end of stream. */
  async fill(): Promise<boolean> {
    const scratch = this.#scratch;
    const count = await this.#conn.read(scratch);
    if (count === null) return false;
    const rest = this.#buffer.subarray(this.#start);
    const joined = new Uint8Array(rest.length + count);
    joined.set(rest);
    joined.set(scratch.subarray(0, count), rest.length);
    this.#buffer = joined;
    this.#start = 0;
    return true;
  }

  /** Takes `count` bytes already buffered (see {@linkcode buffered}). */
  take(count: number): Uint8Array<ArrayBuffer> {
    const bytes = this.#buffer.subarray(this.#start, this.#start + count);
    this.#start += bytes.length;
    return bytes;
  }

  /**
   * Returns the bytes up to and without the first `\r\n\r\n` (an answer's head),
   * consuming the separator. Throws past `limit` bytes or at end of stream.
   */
  async readHead(limit: number): Promise<Uint8Array> {
    let from = 3; // offset from the start already searched (a match looks back 3)
    while (true) {
      const buffer = this.#buffer;
      const start = this.#start;
      for (let i = start + from; i < buffer.length; i++) {
        if (
          buffer[i] === 10 && buffer[i - 1] === 13 && buffer[i - 2] === 10 &&
          buffer[i - 3] === 13
        ) {
          this.#start = i + 1;
          return buffer.subarray(start, i - 3);
        }
      }
      if (this.buffered > limit) throw new Error("Answer head too large");
      from = Math.max(3, this.buffered);
      if (!(await this.fill())) throw new EndOfStream(this.buffered);
    }
  }

  /** Returns one line without its `\r\n`, as text. */
  async readLine(limit = 8192): Promise<string> {
    while (true) {
      const end = this.#buffer.indexOf(10, this.#start);
      if (end >= 0) {
        const line = this.#buffer.subarray(this.#start, end);
        this.#start = end + 1;
        const text = new TextDecoder().decode(line);
        return text.endsWith("\r") ? text.slice(0, -1) : text;
      }
      if (this.buffered > limit) throw new Error("Answer line too long");
      if (!(await this.fill())) throw new EndOfStream(this.buffered);
    }
  }

  /** Returns up to `max` bytes (at least one), or `null` at end of stream. */
  async readSome(max: number): Promise<Uint8Array | null> {
    if (this.buffered === 0 && !(await this.fill())) return null;
    const end = Math.min(this.#buffer.length, this.#start + max);
    // A copy: the consumer may keep it while the buffer is reused.
    const bytes = this.#buffer.slice(this.#start, end);
    this.#start = end;
    return bytes;
  }
}

/** The connection ended; `buffered` bytes of an unfinished answer were pending. */
export class EndOfStream extends Error {
  /** Bytes of the unfinished answer already received. */
  readonly received: number;

  /** Builds the error. */
  constructor(received: number) {
    super("Connection closed by the remote");
    this.name = "EndOfStream";
    this.received = received;
  }
}
