/**
 * Turns the weather replies into the outdoor points of docs/collector.md. A reply without a field
 * the table needs throws, naming the field, so the caller can skip that reply.
 *
 * @module
 */
import { rainFromWeather } from "./rain.ts";
import { bool, float, int, type Sample } from "./sample.ts";

function member(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/** The number at `path`; throws `<what> has no number at "<path>"` without one. */
function numberAt(reply: unknown, path: string, what?: string): number {
  const value = path.split(".").reduce(member, reply);
  if (typeof value !== "number" || !Number.isFinite(value)) {
    const problem = `no number at "${path}"`;
    throw new Error(what ? `${what} has ${problem}` : problem);
  }
  return value;
}

/**
 * The points of the current-weather reply (`/data/2.5/weather`): outdoor pressure,
 * humidity, temperature and rain.
 */
export function currentWeatherSamples(reply: unknown, time: Date): Sample[] {
  const what = "Weather reply";
  const pressure = numberAt(reply, "main.pressure", what);
  const humidity = numberAt(reply, "main.humidity", what);
  const temperature = numberAt(reply, "main.temp", what);
  const { rain, level } = rainFromWeather(member(reply, "weather"));
  const out = (measurement: string, fields: Sample["fields"]): Sample => ({
    measurement,
    location: "out",
    time,
    fields,
  });
  return [
    out("home_pressure", { value: float(pressure) }),
    out("home_humidity", { value: float(humidity) }),
    out("home_temperature", { value: float(temperature) }),
    out("home_rain", { value: bool(rain), level: int(level) }),
  ];
}

/**
 * The `home_uvi` point: from `value` of the `/data/2.5/uvi` reply, or from
 * `current.uvi` of the `/data/3.0/onecall` reply.
 */
export function uviSample(
  reply: unknown,
  source: "uvi" | "onecall",
  time: Date,
): Sample {
  const path = source === "uvi" ? "value" : "current.uvi";
  const value = numberAt(reply, path, "UV index reply");
  return {
    measurement: "home_uvi",
    location: "out",
    time,
    fields: { value: float(value) },
  };
}

/**
 * One `home_weather_forecast` point per entry of the forecast reply's `list`, timed
 * from the entry's `dt` (epoch seconds). An entry without a field the point needs is
 * skipped alone: `onSkip` gets its index and what is missing (`no number at
 * "main.pressure"`), and the other entries are kept.
 */
export function forecastSamples(
  reply: unknown,
  onSkip: (index: number, problem: string) => void = () => {},
): Sample[] {
  const list = member(reply, "list");
  if (!Array.isArray(list)) {
    throw new Error('Forecast reply has no list at "list"');
  }
  return list.flatMap((entry, index): Sample[] => {
    try {
      const { rain, level } = rainFromWeather(member(entry, "weather"));
      return [{
        measurement: "home_weather_forecast",
        location: "out",
        time: new Date(numberAt(entry, "dt") * 1000),
        fields: {
          temp: float(numberAt(entry, "main.temp")),
          humidity: float(numberAt(entry, "main.humidity")),
          rain: bool(rain),
          rain_level: int(level),
          pressure: float(numberAt(entry, "main.pressure")),
        },
      }];
    } catch (error) {
      onSkip(index, error instanceof Error ? error.message : String(error));
      return [];
    }
  });
}
