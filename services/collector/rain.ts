/**
 * The rain rule of docs/collector.md: the rain level of a weather entry list from its icon codes.
 *
 * @module
 */

/** Icon codes that mean rain, with their level. Any other code means no rain. */
const RAIN_LEVELS: Readonly<Record<string, number>> = {
  "09d": 1,
  "10d": 2,
  "11d": 3,
  "13d": 4,
};

/** Whether it rains, and how much (0 to 4). */
export interface Rain {
  /** True when some entry has a rain icon. */
  readonly rain: boolean;
  /** 1 for `09d`, 2 for `10d`, 3 for `11d`, 4 for `13d`, otherwise 0. */
  readonly level: number;
}

/**
 * Reads the rain from a reply's `weather` list: the last entry with a rain icon wins;
 * no such entry (or no list at all) means no rain.
 *
 * @example
 * ```ts
 * rainFromWeather([{ icon: "10d" }, { icon: "01d" }]); // { rain: true, level: 2 }
 * rainFromWeather([{ icon: "09d" }, { icon: "13d" }]); // { rain: true, level: 4 }
 * ```
 */
export function rainFromWeather(weather: unknown): Rain {
  let level = 0;
  if (Array.isArray(weather)) {
    for (const entry of weather) {
      const icon = (entry as { icon?: unknown } | null)?.icon;
      if (typeof icon === "string" && Object.hasOwn(RAIN_LEVELS, icon)) {
        level = RAIN_LEVELS[icon]!;
      }
    }
  }
  return { rain: level > 0, level };
}
