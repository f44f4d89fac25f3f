/**
 * A setting holding a five-field cron expression, checked the way `Deno.cron` checks
 * it, so that every value the setting accepts also starts the schedule.
 *
 * The rules below were found by trying values on `Deno.cron` (Deno 2): numbers of one
 * or two digits within the field's range, day of week 1-7 (0 is refused), month and
 * day names of three letters in any case, ranges in either order (a wrapping range
 * such as `FRI-MON` is allowed), steps from 1 to one less than the number of values of
 * the field, lists of these, and the extensions `L`, `LW`, `L-n`, `nW` (day of month)
 * and `L`, `nL`, `n#k` (day of week) as a whole field. A day of month that no month
 * of the expression has (`0 0 31 4 *`) is refused too: `Deno.cron` takes it and then
 * panics.
 *
 * @module
 */
import {
  custom,
  type Setting,
  type SettingOptions,
} from "../../lib/settings.ts";

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const MONTHS = [
  "JAN",
  "FEB",
  "MAR",
  "APR",
  "MAY",
  "JUN",
  "JUL",
  "AUG",
  "SEP",
  "OCT",
  "NOV",
  "DEC",
];

const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day-of-week", min: 1, max: 7, names: DAYS },
];

/** The most days of each month (February in a leap year). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const ITEM = /^([^/-]+)(?:-([^/-]+))?(?:\/(.*))?$/;

const EXAMPLE = 'expected a five-field cron expression such as "*/5 * * * *"';

/** The value of one number or name of `field`, or a problem. */
function value(text: string, field: Field): number | string {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + field.min;
  if (!/^\d{1,2}$/.test(text)) return `"${text}" is not a number or a name`;
  const number = Number(text);
  if (number < field.min || number > field.max) {
    return `${number} is outside ${field.min}-${field.max}`;
  }
  return number;
}

/** The problem with one list item (`*`, `a`, `a-b`, each with `/step`), if any. */
function itemProblem(item: string, field: Field): string | undefined {
  const match = ITEM.exec(item);
  if (!match) return `"${item}" is malformed`;
  const [, start, end, step] = match;
  if (start !== "*" || end !== undefined) {
    for (const part of [start!, end]) {
      if (part === undefined) continue;
      const parsed = value(part, field);
      if (typeof parsed === "string") return parsed;
    }
  }
  if (step !== undefined) {
    const count = field.max - field.min + 1;
    if (!/^\d{1,2}$/.test(step) || Number(step) < 1 || Number(step) >= count) {
      return `step "${step}" is outside 1-${count - 1}`;
    }
  }
  return undefined;
}

/**
 * The values a list field names, its items already checked: a range may wrap
 * (`NOV-FEB`), and a step runs from the start to the range's end (to the field's
 * maximum after a lone start, as in `4/5`).
 */
function values(text: string, field: Field): number[] {
  const count = field.max - field.min + 1;
  const named = new Set<number>();
  for (const item of text.split(",")) {
    const [, start = "*", end, step] = ITEM.exec(item)!;
    const from = start === "*" ? field.min : value(start, field) as number;
    const to = end !== undefined
      ? value(end, field) as number
      : start === "*" || step !== undefined
      ? field.max
      : from;
    const span = (to - from + count) % count;
    for (let offset = 0; offset <= span; offset += Number(step ?? 1)) {
      named.add((from - field.min + offset) % count + field.min);
    }
  }
  return [...named];
}

/**
 * Why the day-of-month and month fields of a checked expression name no day that
 * ever comes (`31 4`: there is no 31 April), or `undefined`. `Deno.cron` accepts such
 * an expression and then panics, taking the process down. A day-of-week field other
 * than `*` is never a problem here: a matching weekday runs the schedule as well.
 */
function dateProblem(fields: readonly string[]): string | undefined {
  const [, , days = "*", months = "*", weekdays = "*"] = fields;
  if (weekdays !== "*" || days === "L" || days === "LW") return undefined;
  const longest = Math.max(
    ...values(months, FIELDS[3]!).map((month) => MONTH_DAYS[month - 1]!),
  );
  const last = /^L-(\d+)$/.exec(days);
  const weekday = /^(\d+)W$/.exec(days);
  const earliest = last
    ? 1 + Number(last[1])
    : weekday
    ? Number(weekday[1])
    : Math.min(...values(days, FIELDS[2]!));
  if (earliest <= longest) return undefined;
  return `day-of-month field "${days}" names no day of the month field "${months}": the schedule would never run`;
}

/** Whether `text` is one of the `L`/`W`/`#` forms `Deno.cron` takes as a whole field. */
function isExtension(text: string, field: Field): boolean {
  const isValue = (part: string) => typeof value(part, field) === "number";
  if (field.name === "day-of-month") {
    if (text === "L" || text === "LW") return true;
    const last = /^L-(\d{1,2})$/.exec(text);
    if (last) return Number(last[1]) >= 1 && Number(last[1]) <= 30;
    const weekday = /^(\d{1,2})W$/.exec(text);
    return weekday !== null && isValue(weekday[1]!);
  }
  if (field.name === "day-of-week") {
    if (text === "L") return true;
    const last = /^(\w+)L$/.exec(text);
    if (last) return isValue(last[1]!);
    const nth = /^(\w+)#(\d{1,2})$/.exec(text);
    return nth !== null && isValue(nth[1]!) && Number(nth[2]) >= 1 &&
      Number(nth[2]) <= 5;
  }
  return false;
}

/**
 * Why `expression` is not a cron expression `Deno.cron` accepts, or `undefined` when
 * it is one.
 *
 * @example
 * ```ts
 * cronProblem("*\/5 * * * *"); // undefined
 * cronProblem("99 * * * *"); // 'minute field "99": 99 is outside 0-59'
 * ```
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return EXAMPLE;
  for (const [index, text] of fields.entries()) {
    const field = FIELDS[index]!;
    if (isExtension(text, field)) continue;
    for (const item of text.split(",")) {
      const problem = itemProblem(item, field);
      if (problem) return `${field.name} field "${text}": ${problem}`;
    }
  }
  return dateProblem(fields);
}

/**
 * A cron expression setting, checked at start-up the way `Deno.cron` checks it. The
 * value is returned with its fields separated by single spaces.
 *
 * @example
 * ```ts
 * const schedule = cronSchedule({ description: "When to collect", default: "*\/5 * * * *" });
 * schedule.read("0  *  * * *"); // "0 * * * *"
 * ```
 */
export function cronSchedule(options: SettingOptions<string>): Setting<string> {
  return custom(options, (raw) => {
    const problem = cronProblem(raw);
    if (problem === EXAMPLE) throw new Error(EXAMPLE);
    if (problem) throw new Error(`${EXAMPLE}: ${problem}`);
    return raw.trim().split(/\s+/).join(" ");
  });
}
