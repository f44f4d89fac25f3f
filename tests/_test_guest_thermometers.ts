/**
 * The virtual BLE thermometers of the kernel suites: each one's advertising data and
 * what it says, the bash functions that make a `btvirt` controller advertise it, and
 * the points a collector pass stored. Used by tests/kernel_ble_test.ts and
 * tests/kernel_aarch64_test.ts.
 *
 * @module
 */
import { storedLines } from "./_test_guest_script.ts";

/** A virtual thermometer: its name, frame kind, AD structures (hex) and readings. */
export interface Thermometer {
  name: string;
  kind: string;
  ad: string;
  fields: { temperature: number; humidity: number; battery: number };
}

/** Each thermometer's advertising data (AD structures, hex) and what it says. */
export const THERMOMETERS: readonly Thermometer[] = [
  {
    name: "kitchen",
    kind: "pvvx",
    // Service data 0x181A, 15 bytes: MAC, 21.50 °C, 45.67 %, 2950 mV, 80 %, counter 1.
    ad: "12161a18" + "01000038c1a4" + "6608" + "d711" + "860b" + "50" + "01" +
      "00",
    fields: { temperature: 21.5, humidity: 45.67, battery: 80 },
  },
  {
    name: "bedroom",
    kind: "atc1441",
    // Service data 0x181A, 13 bytes: MAC, 21.5 °C, 45 %, 75 %, 2950 mV, counter 2.
    ad: "10161a18" + "a4c138000002" + "00d7" + "2d" + "4b" + "0b86" + "02",
    fields: { temperature: 21.5, humidity: 45, battery: 75 },
  },
  {
    name: "hall",
    kind: "bthome",
    // Service data 0xFCD2, BTHome v2: battery 90 %, 25.00 °C, 50.55 %.
    ad: "0c16d2fc" + "40" + "015a" + "02c409" + "03bf13",
    fields: { temperature: 25, humidity: 50.55, battery: 90 },
  },
  {
    name: "cellar",
    kind: "beewi",
    // Manufacturer data, 13 bytes: 21.5 °C, 55 %, 92 %.
    ad: "0eff" + "05000200" + "d700" + "0237" + "05000000" + "5c",
    fields: { temperature: 21.5, humidity: 55, battery: 92 },
  },
];

/**
 * Bash functions for the guest script: `bt ARGS...` runs `btmgmt ARGS` (which prints,
 * and for some commands acts, only on a terminal: script(1) gives it one), and
 * `addr INDEX` prints that controller's address.
 */
export const BTMGMT_FUNCTIONS =
  `bt() { script -qec "btmgmt $*" /dev/null </dev/null | tr -d '\\r'; }
addr() { bt --index "$1" info | sed -n 's/^\\s*addr \\([0-9A-F:]\\{17\\}\\).*/\\1/p' | head -n 1; }`;

/**
 * Script lines that power on controller `first + i` for each thermometer, make it
 * advertise the thermometer's frame from its own address, and set
 * `ADDRESS_<name>` (printed as `@@address <name> <address>`).
 */
export function advertiseLines(
  thermometers: readonly Thermometer[],
  first: number,
): string {
  return thermometers.map((t, i) =>
    `bt --index ${first + i} power on
bt --index ${first + i} add-adv -c -d ${t.ad} 1
ADDRESS_${t.name}=$(addr ${first + i})
echo "@@address ${t.name} $ADDRESS_${t.name}"`
  ).join("\n");
}

/** The fields of the points stored for `database`, by measurement and sensor. */
export async function storedPoints(
  jobDir: string,
  database: string,
): Promise<Map<string, number>> {
  const points = new Map<string, number>();
  for (const line of await storedLines(jobDir, database)) {
    const [series, fields] = line.split(" ");
    const tags = Object.fromEntries(
      series!.split(",").slice(1).map((tag) => tag.split("=")),
    );
    const value = /(?:^|,)value=([^,]+)/.exec(fields!)?.[1];
    points.set(
      `${series!.split(",")[0]} ${tags.sensor ?? "-"}`,
      Number(value),
    );
  }
  return points;
}
