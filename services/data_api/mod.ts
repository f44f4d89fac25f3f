/**
 * The `data-api` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `data-api` role descriptor. */
export const dataApiRole = defineRole({
  name: "data-api",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The data-api role is not built yet"));
  },
});
