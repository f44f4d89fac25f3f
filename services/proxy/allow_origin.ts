/**
 * The `PROXY_ALLOW_ORIGIN` setting: what a browser accepts in
 * `Access-Control-Allow-Origin`.
 *
 * @module
 */
import { custom, type Setting } from "../../lib/settings.ts";

/**
 * Checks an `Access-Control-Allow-Origin` value: `*`, or one origin written as
 * browsers send it in `Origin` (scheme, host and port, lower case, no default port,
 * no slash), which they compare byte for byte. Throws with the fix otherwise (a list,
 * with a comma or a space, is refused without a suggestion).
 */
export function parseAllowOrigin(raw: string): string {
  if (raw === "*") return raw;
  // Most likely a list: the header holds one value, and no origin is worth suggesting.
  if (/[,\s]/.test(raw)) {
    throw new Error(
      "expected * or one origin such as https://app.example.com: only one origin (or *) is supported, and the value holds a comma or a space",
    );
  }
  let origin: string | undefined;
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") {
      origin = url.origin;
    }
  } catch {
    // not a URL
  }
  if (origin === raw) return raw;
  const hint = origin === undefined ? "" : ` (did you mean "${origin}"?)`;
  throw new Error(
    `expected * or one origin such as https://app.example.com: scheme, host and port only, as the browser sends it${hint}`,
  );
}

/** The setting, default `*`. */
export function allowOrigin(
  options: { description: string },
): Setting<string> {
  return custom({ ...options, default: "*" }, parseAllowOrigin);
}
