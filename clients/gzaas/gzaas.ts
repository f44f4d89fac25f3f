/**
 * The {@linkcode Gzaas} class: the styled-message API client.
 *
 * @module
 */
import {
  checkBaseUrl,
  checkHex,
  checkInteger,
  checkMaxBytes,
  checkNumResults,
  checkText,
  checkTimeout,
} from "./_checks.ts";
import { parseCreated, parseEntries } from "./_replies.ts";
import { requestJson, type Transport } from "./_request.ts";
import { type WriteField, writeForm } from "./_write_form.ts";
import type {
  GzaasCreateOptions,
  GzaasFont,
  GzaasListOptions,
  GzaasOptions,
  GzaasPattern,
  GzaasStyle,
} from "./types.ts";

/** The public styled-message API. */
export const GZAAS_DEFAULT_BASE_URL = "http://gzaas.com/api/v1";

/** Default time-out of a call, in milliseconds. */
export const GZAAS_DEFAULT_TIMEOUT_MS = 10_000;

/** The default bound on the bytes of a reply's body: 4 MiB. */
export const GZAAS_DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024;

/**
 * Client of the styled-message (gzaas) API: lists fonts, styles and patterns, and
 * creates full-screen styled messages.
 *
 * Setters validate their value, return the same object (so calls chain) and are kept
 * for every later {@linkcode Gzaas.create}. Every field that was set is sent.
 * Every call rejects with a {@linkcode GzaasError} on failure. The class uses only
 * web-standard APIs (fetch, AbortController, URLSearchParams), so it runs in Deno,
 * Node 18+ and browsers.
 *
 * @example
 * ```ts
 * import { Gzaas } from "@homewire/homewire/gzaas";
 *
 * const gzaas = new Gzaas({ timeoutMs: 5000 })
 *   .setApiKey("my-key")
 *   .setFont("ultra")
 *   .setColor("ff0000")
 *   .setBackcolor("000000");
 * const fonts = await gzaas.listFonts({ nowFeatured: true, numResults: 5 });
 * const url = await gzaas.create("Dinner is ready");
 * ```
 */
export class Gzaas {
  #baseUrl: string;
  #transport: Transport;
  #fields = new Map<WriteField, string>();

  /**
   * Creates a client.
   *
   * @param options base URL, fetch, time-out and bound on a reply's bytes.
   * @throws {TypeError} on a base URL that is not absolute, a time-out that is not
   * a positive number or a bound that is not a positive integer.
   * @example
   * ```ts
   * const gzaas = new Gzaas({ baseUrl: "http://127.0.0.1:8080/api/v1" });
   * ```
   */
  constructor(options: GzaasOptions = {}) {
    this.#baseUrl = checkBaseUrl(options.baseUrl ?? GZAAS_DEFAULT_BASE_URL);
    // Called as a plain function: a browser's `window.fetch` refuses another `this`.
    // Without one, the global `fetch` is looked up at each call.
    const injected = options.fetch;
    this.#transport = {
      fetch: (input, init) =>
        injected ? injected(input, init) : fetch(input, init),
      timeoutMs: checkTimeout(options.timeoutMs ?? GZAAS_DEFAULT_TIMEOUT_MS),
      maxReplyBytes: checkMaxBytes(
        options.maxReplyBytes ?? GZAAS_DEFAULT_MAX_REPLY_BYTES,
      ),
    };
  }

  /**
   * Sets the API key sent with {@linkcode Gzaas.create} (field `apikey`).
   *
   * @example
   * ```ts
   * new Gzaas().setApiKey("my-key");
   * ```
   */
  setApiKey(key: string): this {
    return this.#set("apikey", checkText("API key", key, { secret: true }));
  }

  /**
   * Sets the font, by its `hashtag` from {@linkcode Gzaas.listFonts} (field `font`).
   *
   * @example
   * ```ts
   * new Gzaas().setFont("ultra");
   * ```
   */
  setFont(hashtag: string): this {
    return this.#set("font", checkText("font", hashtag));
  }

  /**
   * Sets the background pattern, by its `hashtag` from {@linkcode Gzaas.listPatterns}
   * (field `backpattern`).
   *
   * @example
   * ```ts
   * new Gzaas().setBackPattern("stripes");
   * ```
   */
  setBackPattern(hashtag: string): this {
    return this.#set("backpattern", checkText("pattern", hashtag));
  }

  /**
   * Sets the style, by its `hashtag` from {@linkcode Gzaas.listStyles} (field `style`).
   *
   * @example
   * ```ts
   * new Gzaas().setStyle("retro");
   * ```
   */
  setStyle(hashtag: string): this {
    return this.#set("style", checkText("style", hashtag));
  }

  /**
   * Sets the text colour: 3 or 6 hex digits without `#` (field `color`).
   *
   * @throws {TypeError} on anything else, `#ff0000` included.
   * @example
   * ```ts
   * new Gzaas().setColor("ff0000");
   * ```
   */
  setColor(hex: string): this {
    return this.#set("color", checkHex("color", hex));
  }

  /**
   * Sets the background colour: 3 or 6 hex digits without `#` (field `backcolor`).
   *
   * @throws {TypeError} on anything else, `#000000` included.
   * @example
   * ```ts
   * new Gzaas().setBackcolor("000000");
   * ```
   */
  setBackcolor(hex: string): this {
    return this.#set("backcolor", checkHex("backcolor", hex));
  }

  /**
   * Sets the text shadow, as CSS `text-shadow` text (field `shadows`).
   *
   * @example
   * ```ts
   * new Gzaas().setShadows("1px 1px 2px #000");
   * ```
   */
  setShadows(shadows: string): this {
    return this.#set("shadows", checkText("shadows", shadows));
  }

  /**
   * Sets the visibility, an integer (field `visibility`; 0 private, 1 public on the
   * original service).
   *
   * @throws {TypeError} when `visibility` is not an integer.
   * @example
   * ```ts
   * new Gzaas().setVisibility(0);
   * ```
   */
  setVisibility(visibility: number): this {
    const value = checkInteger("visibility", visibility);
    return this.#set("visibility", String(value));
  }

  /**
   * Sets the launcher text shown before the message (field `launcher`).
   *
   * @example
   * ```ts
   * new Gzaas().setLauncher("Click to see");
   * ```
   */
  setLauncher(launcher: string): this {
    return this.#set("launcher", checkText("launcher", launcher));
  }

  /**
   * Lists the fonts: `GET {base}/fonts?nowFeatured=1|0&numResults=N`.
   *
   * @example
   * ```ts
   * const featured = await new Gzaas().listFonts({ nowFeatured: true });
   * featured[0]?.fontFamily;
   * ```
   */
  listFonts(options: GzaasListOptions = {}): Promise<GzaasFont[]> {
    return this.#list<GzaasFont>("fonts", options);
  }

  /**
   * Lists the styles: `GET {base}/styles?nowFeatured=1|0&numResults=N`.
   *
   * @example
   * ```ts
   * const styles = await new Gzaas().listStyles({ numResults: 10 });
   * ```
   */
  listStyles(options: GzaasListOptions = {}): Promise<GzaasStyle[]> {
    return this.#list<GzaasStyle>("styles", options);
  }

  /**
   * Lists the background patterns: `GET {base}/patterns?nowFeatured=1|0&numResults=N`.
   *
   * @example
   * ```ts
   * const patterns = await new Gzaas().listPatterns();
   * ```
   */
  listPatterns(options: GzaasListOptions = {}): Promise<GzaasPattern[]> {
    return this.#list<GzaasPattern>("patterns", options);
  }

  /**
   * Creates a styled message showing `text`: `POST {base}/write`, form-encoded, with
   * every field set so far. Resolves with the message's URL (`urlGzaas`).
   *
   * @throws {TypeError} when `text` is empty.
   * @throws {GzaasError} when the call fails (see {@linkcode GzaasError.kind}).
   * @example
   * ```ts
   * const url = await new Gzaas().setApiKey("my-key").create("Hello");
   * ```
   */
  async create(
    text: string,
    options: GzaasCreateOptions = {},
  ): Promise<string> {
    const form = writeForm(this.#fields, checkText("message", text));
    const what = "POST /write";
    const reply = await requestJson(this.#transport, {
      what,
      url: `${this.#baseUrl}/write`,
      init: {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded;charset=UTF-8",
          accept: "application/json",
        },
        body: form.toString(),
      },
      okStatuses: [200, 201],
      signal: options.signal,
    });
    return parseCreated(what, reply);
  }

  async #list<T extends GzaasFont | GzaasStyle | GzaasPattern>(
    path: "fonts" | "styles" | "patterns",
    options: GzaasListOptions,
  ): Promise<T[]> {
    const numResults = checkNumResults(options.numResults ?? 0);
    const query = new URLSearchParams({
      nowFeatured: options.nowFeatured ? "1" : "0",
      numResults: String(numResults),
    });
    const what = `GET /${path}`;
    const reply = await requestJson(this.#transport, {
      what,
      url: `${this.#baseUrl}/${path}?${query}`,
      init: { method: "GET", headers: { accept: "application/json" } },
      okStatuses: [200],
      signal: options.signal,
    });
    return parseEntries<T>(what, reply);
  }

  #set(field: WriteField, value: string): this {
    this.#fields.set(field, value);
    return this;
  }
}
