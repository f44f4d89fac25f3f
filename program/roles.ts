/**
 * The role registry: every role `main.ts` can start. Adding a role is one line here.
 *
 * @module
 */
import type { RoleDescriptor } from "../lib/role.ts";
import { forwarderRole } from "../services/forwarder/mod.ts";
import { messagesRole } from "../services/messages/mod.ts";
import { proxyRole } from "../services/proxy/mod.ts";
import { dataApiRole } from "../services/data_api/mod.ts";
import { tableRole } from "../services/table/mod.ts";
import { collectorRole } from "../services/collector/mod.ts";
import { readerRole } from "../services/reader/mod.ts";
import { notifierRole } from "../services/notifier/mod.ts";

/** Every role, in the order `--help` lists them. */
export const ROLES: readonly RoleDescriptor[] = [
  forwarderRole,
  messagesRole,
  proxyRole,
  dataApiRole,
  tableRole,
  collectorRole,
  readerRole,
  notifierRole,
];
