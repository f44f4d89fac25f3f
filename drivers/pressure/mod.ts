/**
 * Indoor pressure for the collector: settings and the source they select.
 *
 * Layout: `drivers/pressure/` is a device driver; it imports `lib/` and itself only
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { optional, type SettingsOf } from "../../lib/settings.ts";
import { text } from "../../lib/setting_kinds.ts";
import { I2C_PRESSURE_CHIPS } from "./chips.ts";
import { createI2cPressureSource } from "./i2c_pressure_source.ts";
import { createIioPressureSource } from "./iio_pressure_source.ts";
import type { PressureSource } from "./pressure_source.ts";
import { pressureSensorSetting } from "./pressure_sensor_setting.ts";

export type { PressureSource } from "./pressure_source.ts";
export type { PressureSensor } from "./pressure_sensor_setting.ts";

/** The settings of the pressure source (spread into the collector's schema). */
export const pressureSettings = {
  PRESSURE_SENSOR: pressureSensorSetting(),
  PRESSURE_IIO_DEVICE: optional(text({
    description:
      "IIO device to read (iio:device0, a full path such as /sys/bus/iio/devices/iio:device0, or its driver name such as lps25h); default the first with a pressure channel",
  })),
  PRESSURE_IIO_ROOT: text({
    description: "Folder of the IIO devices",
    default: "/sys/bus/iio/devices",
  }),
};

/** The parsed values of {@linkcode pressureSettings}. */
export type PressureSettings = SettingsOf<typeof pressureSettings>;

/**
 * Builds the pressure source the settings select; `undefined` for `none`.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { parseSettings } from "../../lib/settings.ts";
 *
 * const log = createLog("collector");
 * const settings = parseSettings(pressureSettings, { PRESSURE_SENSOR: "iio" });
 * const source = createPressureSource(settings, { log });
 * if (source) log.info(`${await source.read()} hPa`);
 * ```
 */
export function createPressureSource(
  settings: PressureSettings,
  { log }: { log: Log },
): PressureSource | undefined {
  const sensor = settings.PRESSURE_SENSOR;
  switch (sensor.kind) {
    case "none":
      return undefined;
    case "iio":
      return createIioPressureSource({
        root: settings.PRESSURE_IIO_ROOT,
        device: settings.PRESSURE_IIO_DEVICE,
        log,
      });
    case "i2c":
      return createI2cPressureSource({
        chip: I2C_PRESSURE_CHIPS[sensor.chip]!,
        bus: sensor.bus,
        address: sensor.address,
      });
  }
}
