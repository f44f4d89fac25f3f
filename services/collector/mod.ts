/**
 * The `collector` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `collector` role descriptor. */
export const collectorRole = defineRole({
  name: "collector",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The collector role is not built yet"));
  },
});
