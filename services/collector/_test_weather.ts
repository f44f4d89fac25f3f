/**
 * A local stand-in for the OpenWeatherMap API, for tests: the documented reply
 * shapes on 127.0.0.1, with per-path overrides for other statuses, malformed bodies
 * and slow replies. Every request is recorded.
 *
 * @module
 */
import { sleep } from "../../lib/backoff.ts";

/** How the stand-in responds to one path. */
export interface StandInReply {
  /** @default 200 */
  status?: number;
  /** A value sent as JSON, or a string sent as it is. */
  body?: unknown;
  /** Wait this long before responding. */
  delayMs?: number;
}

/** The running stand-in. */
export interface WeatherStandIn {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Requests received: path and query parameters. */
  readonly requests: { path: string; query: Record<string, string> }[];
  /** The request targets as sent (path and query, with its escapes). */
  readonly targets: string[];
  /** Replies by path, changeable between passes. */
  readonly replies: Map<string, StandInReply>;
  /** Stops the server (pending slow replies end at once). */
  close(): Promise<void>;
}

/** The current-weather reply: 12.5 °C, 1016 hPa, 81 %, icons 10d then 01d. */
export const CURRENT_REPLY = {
  coord: { lon: -3.7026, lat: 40.4165 },
  weather: [
    { id: 500, main: "Rain", description: "light rain", icon: "10d" },
    { id: 800, main: "Clear", description: "clear sky", icon: "01d" },
  ],
  base: "stations",
  main: {
    temp: 12.5,
    feels_like: 11.8,
    temp_min: 11,
    temp_max: 14,
    pressure: 1016,
    humidity: 81,
  },
  dt: 1700000000,
  id: 3117735,
  name: "Madrid",
  cod: 200,
};

/** The `/data/2.5/uvi` reply. */
export const UVI_REPLY = {
  lat: 40.4165,
  lon: -3.7026,
  date_iso: "2023-11-14T12:00:00Z",
  date: 1699963200,
  value: 3.42,
};

/** The `/data/3.0/onecall` reply (current only). */
export const ONECALL_REPLY = {
  lat: 40.4165,
  lon: -3.7026,
  timezone: "Europe/Madrid",
  current: { dt: 1700000000, temp: 12.5, uvi: 2.75 },
};

/** The forecast reply: three entries, the last with two rain icons (13d wins). */
export const FORECAST_REPLY = {
  cod: "200",
  message: 0,
  cnt: 3,
  list: [
    {
      dt: 1700010800,
      main: { temp: 13.1, pressure: 1015, humidity: 78 },
      weather: [{ id: 521, main: "Rain", icon: "09d" }],
    },
    {
      dt: 1700021600,
      main: { temp: 9.25, pressure: 1014.5, humidity: 90 },
      weather: [{ id: 800, main: "Clear", icon: "01n" }],
    },
    {
      dt: 1700032400,
      main: { temp: -1.5, pressure: 1012, humidity: 95 },
      weather: [{ id: 211, icon: "11d" }, { id: 601, icon: "13d" }],
    },
  ],
  city: { id: 3117735, name: "Madrid" },
};

const DEFAULTS: Record<string, unknown> = {
  "/data/2.5/weather": CURRENT_REPLY,
  "/data/2.5/uvi": UVI_REPLY,
  "/data/3.0/onecall": ONECALL_REPLY,
  "/data/2.5/forecast": FORECAST_REPLY,
};

/** Starts the stand-in on a free port of 127.0.0.1. */
export function startWeatherStandIn(): WeatherStandIn {
  const requests: WeatherStandIn["requests"] = [];
  const targets: string[] = [];
  const replies = new Map<string, StandInReply>();
  const closing = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      targets.push(url.pathname + url.search);
      requests.push({
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
      });
      const reply = replies.get(url.pathname) ??
        { body: DEFAULTS[url.pathname] ?? { cod: 404, message: "Not found" } };
      if (reply.delayMs) await sleep(reply.delayMs, closing.signal);
      const status = reply.status ??
        (url.pathname in DEFAULTS || replies.has(url.pathname) ? 200 : 404);
      const body = typeof reply.body === "string"
        ? reply.body
        : JSON.stringify(reply.body ?? {});
      return new Response(body, {
        status,
        headers: { "Content-Type": "application/json; charset=utf-8" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    targets,
    replies,
    async close() {
      closing.abort();
      await server.shutdown();
    },
  };
}
