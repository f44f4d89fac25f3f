import assert from "node:assert/strict";
import { normalizeBluetoothAddress } from "./bluetooth_address.ts";

Deno.test("normalizeBluetoothAddress() accepts any case with or without separators", () => {
  for (
    const address of [
      "AA:BB:CC:DD:EE:0F",
      "aa-bb-cc-dd-ee-0f",
      "AABBCCDDEE0F",
      " aa:bb:cc:dd:ee:0f ",
    ]
  ) {
    assert.equal(normalizeBluetoothAddress(address), "aabbccddee0f");
  }
});

Deno.test("normalizeBluetoothAddress() rejects what is not a Bluetooth address", () => {
  for (
    const address of [
      "",
      "AA:BB:CC:DD:EE",
      "AA:BB:CC:DD:EE:GG",
      "AAB:BCC:DDE:EFF",
      "AA:BB:CC:DD:EE:FF:00",
    ]
  ) {
    assert.equal(normalizeBluetoothAddress(address), undefined, address);
  }
});
