/**
 * Client library for the styled-message (gzaas) API: list fonts, styles and
 * background patterns, and create full-screen styled messages.
 *
 * Web-standard APIs only (fetch, AbortController, URLSearchParams): usable from Deno,
 * Node 18+ and browsers; nothing here depends on the rest of homewire.
 *
 * Layout: `clients/gzaas/` imports nothing outside its folder (`tests/layout_test.ts`
 * checks it), so it can be copied or bundled alone.
 *
 * @example
 * ```ts
 * import { Gzaas, GzaasError } from "@homewire/homewire/gzaas";
 *
 * const gzaas = new Gzaas().setApiKey("my-key").setStyle("retro");
 * try {
 *   console.log(await gzaas.create("Dinner is ready"));
 * } catch (error) {
 *   if (error instanceof GzaasError) console.error(error.kind, error.status, error.errorMessage);
 * }
 * ```
 *
 * @module
 */
export {
  Gzaas,
  GZAAS_DEFAULT_BASE_URL,
  GZAAS_DEFAULT_MAX_REPLY_BYTES,
  GZAAS_DEFAULT_TIMEOUT_MS,
} from "./gzaas.ts";
export {
  GzaasError,
  type GzaasErrorKind,
  type GzaasErrorOptions,
} from "./gzaas_error.ts";
export type {
  GzaasCreateOptions,
  GzaasEntry,
  GzaasFont,
  GzaasListOptions,
  GzaasOptions,
  GzaasPattern,
  GzaasStyle,
} from "./types.ts";
