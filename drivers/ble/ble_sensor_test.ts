import assert from "node:assert/strict";
import { decodeAdvertisement, parseBleSensors } from "./ble_sensor.ts";

Deno.test("parseBleSensors() reads name=kind:address entries", () => {
  assert.deepEqual(
    parseBleSensors(
      "kitchen=pvvx:A4:C1:38:00:11:22, bedroom=atc1441:a4c138334455,hall=bthome:A4-C1-38-66-77-88,old=beewi:AA:BB:CC:DD:EE:FF",
    ),
    [
      { name: "kitchen", kind: "pvvx", address: "a4c138001122" },
      { name: "bedroom", kind: "atc1441", address: "a4c138334455" },
      { name: "hall", kind: "bthome", address: "a4c138667788" },
      { name: "old", kind: "beewi", address: "aabbccddeeff" },
    ],
  );
});

Deno.test("parseBleSensors() names every malformed entry at once", () => {
  assert.throws(
    () =>
      parseBleSensors(
        "kitchen=xiaomi:A4:C1:38:00:11:22,hall=pvvx:nowhere,bad entry,kitchen=pvvx:A4:C1:38:00:11:22,a=bthome:A4:C1:38:00:11:23,a=pvvx:A4:C1:38:00:11:24",
      ),
    {
      message:
        '"kitchen=xiaomi:A4:C1:38:00:11:22": unknown kind "xiaomi" (expected beewi, pvvx, atc1441, bthome); "hall=pvvx:nowhere": "nowhere" is not a Bluetooth address such as AA:BB:CC:DD:EE:FF; "bad entry" is not name=kind:address (name of letters, digits, _ and -); "a=pvvx:A4:C1:38:00:11:24": the name "a" is used twice',
    },
  );
  assert.throws(() => parseBleSensors(" , "), /expected name=kind:address/);
});

Deno.test("parseBleSensors() reads the kind in any case, as the address", () => {
  assert.deepEqual(parseBleSensors("Kitchen=PVVX:A4:C1:38:00:11:22"), [
    { name: "Kitchen", kind: "pvvx", address: "a4c138001122" },
  ]);
  assert.throws(
    () => parseBleSensors("hall=Xiaomi:A4:C1:38:00:11:22"),
    {
      message:
        '"hall=Xiaomi:A4:C1:38:00:11:22": unknown kind "Xiaomi" (expected beewi, pvvx, atc1441, bthome)',
    },
  );
});

Deno.test("decodeAdvertisement() takes each kind's payload from its place", () => {
  const pvvx = Uint8Array.from([
    0x14,
    0x77,
    0xc6,
    0x38,
    0xc1,
    0xa4,
    0xfc,
    0xff,
    0xda,
    0x1c,
    0xd1,
    0x0a,
    0x3f,
    0x9d,
    0x0d,
  ]);
  const address = "a4:c1:38:c6:77:14";
  for (const uuid of ["181a", "181A", "0000181a-0000-1000-8000-00805f9b34fb"]) {
    assert.equal(
      decodeAdvertisement("pvvx", {
        address,
        serviceData: [{ uuid, data: pvvx }],
      })?.reading?.temperature,
      -0.04,
    );
  }
  // No payload of that kind: nothing to say (a scan response, another service).
  assert.equal(
    decodeAdvertisement("bthome", {
      address,
      serviceData: [{ uuid: "181a", data: pvvx }],
    }),
    undefined,
  );
  assert.equal(decodeAdvertisement("beewi", { address }), undefined);
  assert.match(
    decodeAdvertisement("beewi", {
      address,
      manufacturerData: Uint8Array.of(5, 0),
    })?.problem ?? "",
    /2 bytes of manufacturer data: expected 13/,
  );
  assert.deepEqual(
    decodeAdvertisement("beewi", {
      address,
      manufacturerData: Uint8Array.of(
        5,
        0,
        2,
        0,
        0xd7,
        0,
        2,
        55,
        5,
        0,
        0,
        0,
        92,
      ),
    }),
    { reading: { temperature: 21.5, humidity: 55, battery: 92 } },
  );
});
