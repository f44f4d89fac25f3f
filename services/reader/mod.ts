/**
 * The `reader` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `reader` role descriptor. */
export const readerRole = defineRole({
  name: "reader",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The reader role is not built yet"));
  },
});
