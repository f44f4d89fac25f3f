import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import type {
  BeeWiReading,
  readTemperature,
} from "../../drivers/ble/read_temperature.ts";
import { READER_USAGE, startReader } from "./start_reader.ts";

function harness(read: typeof readTemperature, address?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const log = createMemoryLog();
  const running = startReader({
    address,
    timeoutMs: 20_000,
    read,
    write: (line) => out.push(line),
    writeError: (line) => err.push(line),
    log,
  });
  return { running, out, err, log };
}

const reading = (temperature: number): typeof readTemperature => () =>
  Promise.resolve<BeeWiReading>({ temperature, humidity: 50, battery: 90 });

Deno.test("startReader() prints the temperature with one decimal as a string", async () => {
  for (
    const [temperature, text] of [[21.5, "21.5"], [20, "20.0"], [
      -5.3,
      "-5.3",
    ]] as const
  ) {
    const { running, out, err } = harness(
      reading(temperature),
      "AA:BB:CC:DD:EE:FF",
    );
    assert.equal(await running.done, 0);
    assert.deepEqual(out, [`{"temperature":"${text}"}`]);
    assert.deepEqual(err, []);
  }
});

Deno.test("startReader() passes the address and time-out to the read", async () => {
  const calls: unknown[] = [];
  const { running } = harness((address, options) => {
    calls.push([
      address,
      options?.timeoutMs,
      options?.signal instanceof AbortSignal,
    ]);
    return Promise.resolve(undefined);
  }, "aabbccddeeff");
  assert.equal(await running.done, 0);
  assert.deepEqual(calls, [["aabbccddeeff", 20_000, true]]);
});

Deno.test("startReader() ends silently with 0 when no reading arrives", async () => {
  const { running, out, err, log } = harness(
    () => Promise.resolve(undefined),
    "AA:BB:CC:DD:EE:FF",
  );
  assert.equal(await running.done, 0);
  assert.deepEqual([out, err, log.at("ERROR")], [[], [], []]);
});

Deno.test("startReader() prints the usage and ends with 2 without a valid address", async () => {
  const read = () => Promise.reject(new Error("must not scan"));
  const missing = harness(read);
  assert.equal(await missing.running.done, 2);
  assert.deepEqual(missing.err, [READER_USAGE]);
  assert.deepEqual(missing.out, []);
  const malformed = harness(read, "kitchen");
  assert.equal(await malformed.running.done, 2);
  assert.deepEqual(malformed.err, [
    'Invalid address "kitchen": expected a Bluetooth address such as AA:BB:CC:DD:EE:FF',
    READER_USAGE,
  ]);
});

Deno.test("startReader() logs an unavailable adapter at ERROR and ends with 1", async () => {
  const { running, out, log } = harness(
    () =>
      Promise.reject(
        new Error('Bluetooth is unavailable: adapter state "unsupported"'),
      ),
    "AA:BB:CC:DD:EE:FF",
  );
  assert.equal(await running.done, 1);
  assert.deepEqual(out, []);
  assert.deepEqual(log.at("ERROR"), [
    'Cannot read the thermometer AA:BB:CC:DD:EE:FF: Bluetooth is unavailable: adapter state "unsupported"',
  ]);
});

Deno.test("startReader() stop() aborts the scan and ends quietly", async () => {
  const { running, out, log } = harness(
    (_address, options) =>
      new Promise((_resolve, reject) => {
        options?.signal?.addEventListener("abort", () =>
          reject(options.signal?.reason));
      }),
    "AA:BB:CC:DD:EE:FF",
  );
  await running.stop();
  assert.equal(await running.done, 0);
  assert.deepEqual([out, log.at("ERROR")], [[], []]);
});
