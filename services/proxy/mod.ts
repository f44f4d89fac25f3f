/**
 * The `proxy` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `proxy` role descriptor. */
export const proxyRole = defineRole({
  name: "proxy",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The proxy role is not built yet"));
  },
});
