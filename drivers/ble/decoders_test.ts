/**
 * The advertisement decoders against the example frames their publications give: the
 * pvvx firmware's (a frame its author decoded in
 * https://github.com/pvvx/ATC_MiThermometer/issues/13), the
 * atc1441 README's placeholder frame, and the BTHome v2 format's object examples and
 * a full frame decoded by its maintainers.
 */
import assert from "node:assert/strict";
import { decodeAtc1441 } from "./atc1441.ts";
import { decodeBtHome } from "./bthome.ts";
import { decodePvvx } from "./pvvx.ts";

function hex(text: string): Uint8Array {
  const clean = text.replace(/[^0-9a-f]/gi, "");
  return Uint8Array.from(
    clean.match(/../g)!.map((pair) => parseInt(pair, 16)),
  );
}

Deno.test("decodePvvx() reads the pvvx custom format (0x181A, little-endian, 0.01 units)", () => {
  // Service data after the UUID 1a18: MAC a4:c1:38:c6:77:14 reversed, then
  // temperature 0xfffc, humidity 0x1cda, 0x0ad1 mV, 63 %, counter 157, flags 0x0d.
  assert.deepEqual(decodePvvx(hex("1477c638c1a4 fcff da1c d10a 3f 9d 0d")), {
    reading: {
      temperature: -0.04,
      humidity: 73.86,
      voltage: 2.769,
      battery: 63,
      counter: 157,
    },
  });
  assert.deepEqual(
    decodePvvx(hex("1477c638c1a4 f4ff 041d cb0a 3e af 0d")).reading,
    {
      temperature: -0.12,
      humidity: 74.28,
      voltage: 2.763,
      battery: 62,
      counter: 175,
    },
  );
});

Deno.test("decodeAtc1441() reads the atc1441 format (0x181A, big-endian, 0.1 °C)", () => {
  // The README's frame, with its placeholder bytes: MAC 00 x6, temperature aa aa,
  // humidity bb, battery cc, millivolts dd dd, counter 00.
  assert.deepEqual(
    decodeAtc1441(hex("000000000000 aaaa bb cc dddd 00")).reading,
    {
      temperature: -2184.6,
      humidity: 0xbb,
      battery: 0xcc,
      voltage: 56.797,
      counter: 0,
    },
  );
  // A frame of a LYWSD03MMC at 21.0 °C, 55 %, 94 %, 2955 mV, counter 10.
  assert.deepEqual(
    decodeAtc1441(hex("a4c138c67714 00d2 37 5e 0b8b 0a")).reading,
    { temperature: 21, humidity: 55, battery: 94, voltage: 2.955, counter: 10 },
  );
  // Below zero: -1.6 °C is 0xfff0 (signed).
  assert.equal(
    decodeAtc1441(hex("a4c138c67714 fff0 37 5e 0b8b 0a")).reading?.temperature,
    -1.6,
  );
});

Deno.test("decodeBtHome() reads the BTHome v2 objects of the format's examples", async (t) => {
  await t.step(
    "a full frame: packet id, battery, temperature, humidity, voltage",
    () => {
      assert.deepEqual(decodeBtHome(hex("40 003f 015e 028208 03ac17 0c830b")), {
        reading: {
          counter: 63,
          battery: 94,
          temperature: 21.78,
          humidity: 60.6,
          voltage: 2.947,
        },
      });
    },
  );
  const examples: [string, Record<string, number>][] = [
    ["0009 0161", { counter: 9, battery: 97 }],
    ["02CA09", { temperature: 25.06 }],
    ["451101", { temperature: 27.3 }],
    ["03BF13", { humidity: 50.55 }],
    ["2E23", { humidity: 35 }],
    ["04138A01", { pressure: 1008.83 }],
    ["0C020C", { voltage: 3.074 }],
  ];
  for (const [objects, reading] of examples) {
    await t.step(`object ${objects}`, () => {
      assert.deepEqual(decodeBtHome(hex(`40 ${objects}`)).reading, reading);
    });
  }
  await t.step(
    "skips objects it does not keep, and trigger-based frames",
    () => {
      // illuminance 0x05 (3 bytes), a text 0x53 of 3 bytes, then a temperature.
      assert.deepEqual(
        decodeBtHome(hex("44 05138A14 5303414243 02CA09")).reading,
        { temperature: 25.06 },
      );
    },
  );
  await t.step("a negative temperature", () => {
    assert.equal(decodeBtHome(hex("40 0218FC")).reading?.temperature, -10);
  });
});

Deno.test("the decoders report malformed and truncated frames, never throw", () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      "pvvx short",
      () => decodePvvx(hex("1477c638c1a4fcff")),
      /8 bytes of 0x181A service data: expected 15/,
    ],
    [
      "pvvx given atc1441",
      () => decodePvvx(hex("a4c138c6771400d2375e0b8b0a")),
      /the sensor sends the atc1441 format/,
    ],
    [
      "atc1441 empty",
      () => decodeAtc1441(new Uint8Array()),
      /0 bytes of 0x181A service data: expected 13/,
    ],
    [
      "atc1441 given pvvx",
      () => decodeAtc1441(hex("1477c638c1a4fcffda1cd10a3f9d0d")),
      /the sensor sends the pvvx custom format/,
    ],
    [
      "bthome empty",
      () => decodeBtHome(new Uint8Array()),
      /empty BTHome service data/,
    ],
    [
      "bthome truncated",
      () => decodeBtHome(hex("40 02CA")),
      /BTHome object 0x02 at byte 1 truncated: 1 of 2 bytes/,
    ],
    [
      "bthome truncated text",
      () => decodeBtHome(hex("40 5309 41")),
      /object 0x53 at byte 1 truncated/,
    ],
    [
      "bthome length byte missing",
      () => decodeBtHome(hex("40 0161 53")),
      /object 0x53 at byte 3 truncated/,
    ],
    [
      "bthome encrypted",
      () => decodeBtHome(hex("41 02CA09")),
      /encrypted BTHome frame/,
    ],
    [
      "bthome v1",
      () => decodeBtHome(hex("20 02CA09")),
      /BTHome version 1 .*expected version 2/,
    ],
    [
      "bthome unknown",
      () => decodeBtHome(hex("40 FE0102")),
      /unknown BTHome object id 0xFE at byte 1/,
    ],
    [
      "bthome no measurement",
      () => decodeBtHome(hex("40 0009")),
      /without a measurement/,
    ],
  ];
  for (const [name, decode, problem] of cases) {
    const decoded = decode() as { problem?: string; reading?: unknown };
    assert.equal(decoded.reading, undefined, name);
    assert.match(decoded.problem ?? "", problem, name);
  }
  // Known objects first, then a newer one: the readings before it are kept.
  assert.deepEqual(decodeBtHome(hex("40 02CA09 FE01")).reading, {
    temperature: 25.06,
  });
});
