/**
 * The `notifier` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `notifier` role descriptor. */
export const notifierRole = defineRole({
  name: "notifier",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The notifier role is not built yet"));
  },
});
