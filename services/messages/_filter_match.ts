/**
 * A list filter applied to one record in memory, as the stores apply it in SQL, so
 * the change feed sends a subscriber the changes its list would show.
 *
 * @module
 */
import type { MessageFilter } from "./list_query.ts";
import type { Message } from "./message_store.ts";
import { foldCase } from "./_fold_case.ts";

const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * Whether `record` matches every condition of `filter` (exact texts, folded
 * substrings for `authorLike`, `messageLike` and `q`, id bounds).
 *
 * @example
 * ```ts
 * matchesFilter({ authorLike: ["bo"] }, { id: 1, author: "Bob", message: "hi" }); // true
 * ```
 */
export function matchesFilter(filter: MessageFilter, record: Message): boolean {
  const { id, author, message } = record;
  if (id < -MAX_ID || id > MAX_ID) return false;
  if (filter.id && !filter.id.includes(id)) return false;
  if (filter.author && !filter.author.includes(author)) return false;
  if (filter.message && !filter.message.includes(message)) return false;
  if (filter.idNot?.includes(id)) return false;
  if (filter.authorNot?.includes(author)) return false;
  if (filter.messageNot?.includes(message)) return false;
  if (filter.idMin !== undefined && id < filter.idMin) return false;
  if (filter.idMax !== undefined && id > filter.idMax) return false;
  const folded = (text: string) => foldCase(text);
  if (
    filter.authorLike &&
    !filter.authorLike.some((needle) => folded(author).includes(needle))
  ) return false;
  if (
    filter.messageLike &&
    !filter.messageLike.some((needle) => folded(message).includes(needle))
  ) return false;
  if (
    filter.q !== undefined &&
    !folded(author).includes(filter.q) && !folded(message).includes(filter.q)
  ) return false;
  return true;
}
