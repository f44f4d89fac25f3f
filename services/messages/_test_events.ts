/**
 * Test helper: reads a `text/event-stream` body event by event.
 *
 * @module
 */

/** One event as a browser's EventSource would dispatch it. */
export interface StreamEvent {
  /** `event:` (default `message`). */
  event: string;
  /** `id:` of the event, or the last one given before it. */
  id: string;
  /** `data:` lines joined. */
  data: string;
}

/** Reads events from `body`; `comments` counts the comment lines seen. */
export interface EventReader {
  /** The next event; rejects when none comes within `timeoutMs` or the stream ends. */
  next(timeoutMs?: number): Promise<StreamEvent>;
  /**
   * Resolves once the stream has sent its `retry:` and an `id:` (the feed's start
   * for a new subscriber: changes after it will be sent).
   */
  opened(timeoutMs?: number): Promise<void>;
  /** The next `count` events. */
  take(count: number, timeoutMs?: number): Promise<StreamEvent[]>;
  /** The last `id:` seen (also from an event without data). */
  readonly lastId: string;
  /** The `retry:` seen, if any. */
  readonly retry: string | undefined;
  /** Comment lines seen. */
  readonly comments: number;
  /** Stops reading. */
  cancel(): Promise<void>;
}

/** Returns a reader of `body`. */
export function readEvents(body: ReadableStream<Uint8Array>): EventReader {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let lastId = "";
  let retry: string | undefined;
  let comments = 0;
  const ready: StreamEvent[] = [];
  let event = "";
  let data: string[] = [];
  // A read outlasting a timeout is kept for the next call: its text is not lost.
  let pending: Promise<ReadableStreamReadResult<string>> | undefined;
  const parse = () => {
    for (;;) {
      const end = buffer.indexOf("\n");
      if (end < 0) return;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line === "") {
        if (data.length > 0) {
          ready.push({
            event: event || "message",
            id: lastId,
            data: data.join("\n"),
          });
        }
        event = "";
        data = [];
      } else if (line.startsWith(":")) comments++;
      else {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") lastId = value;
        else if (field === "retry") retry = value;
      }
    }
  };
  const fill = async (enough: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!enough()) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no event within ${timeoutMs} ms`)),
          Math.max(0, deadline - Date.now()),
        );
      });
      try {
        pending ??= reader.read();
        const { done, value } = await Promise.race([pending, timeout]);
        pending = undefined;
        if (done) throw new Error("the stream ended");
        buffer += value;
        parse();
      } finally {
        clearTimeout(timer);
      }
    }
  };
  const next = async (timeoutMs = 5000): Promise<StreamEvent> => {
    await fill(() => ready.length > 0, timeoutMs);
    return ready.shift()!;
  };
  return {
    next,
    opened: (timeoutMs = 5000) =>
      fill(() => retry !== undefined && lastId !== "", timeoutMs),
    async take(count, timeoutMs) {
      const events: StreamEvent[] = [];
      while (events.length < count) events.push(await next(timeoutMs));
      return events;
    },
    get lastId() {
      return lastId;
    },
    get retry() {
      return retry;
    },
    get comments() {
      return comments;
    },
    cancel: () => reader.cancel(),
  };
}
