/**
 * The small BLE scanning interface `readTemperature()`'s timing logic depends
 * on, so it is tested with an injected scanner instead of a radio.
 *
 * @module
 */

/** One advertisement heard during a scan. */
export interface Advertisement {
  /** The sender's address as the scanner reports it (any case, colons or not). */
  readonly address: string;
  /** Manufacturer-specific data, when the advertisement carries some. */
  readonly manufacturerData?: Uint8Array;
  /** Service data entries (16-bit UUID such as `181a`, and the bytes after it). */
  readonly serviceData?: readonly ServiceData[];
}

/** One service data entry of an advertisement. */
export interface ServiceData {
  /** The service UUID as the scanner reports it (`181a`, any case). */
  readonly uuid: string;
  /** The payload after the UUID. */
  readonly data: Uint8Array;
}

/** A BLE scanner. */
export interface Scanner {
  /**
   * Starts scanning; every advertisement heard goes to `onAdvertisement`.
   *
   * @throws (rejects) with a clear message when Bluetooth is unavailable
   */
  start(onAdvertisement: (advertisement: Advertisement) => void): Promise<void>;
  /** Stops scanning; `start` may be called again. */
  stop(): Promise<void>;
  /** Stops scanning and releases the adapter for good. */
  close(): Promise<void>;
}
