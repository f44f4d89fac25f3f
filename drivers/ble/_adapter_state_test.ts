import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import FakeTimers from "@sinonjs/fake-timers";
import {
  type AdapterState,
  linuxHasNoAdapter,
  type StateSource,
  waitForPoweredOn,
} from "./_adapter_state.ts";

/** A stand-in for noble's state events. */
function states() {
  const emitter = new EventEmitter();
  return {
    source: emitter as unknown as StateSource,
    emit: (state: AdapterState) => emitter.emit("stateChange", state),
    listeners: () => emitter.listenerCount("stateChange"),
  };
}

/** Tracks a promise's outcome without awaiting it. */
function track(promise: Promise<void>) {
  const state: { settled: boolean; error?: Error } = { settled: false };
  promise.then(
    () => state.settled = true,
    (error: Error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

Deno.test("waitForPoweredOn() does not take a passing poweredOff for the cause", async (t) => {
  const clock = FakeTimers.install({ now: 0 });
  try {
    await t.step(
      "noble without an adapter: poweredOff, then unsupported 1 s later",
      async () => {
        const { source, emit, listeners } = states();
        const outcome = track(waitForPoweredOn(source, "poweredOff").ready);
        await clock.tickAsync(1000);
        assert.equal(outcome.settled, false);
        emit("unsupported");
        await clock.tickAsync(0);
        assert.equal(
          outcome.error?.message,
          'Bluetooth is unavailable: no Bluetooth LE adapter found (adapter state "unsupported")',
        );
        assert.equal(listeners(), 0);
      },
    );
    await t.step("an adapter that stays powered off", async () => {
      const { source, listeners } = states();
      const outcome = track(
        waitForPoweredOn(source, "poweredOff", { offSettleMs: 1500 }).ready,
      );
      await clock.tickAsync(1499);
      assert.equal(outcome.settled, false);
      await clock.tickAsync(1);
      assert.equal(
        outcome.error?.message,
        'Bluetooth is unavailable: the adapter is powered off (rfkill unblock bluetooth) (adapter state "poweredOff")',
      );
      assert.equal(listeners(), 0);
    });
    await t.step("an adapter that powers on after a moment", async () => {
      const { source, emit } = states();
      const outcome = track(waitForPoweredOn(source, "unknown").ready);
      emit("poweredOff");
      await clock.tickAsync(500);
      emit("poweredOn");
      await clock.tickAsync(0);
      assert.deepEqual(outcome, { settled: true });
      await clock.tickAsync(5000);
      assert.equal(outcome.error, undefined);
    });
    await t.step(
      "unauthorized is final at once; cancel ends a wait",
      async () => {
        const { source, emit } = states();
        const refused = track(waitForPoweredOn(source, "unknown").ready);
        emit("unauthorized");
        await clock.tickAsync(0);
        assert.match(refused.error!.message, /permission denied/);
        const wait = waitForPoweredOn(source, "resetting");
        const cancelled = track(wait.ready);
        wait.cancel(new Error("closed"));
        await clock.tickAsync(0);
        assert.equal(cancelled.error?.message, "closed");
      },
    );
  } finally {
    clock.uninstall();
  }
});

Deno.test({
  name:
    "linuxHasNoAdapter() tells a missing or empty adapter list from one with entries",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const sysfs = await Deno.makeTempDir({ prefix: "homewire-sysfs-" });
    try {
      assert.equal(await linuxHasNoAdapter(`${sysfs}/bluetooth`), true);
      await Deno.mkdir(`${sysfs}/bluetooth`);
      assert.equal(await linuxHasNoAdapter(`${sysfs}/bluetooth`), true);
      await Deno.mkdir(`${sysfs}/bluetooth/hci0`);
      assert.equal(await linuxHasNoAdapter(`${sysfs}/bluetooth`), false);
      // No sysfs at all: cannot tell, so noble is asked.
      assert.equal(await linuxHasNoAdapter(`${sysfs}/none/bluetooth`), false);
    } finally {
      await Deno.remove(sysfs, { recursive: true });
    }
  },
});
