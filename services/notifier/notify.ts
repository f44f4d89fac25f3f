/**
 * Fans a message out to the targets its tag filter selects, concurrently, once per
 * de-duplication window, logging each outcome.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { preview } from "../../lib/preview.ts";
import type { Dedupe } from "./dedupe.ts";
import type { Deliver, Delivery } from "./deliver.ts";
import type { TaggedTarget } from "./target_settings.ts";
import type { Message } from "./targets/mod.ts";
import type { NotifierMetrics } from "./notifier_metrics.ts";

/** What became of a message. */
export type NotifyOutcome =
  | { readonly kind: "deduplicated" }
  | { readonly kind: "no-target" }
  | { readonly kind: "sent"; readonly deliveries: readonly Delivery[] };

/** Sends `message` to the targets `tag` selects (all when absent). */
export type Notify = (message: Message, tag?: string) => Promise<NotifyOutcome>;

/** Options of {@linkcode createNotify}. */
export interface NotifyOptions {
  /** Every configured target. */
  targets: readonly TaggedTarget[];
  /** Sends to one target. */
  deliver: Deliver;
  /** Recent messages. */
  dedupe: Dedupe;
  /** Where outcomes are logged. */
  log: Log;
  /** Where outcomes are counted. @default none */
  metrics?: NotifierMetrics;
}

/**
 * Returns a {@linkcode Notify}. A title, body and type goes to each target once
 * within the window: a repeat goes only to the selected targets it has not reached
 * (and is not sent at all, logged at INFO, when it reached them all); when a target
 * fails, the message is forgotten for that target, so that the client's retry
 * reaches it.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * import type { Dedupe } from "./dedupe.ts";
 * import type { Deliver } from "./deliver.ts";
 * import type { TaggedTarget } from "./target_settings.ts";
 *
 * declare const targets: TaggedTarget[], deliver: Deliver, dedupe: Dedupe;
 * const notify = createNotify({ targets, deliver, dedupe, log: createLog("notifier") });
 * const outcome = await notify({ title: "Door", body: "Opened", type: "info" }, "home");
 * ```
 */
export function createNotify(options: NotifyOptions): Notify {
  const { targets, deliver, dedupe, log, metrics } = options;
  return async (message, tag) => {
    // A note without a title is named by its body in the log.
    const name = preview(message.title || message.body);
    const selected = targets.filter((t) => matchesTag(t.tags, tag));
    if (selected.length === 0) return { kind: "no-target" };
    // One key per target: a repeat goes only to the targets it has not reached
    // (another tag's), and a failed target alone is forgotten for the retry.
    const keyOf = (target: TaggedTarget) =>
      JSON.stringify([
        message.title,
        message.body,
        message.type,
        targets.indexOf(target),
      ]);
    const fresh = selected.filter((t) => dedupe.claim(keyOf(t)));
    if (fresh.length < selected.length) {
      metrics?.deduplicated(selected.length - fresh.length);
      const skipped = selected.filter((t) => !fresh.includes(t))
        .map((t) => t.target.display).join(", ");
      log.info(
        `Not sending note "${name}" again to ${skipped}: the same note was sent within NOTIFIER_DEDUPE_MS`,
      );
    }
    if (fresh.length === 0) return { kind: "deduplicated" };
    let deliveries: Delivery[];
    try {
      deliveries = await Promise.all(
        fresh.map(({ target }) => deliver(target, message)),
      );
    } catch (error) {
      // Not sent (an unexpected error, returned 500): a retry must go through.
      for (const t of fresh) dedupe.release(keyOf(t));
      throw error;
    }
    deliveries.forEach((delivery, index) => {
      metrics?.note(
        fresh[index]!.target.scheme,
        delivery.ok ? "sent" : "failed",
      );
      if (delivery.ok) {
        log.info(`Sent note "${name}" to ${delivery.target}`);
      } else {
        log.warn(
          `Cannot send note "${name}": ${delivery.error} (${delivery.target})`,
        );
        dedupe.release(keyOf(fresh[index]!));
      }
    });
    return { kind: "sent", deliveries };
  };
}

/**
 * Whether a target with `tags` is selected by the filter `tag`, as Apprise reads it:
 * commas separate alternatives, blanks (or `+`) join tags that must all be present;
 * `all` selects every target; no filter selects every target.
 *
 * @example
 * ```ts
 * matchesTag(new Set(["home", "door"]), "garage, home door"); // true
 * ```
 */
export function matchesTag(tags: ReadonlySet<string>, tag?: string): boolean {
  const groups = (tag ?? "").split(",")
    .map((group) =>
      group.split(/[\s+]+/).filter((t) => t !== "").map((t) => t.toLowerCase())
    )
    .filter((group) => group.length > 0);
  if (groups.length === 0) return true;
  return groups.some((group) => group.every((t) => t === "all" || tags.has(t)));
}
