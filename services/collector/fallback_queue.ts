/**
 * A point queue on a file that goes on in memory when the file fails while running
 * (disk full, a memory card turned read-only, an I/O error): the store still gets the
 * new points, and what the file holds waits in it for the next start.
 *
 * @module
 */
import {
  openPointQueue,
  type PointQueue,
  type QueuedPoint,
} from "./point_queue.ts";

/**
 * Wraps the queue `file`: the first operation that throws calls `onFail` once with
 * the error, closes the file, and is done again, as every later one, on a queue in
 * memory. A point read from the file before it failed is not removed from it (it is
 * sent again at the next start: the store keeps one point per series and time).
 *
 * @example
 * ```ts
 * import { openPointQueue } from "./point_queue.ts";
 *
 * const queue = withMemoryFallback(
 *   openPointQueue("./data/collector-buffer.sqlite3"),
 *   (error) => console.error(`The buffer file failed: ${error}`),
 * );
 * queue.add(["home_uvi,location=out value=3.4 0"]); // in the file, or in memory once it failed
 * ```
 */
export function withMemoryFallback(
  file: PointQueue,
  onFail: (error: unknown) => void,
): PointQueue {
  let memory: PointQueue | undefined;
  /** Points read from the memory queue: only those are removed from it. */
  const fromMemory = new WeakSet<QueuedPoint>();
  const use = <T>(work: (queue: PointQueue) => T): T => {
    if (memory) return work(memory);
    try {
      return work(file);
    } catch (error) {
      memory = openPointQueue(":memory:");
      try {
        file.close();
      } catch {
        // unusable already
      }
      onFail(error);
      return work(memory);
    }
  };
  return {
    add: (lines) => use((queue) => queue.add(lines)),
    oldest: (limit) =>
      use((queue) => {
        const points = queue.oldest(limit);
        if (queue === memory) {
          for (const point of points) fromMemory.add(point);
        }
        return points;
      }),
    removeThrough: (last) =>
      use((queue) => {
        if (queue === file || fromMemory.has(last)) queue.removeThrough(last);
      }),
    dropOldest: (count) => use((queue) => queue.dropOldest(count)),
    get size() {
      return use((queue) => queue.size);
    },
    close: () => (memory ?? file).close(),
  };
}
