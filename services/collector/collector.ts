/**
 * One collector pass: the indoor and outdoor steps at the same start time, each
 * failing alone, every point logged and handed to the writer.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import { describeSample, type Sample, toLineProtocol } from "./sample.ts";

/**
 * A collector step: reads its sources and returns the points to write, all timed
 * `time` (the pass's start) unless the source gives its own time.
 */
export type Step = (time: Date, signal?: AbortSignal) => Promise<Sample[]>;

/** What {@linkcode createCollector} needs. */
export interface CollectorOptions {
  /** The indoor step (sensors). */
  indoor: Step;
  /** The outdoor step (weather API). */
  outdoor: Step;
  /** Where the points go. */
  write(lines: readonly string[]): void;
  /** Also receives the points written (MQTT); called after `write`, never awaited. */
  publish?(samples: readonly Sample[]): void;
  /** Logger. */
  log: Log;
  /** The clock. @default () => new Date() */
  now?: () => Date;
}

/** A collector. */
export interface Collector {
  /** Runs both steps once; never rejects. Resolves with the points written. */
  runPass(signal?: AbortSignal): Promise<Sample[]>;
}

/**
 * Builds a {@linkcode Collector}. Both steps start together at the pass's start time
 * (UTC); each writes its points as soon as it ends. A step that throws is logged at
 * ERROR and the other step goes on.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * declare const indoor: Step, outdoor: Step;
 * const collector = createCollector({
 *   indoor,
 *   outdoor,
 *   write: (lines) => console.log(lines.join("\n")),
 *   log: createLog("collector"),
 * });
 * await collector.runPass();
 * ```
 */
export function createCollector(options: CollectorOptions): Collector {
  const { log, now = () => new Date() } = options;

  const write = (samples: readonly Sample[]) => {
    const lines: string[] = [];
    const written: Sample[] = [];
    for (const sample of samples) {
      try {
        lines.push(toLineProtocol(sample));
        written.push(sample);
        log.info(describeSample(sample));
      } catch (error) {
        log.error(
          `Point "${sample.measurement}" not written: ${errorText(error)}`,
        );
      }
    }
    if (lines.length === 0) return;
    options.write(lines);
    try {
      options.publish?.(written);
    } catch (error) {
      log.debug(`Publishing the points failed: ${errorText(error)}`);
    }
  };

  const runStep = async (
    name: string,
    step: Step,
    time: Date,
    signal?: AbortSignal,
  ): Promise<Sample[]> => {
    try {
      const samples = await step(time, signal);
      write(samples);
      return samples;
    } catch (error) {
      if (signal?.aborted) {
        log.debug(`${name} step stopped: ${errorText(error)}`);
      } else log.error(`${name} step failed: ${errorText(error)}`);
      return [];
    }
  };

  return {
    async runPass(signal) {
      const time = now();
      log.debug(`Collector pass at ${time.toISOString()}`);
      const [indoor, outdoor] = await Promise.all([
        runStep("Indoor", options.indoor, time, signal),
        runStep("Outdoor", options.outdoor, time, signal),
      ]);
      return [...indoor, ...outdoor];
    },
  };
}
