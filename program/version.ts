/**
 * The version of homewire, as `homewire_build_info{version}` reports it. Kept equal
 * to `deno.json`'s `version` by `program/version_test.ts`.
 *
 * @module
 */

/** The version of this program. */
export const VERSION = "0.1.0";
