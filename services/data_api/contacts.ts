/**
 * The data API's contact records: a fixed list of invented people, each with a phone
 * number drawn at random on every request.
 *
 * @module
 */

/** One contact as the data API answers it. */
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

/**
 * Returns a function producing the JSON text of the 20 contacts with fresh phones.
 * The fixed parts are encoded once, so each call only draws and joins the phones.
 *
 * @example
 * ```ts
 * const contactsJson = createContactsJson(Math.random);
 * JSON.parse(contactsJson()).length; // 20
 * ```
 */
export function createContactsJson(random: Random): () => string {
  const tails = PEOPLE.map((p) =>
    `","name":${JSON.stringify(p.name)},"email":${JSON.stringify(p.email)}}`
  );
  return () => {
    let json = "[";
    for (let i = 0; i < tails.length; i++) {
      json += (i === 0 ? '{"phone":"' : ',{"phone":"') + randomPhone(random) +
        tails[i];
    }
    return json + "]";
  };
}
