/**
 * The form of `POST {base}/write`: its fields, in the order they are sent.
 *
 * @module
 */

/** Form fields of `POST /write` in the order they are sent (`message` is the text). */
export const WRITE_FIELDS = [
  "apikey",
  "message",
  "font",
  "color",
  "backcolor",
  "backpattern",
  "shadows",
  "style",
  "visibility",
  "launcher",
] as const;

/** A form field of `POST /write`. */
export type WriteField = (typeof WRITE_FIELDS)[number];

/** Returns the form body with `message` and every field that was set. */
export function writeForm(
  fields: ReadonlyMap<WriteField, string>,
  message: string,
): URLSearchParams {
  const form = new URLSearchParams();
  for (const field of WRITE_FIELDS) {
    const value = field === "message" ? message : fields.get(field);
    if (value !== undefined) form.append(field, value);
  }
  return form;
}
