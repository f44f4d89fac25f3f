/** Returns `hex` when it is 3 or 6 hex digits; throws a `TypeError` otherwise. */
export function checkHex(label: string, hex: string): string {
  if (typeof hex !== "string" || !/^([0-9a-f]{3}|[0-9a-f]{6})$/i.test(hex)) {
    throw new TypeError(
      `Invalid ${label} "${
        String(hex)
      }": expected 3 or 6 hex digits without #, such as ff0000`,
    );
  }
  return hex;
}

/** Whether `url` is an absolute URL. */
export function canParse(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}
