/**
 * The three weather calls of the collector (OpenWeatherMap API): current weather, UV index
 * and forecast, each with a time limit.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import { deadline } from "../../lib/deadline.ts";
import { BodyTooLargeError, responseBytes } from "../../lib/bounded_body.ts";

/** Where the UV index comes from: the retired `/data/2.5/uvi` (the default) or `/data/3.0/onecall`. */
export type UviSource = "uvi" | "onecall";

/** `WEATHER_MAX_BYTES`'s default: 4 MiB (a forecast is about 16 KB). */
export const DEFAULT_WEATHER_MAX_BYTES = 4 * 1024 * 1024;

/** What {@linkcode createWeatherClient} needs. */
export interface WeatherClientOptions {
  /** Base URL of the API, e.g. `https://api.openweathermap.org`. */
  baseUrl: string;
  /** The `appid` key (never logged). */
  apiKey: string;
  /** City id for the weather and forecast calls. */
  cityId: string;
  /** Latitude for the UV call. */
  lat: number;
  /** Longitude for the UV call. */
  lon: number;
  /** Which UV endpoint to call. */
  uviSource: UviSource;
  /** Time limit of one call, reply body included. */
  timeoutMs: number;
  /**
   * Bound on the bytes of one reply's body, decoded (`WEATHER_MAX_BYTES`): past it
   * the call fails (a forecast is about 16 KB; a few hundred bytes of br can decode
   * to 1 GiB).
   * @default 4 MiB
   */
  maxBytes?: number;
  /** Logger for replies that are not 200. */
  log: Log;
}

/**
 * The weather calls. Each resolves with the decoded JSON reply when the status is 200,
 * with `undefined` (after a WARNING) for any other status, and rejects on a network
 * error, a time-out, a body over the bound or a reply that is not JSON.
 */
export interface WeatherClient {
  /** `GET /data/2.5/weather?id=&appid=&units=metric`. */
  current(signal?: AbortSignal): Promise<unknown | undefined>;
  /** `GET /data/2.5/uvi?lat=&lon=&appid=` (or the `onecall` variant). */
  uvi(signal?: AbortSignal): Promise<unknown | undefined>;
  /** `GET /data/2.5/forecast?id=&appid=&units=metric`. */
  forecast(signal?: AbortSignal): Promise<unknown | undefined>;
}

/**
 * Builds a {@linkcode WeatherClient}.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * const weather = createWeatherClient({
 *   baseUrl: "https://api.openweathermap.org",
 *   apiKey: Deno.env.get("WEATHER_API_KEY") ?? "",
 *   cityId: "3117735",
 *   lat: 40.4165,
 *   lon: -3.7026,
 *   uviSource: "uvi",
 *   timeoutMs: 10_000,
 *   log: createLog("collector"),
 * });
 * const reply = await weather.current();
 * ```
 */
export function createWeatherClient(
  options: WeatherClientOptions,
): WeatherClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const maxBytes = options.maxBytes ?? DEFAULT_WEATHER_MAX_BYTES;

  async function get(
    path: string,
    query: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<unknown | undefined> {
    const url = new URL(base + path);
    url.search = queryString(query);
    const limit = deadline(options.timeoutMs, signal);
    let body: string;
    try {
      const response = await fetch(url, {
        // Deno's fetch decodes the codings it asked for itself; asked for none, a
        // coded body comes as it is and is decoded here within the bound.
        headers: { "accept-encoding": "identity" },
        signal: limit.signal,
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        options.log.warn(
          `Weather call ${path} returned ${response.status}: its points are skipped`,
        );
        return undefined;
      }
      body = new TextDecoder().decode(await responseBytes(response, maxBytes));
    } catch (error) {
      // A stop, not a failure: the caller sees the abort reason and logs no ERROR.
      if (signal?.aborted) throw signal.reason;
      if (error instanceof BodyTooLargeError) {
        throw new Error(
          `Weather call ${path} returned a body over ${maxBytes} bytes (WEATHER_MAX_BYTES)`,
          { cause: error },
        );
      }
      if (limit.expired()) {
        throw new Error(
          `Weather call ${path} timed out after ${options.timeoutMs} ms`,
        );
      }
      // Deno's network errors quote the URL, which holds the key.
      const detail = errorText(error)
        .replaceAll(options.apiKey, "***")
        .replaceAll(encodeURIComponent(options.apiKey), "***");
      throw new Error(`Weather call ${path} failed: ${detail}`);
    } finally {
      limit.clear();
    }
    try {
      return JSON.parse(body);
    } catch (error) {
      throw new Error(
        `Weather call ${path} returned 200 with a body that is not JSON: ${
          errorText(error)
        }`,
      );
    }
  }

  const city = { id: options.cityId, appid: options.apiKey, units: "metric" };
  const coordinates = {
    lat: String(options.lat),
    lon: String(options.lon),
    appid: options.apiKey,
  };
  return {
    current: (signal) => get("/data/2.5/weather", city, signal),
    forecast: (signal) => get("/data/2.5/forecast", city, signal),
    uvi: (signal) =>
      options.uviSource === "uvi"
        ? get("/data/2.5/uvi", coordinates, signal)
        : get("/data/3.0/onecall", {
          ...coordinates,
          exclude: "minutely,hourly,daily,alerts",
        }, signal),
  };
}

/**
 * `a=1&b=x,y`: each value percent-encoded except its commas, which the API's documented
 * lists (`exclude=minutely,hourly,daily,alerts`) carry literally.
 */
function queryString(query: Record<string, string>): string {
  return Object.entries(query).map(([name, value]) =>
    `${encodeURIComponent(name)}=${
      encodeURIComponent(value).replaceAll("%2C", ",")
    }`
  ).join("&");
}
