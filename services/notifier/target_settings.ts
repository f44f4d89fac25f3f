/**
 * The notifier's target settings: `NOTIFIER_URLS` (Apprise URLs) and
 * `NOTIFIER_CONFIG` (a file in Apprise's text configuration format).
 *
 * @module
 */
import { errorText } from "../../lib/log.ts";
import { custom, type Setting } from "../../lib/settings.ts";
import {
  parseTargetUrl,
  splitUrls,
  type Target,
  TargetUrlError,
} from "./targets/mod.ts";

/** A target and the tags a configuration file gave it. */
export interface TaggedTarget {
  /** Where to send. */
  readonly target: Target;
  /** Its tags, lower case; empty for a URL without tags. */
  readonly tags: ReadonlySet<string>;
}

/** Reads every URL of `urls`, collecting the problems; throws them joined by `; `. */
function readTargets(
  entries: { url: string; tags: string[]; where?: string }[],
): TaggedTarget[] {
  const problems: string[] = [];
  const targets: TaggedTarget[] = [];
  for (const { url, tags, where } of entries) {
    try {
      targets.push({ target: parseTargetUrl(url), tags: new Set(tags) });
    } catch (error) {
      if (!(error instanceof TargetUrlError)) throw error;
      problems.push(where ? `${where}: ${error.message}` : error.message);
    }
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  return targets;
}

/**
 * A setting holding Apprise URLs separated by commas, blanks or line breaks. It is a
 * secret (URLs carry tokens): a problem names the URL with its secrets masked.
 *
 * @example
 * ```ts
 * import { optional } from "../../lib/settings.ts";
 *
 * const schema = {
 *   NOTIFIER_URLS: optional(targetUrlsSetting({ description: "URLs" })),
 * };
 * ```
 */
export function targetUrlsSetting(
  options: { description: string },
): Setting<TaggedTarget[]> {
  return custom(
    { description: options.description, secret: true, multiline: true },
    (raw) => readTargets(splitUrls(raw).map((url) => ({ url, tags: [] }))),
  );
}

/** One URL line of an Apprise text configuration. */
export interface ConfigLine {
  /** Line number, from 1. */
  readonly line: number;
  /** The tags before `=`, lower case. */
  readonly tags: string[];
  /** The URL. */
  readonly url: string;
}

const CONFIG_LINE =
  /^\s*(?:(?<comment>[;#].*)|(?:(?<tags>[^=]+)=|=)?\s*(?<url>[a-z0-9+.-]{2,9}:\/\/\S*)|(?<include>include\s+\S.*))?\s*$/i;

/**
 * Reads Apprise's text configuration: one `[tag[,tag]=]URL` a line, `#` or `;`
 * comment lines, blank lines ignored; tags are separated by commas or blanks.
 *
 * @throws {Error} naming the line of the first line that is none of those; the line
 * itself is not quoted (it may hold a token).
 */
export function parseTargetConfig(text: string): ConfigLine[] {
  const lines: ConfigLine[] = [];
  for (
    const [index, entry] of text.replace(/^\uFEFF/, "").split(/\r?\n/).entries()
  ) {
    const match = CONFIG_LINE.exec(entry);
    if (!match) {
      throw new Error(
        `line ${index + 1} is not [tag[,tag]=]URL, a # comment or blank`,
      );
    }
    const { tags, url, include } = match.groups!;
    if (include !== undefined) {
      throw new Error(
        `line ${
          index + 1
        }: include is not supported: copy the URLs into this file`,
      );
    }
    if (url === undefined) continue;
    lines.push({
      line: index + 1,
      url,
      tags: (tags ?? "").split(/[\s,;[\]]+/).filter((tag) => tag !== "")
        .map((tag) => tag.toLowerCase()),
    });
  }
  return lines;
}

/** Options of {@linkcode targetConfigSetting}. */
export interface TargetConfigSettingOptions {
  /** One line for `--help`. */
  description: string;
  /**
   * Reads a file as text.
   * @default {@linkcode readConfigFile}: a regular file of at most 1 MiB
   */
  readTextFile?: (path: string) => string;
}

const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads a configuration file as text, refusing what is not a regular file of at
 * most 1 MiB (a device such as /dev/zero would never end).
 *
 * @example
 * ```ts
 * const text = readConfigFile("/etc/homewire/apprise.txt");
 * ```
 */
export function readConfigFile(path: string): string {
  const info = Deno.statSync(path);
  if (!info.isFile) throw new Error("not a regular file");
  if (info.size > MAX_CONFIG_BYTES) {
    throw new Error(
      `${info.size} bytes, the limit is ${MAX_CONFIG_BYTES}: is this the right file?`,
    );
  }
  return Deno.readTextFileSync(path);
}

/**
 * A setting naming an Apprise text configuration file; reading it yields its tagged
 * targets. An unreadable file, a bad line or a bad URL is a problem naming the file
 * and the line, with the URL's secrets masked.
 */
export function targetConfigSetting(
  options: TargetConfigSettingOptions,
): Setting<TaggedTarget[]> {
  const readTextFile = options.readTextFile ?? readConfigFile;
  return custom({ description: options.description }, (path) => {
    let content: string;
    try {
      content = readTextFile(path);
    } catch (error) {
      throw new Error(`cannot read the file: ${errorText(error)}`);
    }
    const lines = parseTargetConfig(content);
    if (lines.length === 0) {
      throw new Error(
        "the file holds no URL: write one [tag[,tag]=]URL a line",
      );
    }
    return readTargets(
      lines.map(({ line, url, tags }) => ({
        url,
        tags,
        where: `line ${line}`,
      })),
    );
  });
}
