/**
 * Client for the styled-message (gzaas) API (being built).
 *
 * @module
 */

/** Placeholder until the client lands. */
export const GZAAS_DEFAULT_BASE_URL = "http://gzaas.com/api/v1";
