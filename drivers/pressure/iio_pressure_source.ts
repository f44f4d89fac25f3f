/**
 * Pressure from a Linux IIO device: the chip-agnostic default, working for any chip
 * with a kernel driver (LPS25H, BMP280, BME280, ...).
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import type { PressureSource } from "./pressure_source.ts";

/** Options of {@linkcode createIioPressureSource}. */
export interface IioPressureOptions {
  /** Folder holding the IIO devices. @default "/sys/bus/iio/devices" */
  root: string;
  /**
   * A device folder name (`iio:device0`), a full path to a device folder
   * (`/sys/bus/iio/devices/iio:device0`) or a driver name (`lps25h`); else the first
   * device with a pressure channel.
   */
  device?: string;
  /** Where the chosen device is reported. */
  log: Log;
}

interface IioDevice {
  /** Folder name, as reported (`iio:device0`). */
  folder: string;
  /** Full path of the folder. */
  path: string;
  /** Driver name (`lps25h`), `""` when the device has none. */
  name: string;
}

/**
 * Returns a source reading `in_pressure_input` (kPa per the IIO ABI) or
 * `(in_pressure_raw + in_pressure_offset) * in_pressure_scale`, converted to hPa.
 *
 * The device is looked up on every read, so a driver loaded after start-up is found.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * const log = createLog("collector");
 * const source = createIioPressureSource({ root: "/sys/bus/iio/devices", log });
 * await source.read(); // 1013.2
 * ```
 */
export function createIioPressureSource(
  options: IioPressureOptions,
): PressureSource {
  let announced = "";
  return {
    async read() {
      const device = await findDevice(options);
      const kpa = await readPressureKpa(device.path);
      if (announced !== device.folder) {
        announced = device.folder;
        options.log.info(
          `Pressure from IIO device ${device.folder}${
            device.name ? ` (${device.name})` : ""
          }`,
        );
      }
      return kpa * 10;
    },
  };
}

async function findDevice(options: IioPressureOptions): Promise<IioDevice> {
  // A trailing slash (shell completion: `iio:device0/`) names the same folder.
  const given = options.device?.replace(/(.)\/+$/, "$1");
  if (given?.includes("/")) return await deviceAtPath(given);
  const devices = await listDevices(options.root);
  if (given !== undefined) {
    const wanted = given;
    const device = devices.find((d) => d.folder === wanted) ??
      devices.find((d) => d.name === wanted);
    if (!device) {
      throw new Error(
        `IIO device "${wanted}" not found under "${options.root}": found ${
          describe(devices)
        }`,
      );
    }
    if (!(await pressureChannel(device.path))) {
      throw new Error(
        `IIO device "${wanted}" has no pressure channel: expected in_pressure_input or in_pressure_raw in "${device.path}"`,
      );
    }
    return device;
  }
  for (const device of devices) {
    if (await pressureChannel(device.path)) {
      return device;
    }
  }
  throw new Error(
    `No IIO pressure device under "${options.root}" (found ${
      describe(devices)
    }): load the chip's kernel driver, or set PRESSURE_SENSOR=i2c:<chip>:<bus>:<address> or none`,
  );
}

/** The device folder at `path` (PRESSURE_IIO_DEVICE given as a full path). */
async function deviceAtPath(given: string): Promise<IioDevice> {
  const path = given.replace(/\/+$/, "") || "/";
  let isDirectory = false;
  try {
    isDirectory = (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (!isDirectory) {
    throw new Error(
      `IIO device folder "${given}" not found: expected a folder such as /sys/bus/iio/devices/iio:device0 (ls /sys/bus/iio/devices lists them)`,
    );
  }
  if (!(await pressureChannel(path))) {
    throw new Error(
      `IIO device "${given}" has no pressure channel: expected in_pressure_input or in_pressure_raw in "${path}"`,
    );
  }
  const folder = path.slice(path.lastIndexOf("/") + 1) || path;
  const name = (await readOptional(`${path}/name`))?.trim() ?? "";
  return { folder, path, name };
}

async function listDevices(root: string): Promise<IioDevice[]> {
  const folders: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (entry.name.startsWith("iio:device")) folders.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  folders.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return await Promise.all(folders.map(async (folder) => ({
    folder,
    path: `${root}/${folder}`,
    name: (await readOptional(`${root}/${folder}/name`))?.trim() ?? "",
  })));
}

function describe(devices: IioDevice[]): string {
  if (devices.length === 0) return "no IIO devices";
  return devices.map((d) => d.name ? `${d.folder} (${d.name})` : d.folder)
    .join(", ");
}

/** The channel file prefix (`in_pressure` or `in_pressure0`), if the device has one. */
async function pressureChannel(folder: string): Promise<string | undefined> {
  for await (const entry of Deno.readDir(folder)) {
    const match = /^(in_pressure\d*)_(input|raw)$/.exec(entry.name);
    if (match) return match[1];
  }
  return undefined;
}

async function readPressureKpa(folder: string): Promise<number> {
  const channel = await pressureChannel(folder);
  const input = await readOptional(`${folder}/${channel}_input`);
  if (input !== undefined) return parseNumber(input, `${channel}_input`);
  const raw = await readOptional(`${folder}/${channel}_raw`);
  if (raw === undefined) {
    throw new Error(`IIO pressure channel vanished from "${folder}"`);
  }
  const scale = await readOptional(`${folder}/${channel}_scale`) ??
    await readOptional(`${folder}/in_pressure_scale`);
  const offset = await readOptional(`${folder}/${channel}_offset`) ??
    await readOptional(`${folder}/in_pressure_offset`);
  return (parseNumber(raw, `${channel}_raw`) +
    (offset === undefined ? 0 : parseNumber(offset, `${channel}_offset`))) *
    (scale === undefined ? 1 : parseNumber(scale, `${channel}_scale`));
}

function parseNumber(text: string, file: string): number {
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isFinite(value)) {
    throw new Error(`Invalid IIO value "${text.trim()}" in ${file}`);
  }
  return value;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
