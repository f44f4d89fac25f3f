/**
 * The `table` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `table` role descriptor. */
export const tableRole = defineRole({
  name: "table",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The table role is not built yet"));
  },
});
