/**
 * A setting holding a five-field cron expression, as `Deno.cron` takes it.
 *
 * @module
 */
import type { Setting, SettingOptions } from "../../lib/settings.ts";

const ITEM = String.raw`(\*|\d+(-\d+)?)(/\d+)?`;
const FIELD = new RegExp(`^${ITEM}(,${ITEM})*$`);

/**
 * Whether `expression` is a five-field cron expression (minute, hour, day of month,
 * month, day of week) made of numbers, ranges, steps, lists and `*`.
 *
 * @example
 * ```ts
 * isCronExpression("*\/5 * * * *"); // true
 * isCronExpression("every 5 minutes"); // false
 * ```
 */
export function isCronExpression(expression: string): boolean {
  const fields = expression.trim().split(/\s+/);
  return fields.length === 5 && fields.every((field) => FIELD.test(field));
}

/** A cron expression setting, checked at start-up. */
export function cronSchedule(options: SettingOptions<string>): Setting<string> {
  const hasDefault = options.default !== undefined;
  return {
    description: options.description,
    defaultText: options.default,
    required: !hasDefault,
    secret: false,
    read(raw) {
      if (raw === undefined) {
        if (hasDefault) return options.default!;
        throw new Error("missing");
      }
      if (!isCronExpression(raw)) {
        throw new Error(
          'expected a five-field cron expression such as "*/5 * * * *"',
        );
      }
      return raw.trim().split(/\s+/).join(" ");
    },
  };
}
