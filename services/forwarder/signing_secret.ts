/**
 * The `FORWARD_SIGNING_SECRET` setting and its `_FILE` twin: a Standard Webhooks
 * secret, `whsec_` followed by the base64 of the key.
 *
 * @module
 */
import { custom, type Setting } from "../../lib/settings.ts";

const PREFIX = "whsec_";
/** Standard base64, its padding optional. */
const BASE64 =
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/**
 * Decodes a Standard Webhooks secret into the HMAC key. The error never holds the
 * value: it says what was expected.
 *
 * @throws {Error} when `raw` is not `whsec_` followed by base64 of at least one byte.
 * @example
 * ```ts
 * parseSigningSecret("whsec_c2VjcmV0"); // the bytes of "secret"
 * ```
 */
export function parseSigningSecret(raw: string): Uint8Array {
  const encoded = raw.startsWith(PREFIX) ? raw.slice(PREFIX.length) : undefined;
  if (encoded === undefined || encoded === "" || !BASE64.test(encoded)) {
    throw new Error(
      `expected "${PREFIX}" followed by the base64 of the key, as Standard Webhooks secrets are written`,
    );
  }
  const binary = atob(encoded.padEnd(Math.ceil(encoded.length / 4) * 4, "="));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** A secret setting holding a Standard Webhooks secret: never quoted in a message. */
export function signingSecret(
  options: { description: string },
): Setting<Uint8Array> {
  return custom(
    { ...options, secret: true },
    parseSigningSecret,
  );
}

/**
 * A setting naming a file that holds a Standard Webhooks secret (container secrets);
 * the file is read once, at start-up, blanks around the secret ignored. The path is
 * quoted in a message, never the file's content.
 */
export function signingSecretFile(
  options: { description: string },
  readFile: (path: string) => string = Deno.readTextFileSync,
): Setting<Uint8Array> {
  return custom({ ...options, secretFile: true }, (path) => {
    let text: string;
    try {
      text = readFile(path);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`cannot read the file: ${reason}`);
    }
    try {
      return parseSigningSecret(text.trim());
    } catch (error) {
      throw new Error(
        `the file does not hold a signing secret: ${(error as Error).message}`,
      );
    }
  });
}
