/**
 * The `forwarder` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `forwarder` role descriptor. */
export const forwarderRole = defineRole({
  name: "forwarder",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The forwarder role is not built yet"));
  },
});
