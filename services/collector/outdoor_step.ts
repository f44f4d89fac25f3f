/**
 * The outdoor step: the three weather calls, turned into the `out` points of docs/collector.md.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import type { Step } from "./collector.ts";
import type { Sample } from "./sample.ts";
import type { UviSource, WeatherClient } from "./weather_client.ts";
import {
  currentWeatherSamples,
  forecastSamples,
  uviSample,
} from "./weather_points.ts";

/** What {@linkcode createOutdoorStep} needs. */
export interface OutdoorStepOptions {
  /** The weather calls; `undefined` when the step cannot run (see `missing`). */
  weather?: WeatherClient;
  /** Why there is no client, e.g. the missing key; thrown on every pass. */
  missing?: string;
  /** Which UV reply shape to read. */
  uviSource: UviSource;
  /** Logger for the calls that fail. */
  log: Log;
}

/**
 * Builds the outdoor step. The calls run together; a call that fails (network,
 * time-out, malformed reply) is logged at ERROR and only its points are skipped; a
 * forecast entry without a field it needs is skipped alone, with an ERROR naming it.
 * A call cut short by `signal` (the collector stopping) is logged at DEBUG only.
 * A reply that is not 200 is logged at WARNING by the client and skipped.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import type { WeatherClient } from "./weather_client.ts";
 *
 * declare const weather: WeatherClient;
 * const outdoor = createOutdoorStep({
 *   weather,
 *   uviSource: "uvi",
 *   log: createLog("collector"),
 * });
 * const points = await outdoor(new Date());
 * ```
 */
export function createOutdoorStep(options: OutdoorStepOptions): Step {
  return async (time, signal) => {
    const weather = options.weather;
    if (!weather) {
      throw new Error(options.missing ?? "No weather client configured");
    }
    const calls: [string, () => Promise<Sample[]>][] = [
      ["weather", async () => {
        const reply = await weather.current(signal);
        return reply === undefined ? [] : currentWeatherSamples(reply, time);
      }],
      ["UV index", async () => {
        const reply = await weather.uvi(signal);
        return reply === undefined
          ? []
          : [uviSample(reply, options.uviSource, time)];
      }],
      ["forecast", async () => {
        const reply = await weather.forecast(signal);
        return reply === undefined
          ? []
          : forecastSamples(reply, (index, problem) =>
            options.log.error(
              `Outdoor step: forecast entry ${index} skipped: ${problem}`,
            ));
      }],
    ];
    const results = await Promise.allSettled(calls.map(([, call]) => call()));
    return results.flatMap((result, index) => {
      if (result.status === "fulfilled") return result.value;
      if (signal?.aborted) {
        // Stopping: the call was cut short on purpose.
        options.log.debug(
          `Outdoor step: ${calls[index]![0]} call stopped: ${
            errorText(result.reason)
          }`,
        );
        return [];
      }
      options.log.error(
        `Outdoor step: ${calls[index]![0]} points skipped: ${
          errorText(result.reason)
        }`,
      );
      return [];
    });
  };
}
