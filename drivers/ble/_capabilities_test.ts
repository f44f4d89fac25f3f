import assert from "node:assert/strict";
import { capabilityProblem, missingCapabilities } from "./_capabilities.ts";

Deno.test("missingCapabilities() reads CapEff", async (t) => {
  await t.step("none of them", () => {
    assert.deepEqual(
      missingCapabilities("Name:\tdeno\nCapEff:\t0000000000000000\n"),
      [
        "CAP_NET_RAW",
        "CAP_NET_ADMIN",
      ],
    );
  });
  await t.step("only CAP_NET_RAW (bit 13)", () => {
    assert.deepEqual(missingCapabilities("CapEff:\t0000000000002000\n"), [
      "CAP_NET_ADMIN",
    ]);
  });
  await t.step("root's full set", () => {
    assert.deepEqual(missingCapabilities("CapEff:\t000001ffffffffff\n"), []);
  });
  await t.step(
    "no CapEff line: cannot tell, so nothing is said missing",
    () => {
      assert.deepEqual(missingCapabilities("Name:\tdeno\n"), []);
    },
  );
});

Deno.test("capabilityProblem() says what is missing and how to grant it", async () => {
  const file = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(file, "CapEff:\t0000000000001000\n");
    assert.equal(
      (await capabilityProblem(file))?.message,
      'Bluetooth is unavailable: permission denied: this process lacks CAP_NET_RAW, which a Bluetooth scan needs: run it as root, give its systemd unit AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN, or run sudo setcap cap_net_raw,cap_net_admin+eip "$(command -v deno)"',
    );
    await Deno.writeTextFile(file, "CapEff:\t0000000000003000\n");
    assert.equal(await capabilityProblem(file), undefined);
  } finally {
    await Deno.remove(file);
  }
});
