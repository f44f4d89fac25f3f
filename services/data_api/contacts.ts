/**
 * The data API's contact records: a fixed list of invented people, each with a phone
 * number drawn at random on every request.
 *
 * @module
 */

/** One contact as the data API returns it. */
export interface Contact {
  /** `+1 <area>-<prefix>-<line>`, drawn at random. */
  phone: string;
  /** Full name (fixed). */
  name: string;
  /** E-mail address under example.com (fixed). */
  email: string;
}

/** Our own invented people; the e-mail addresses are under `example.com`. */
export const PEOPLE: readonly Readonly<Omit<Contact, "phone">>[] = [
  ["Ada Thornbury", "ada.thornbury"],
  ["Bruno Kestrel", "bruno.kestrel"],
  ["Celia Marrow", "celia.marrow"],
  ["Dmitri Fallow", "dmitri.fallow"],
  ["Edith Quarry", "edith.quarry"],
  ["Felix Ambergate", "felix.ambergate"],
  ["Greta Lindqvist-Oduya", "greta.lindqvist"],
  ["Hector Penhallow", "hector.penhallow"],
  ["Ines Corrander", "ines.corrander"],
  ["Jonah Vellacott", "jonah.vellacott"],
  ["Keiko Ashgrove", "keiko.ashgrove"],
  ["Lucien Brackwater", "lucien.brackwater"],
  ["Mirela Stoyanova-Hale", "mirela.hale"],
  ["Nils Harrowgate", "nils.harrowgate"],
  ["Olufemi Castleby", "olufemi.castleby"],
  ["Priya Wendover", "priya.wendover"],
  ["Quentin Roseveare", "quentin.roseveare"],
  ["Rosalind Tiverton", "rosalind.tiverton"],
  ["Soren Blackmoor", "soren.blackmoor"],
  ["Talia Fernsby", "talia.fernsby"],
].map(([name, user]) => ({ name: name!, email: `${user}@example.com` }));

/** A source of uniform numbers in `[0, 1)`, like `Math.random`. */
export type Random = () => number;

function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/**
 * Draws a phone number `+1 <area>-<prefix>-<line>`: area 200-999, prefix 100-999,
 * line 1000-9999.
 *
 * @example
 * ```ts
 * randomPhone(Math.random); // "+1 415-555-1234"
 * ```
 */
export function randomPhone(random: Random): string {
  return `+1 ${between(random, 200, 999)}-${between(random, 100, 999)}-${
    between(random, 1000, 9999)
  }`;
}

/** Where the digits of each part of `+1 AAA-PPP-LLLL` start, and their ranges. */
const PHONE_PARTS = [
  { at: 3, min: 200, max: 999, width: 3 },
  { at: 7, min: 100, max: 999, width: 3 },
  { at: 11, min: 1000, max: 9999, width: 4 },
] as const;

/** Responses carved out of one pooled buffer before a new one is allocated. */
const RESPONSES_PER_POOL = 64;

/**
 * Returns a function producing the UTF-8 JSON of the 20 contacts with fresh phones.
 *
 * This is the data API's hot path, so it allocates almost nothing: every phone has
 * the same length, the JSON is encoded once as a template, and each call copies the
 * template into the next free slice of a pooled buffer and writes the new digits in
 * place. A slice is never reused, so an body still being sent is never overwritten.
 *
 * @example
 * ```ts
 * const contactsJson = createContactsJson(Math.random);
 * JSON.parse(new TextDecoder().decode(contactsJson())).length; // 20
 * ```
 */
export function createContactsJson(
  random: Random,
): () => Uint8Array<ArrayBuffer> {
  const placeholder = "+1 000-000-0000";
  const json = JSON.stringify(
    PEOPLE.map((p) => ({ phone: placeholder, ...p })),
  );
  const template = new TextEncoder().encode(json);
  const phoneOffsets: number[] = [];
  // The names and e-mails are ASCII, so character offsets are byte offsets.
  for (
    let at = json.indexOf(placeholder);
    at !== -1;
    at = json.indexOf(placeholder, at + 1)
  ) {
    phoneOffsets.push(at);
  }
  let pool = new Uint8Array(0);
  let used = 0;
  return () => {
    if (used + template.length > pool.length) {
      pool = new Uint8Array(template.length * RESPONSES_PER_POOL);
      used = 0;
    }
    const body = pool.subarray(used, used + template.length);
    used += template.length;
    body.set(template);
    for (const offset of phoneOffsets) {
      for (const part of PHONE_PARTS) {
        let value = between(random, part.min, part.max);
        for (
          let i = offset + part.at + part.width - 1;
          i >= offset + part.at;
          i--
        ) {
          body[i] = 48 + value % 10;
          value = (value / 10) | 0;
        }
      }
    }
    return body;
  };
}
