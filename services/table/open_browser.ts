/**
 * Opens a URL in the user's browser with the platform's opener.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";

/** Runs a command and resolves with its exit code (rejects when it cannot start). */
export type RunCommand = (command: string, args: string[]) => Promise<number>;

/** The opener command of an operating system (`Deno.build.os`). */
export function openerCommand(
  os: typeof Deno.build.os,
  url: string,
): [string, string[]] {
  if (os === "darwin") return ["open", [url]];
  if (os === "windows") return ["cmd", ["/c", "start", '""', url]];
  return ["xdg-open", [url]];
}

/** Runs `command` with no input and no output, as the opener needs. */
export const runQuietly: RunCommand = async (command, args) => {
  const { code } = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return code;
};

/** Dependencies of {@linkcode createBrowserOpener}. */
export interface BrowserOpenerOptions {
  /** Where a failure to open is logged (WARNING). */
  log: Log;
  /** The operating system. @default Deno.build.os */
  os?: typeof Deno.build.os;
  /** How the opener is run. @default runQuietly */
  run?: RunCommand;
}

/**
 * Returns a function that opens a URL in the browser. It never throws: a failure to
 * open (no opener installed, no display) is logged as a WARNING.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * const openBrowser = createBrowserOpener({ log: createLog("table") });
 * await openBrowser("http://127.0.0.1:3838/");
 * ```
 */
export function createBrowserOpener(
  options: BrowserOpenerOptions,
): (url: string) => Promise<void> {
  const run = options.run ?? runQuietly;
  return async (url) => {
    const [command, args] = openerCommand(options.os ?? Deno.build.os, url);
    try {
      const code = await run(command, args);
      if (code === 0) options.log.info(`Opened ${url} in the browser`);
      else {
        options.log.warn(
          `Cannot open a browser: "${command}" exited with code ${code}; open ${url} yourself`,
        );
      }
    } catch (error) {
      options.log.warn(
        `Cannot open a browser with "${command}": ${
          errorText(error)
        }; open ${url} yourself`,
      );
    }
  };
}
