/**
 * The `messages` role (being built).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";

/** The `messages` role descriptor. */
export const messagesRole = defineRole({
  name: "messages",
  summary: "(not built yet)",
  settings: {},
  start() {
    return Promise.reject(new Error("The messages role is not built yet"));
  },
});
