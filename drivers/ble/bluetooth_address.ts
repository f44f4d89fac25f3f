/**
 * Bluetooth device addresses as users type them and as scanners report them.
 *
 * @module
 */

/**
 * Returns the address as 12 lower-case hex digits, or `undefined` when it is not a
 * Bluetooth address. Colons or dashes between the pairs are optional.
 *
 * @example
 * ```ts
 * normalizeBluetoothAddress("AA:BB:CC:DD:EE:FF"); // "aabbccddeeff"
 * normalizeBluetoothAddress("aabbccddeeff"); // "aabbccddeeff"
 * ```
 */
export function normalizeBluetoothAddress(
  address: string,
): string | undefined {
  const value = address.trim().toLowerCase();
  if (
    !/^[0-9a-f]{12}$/.test(value) &&
    !/^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/.test(value)
  ) {
    return undefined;
  }
  return value.replace(/[:-]/g, "");
}
