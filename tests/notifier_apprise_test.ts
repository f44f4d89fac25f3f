/**
 * Apprise itself as the oracle of the self-hostable schemes: the `apprise` command
 * line and homewire send the same title, body and type to the same stand-in, and
 * both requests must carry the same method, path, authentication, option headers and
 * body fields. Skipped with a reason where `apprise` is missing; failing when CI=true.
 */
import assert from "node:assert/strict";
import { requireBinary } from "./_test_helpers.ts";
import { createDeliver } from "../services/notifier/deliver.ts";
import { parseTargetUrl } from "../services/notifier/targets/mod.ts";

const apprise = requireBinary("apprise", ["/usr/bin/apprise"]);

/** What is compared of a request. */
interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** The headers that carry authentication or a service option. */
const COMPARED_HEADERS = [
  "authorization",
  "x-gotify-key",
  "x-priority",
  "x-tags",
  "x-click",
  "content-type",
];

function recorder() {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      seen.push({
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(
          COMPARED_HEADERS.map((
            name,
          ) => [name, request.headers.get(name) ?? undefined]),
        ),
        body: text === "" ? undefined : JSON.parse(text),
      });
      return Response.json({});
    },
  );
  return {
    seen,
    host: `127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

async function runApprise(
  url: string,
  message: { title: string; body: string; type: string },
) {
  const { code, stderr } = await new Deno.Command(apprise.path!, {
    args: [
      "-vv",
      "-t",
      message.title,
      "-b",
      message.body,
      "-n",
      message.type,
      url,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
}

const CASES = [
  "ntfy://{host}/door",
  "ntfy://me:p%40ss@{host}/door?priority=high&tags=house,door&click=https://x.test/a",
  "ntfy://{host}/alerts?priority=5",
  "ntfy://{host}/alerts?priority=min&tags=warning",
  "gotify://{host}/AbCdEfG123",
  "gotify://{host}/sub/path/AbCdEfG123?priority=high",
  "gotify://{host}/AbCdEfG123?priority=2",
  "gotify://{host}/AbCdEfG123?priority=emergency",
  "json://{host}",
  "json://{host}/hook/in",
  "json://user:pw@{host}/hook/?+X-Api-Key=k3y",
  "json://{host}/p?:extra=1&-q=v%2Fw&method=PUT",
  "gotify://{host}/AbCdEfG123?priority=7",
  "ntfy://{host}/alerts?tags=x%20y,z&priority=4",
];

const MESSAGES = [
  { title: "Door ✓", body: 'Opened <at> 7:02 & "quoted"', type: "warning" },
  { title: "", body: "No title here", type: "failure" },
] as const;

Deno.test({
  name:
    "homewire sends what apprise sends for ntfy://, gotify:// and json:// URLs",
  ignore: apprise.ignore,
  async fn(t) {
    assert.ok(
      apprise.path,
      "apprise is not installed (scripts/install_deps.sh installs it)",
    );
    const stand = recorder();
    const deliver = createDeliver({
      bases: { pushbullet: "", pushover: "", telegram: "", discord: "" },
      timeoutMs: 5000,
    });
    try {
      for (const template of CASES) {
        const url = template.replace("{host}", stand.host);
        for (const message of MESSAGES) {
          await t.step(`${template} (${message.type})`, async () => {
            stand.seen.length = 0;
            await runApprise(url, message);
            assert.equal(stand.seen.length, 1, "apprise sent one request");
            const delivery = await deliver(parseTargetUrl(url), message);
            assert.equal(delivery.ok, true, String(delivery.error));
            assert.equal(stand.seen.length, 2, "homewire sent one request");
            const [theirs, ours] = stand.seen;
            assert.deepEqual(ours, theirs);
          });
        }
      }
    } finally {
      await stand.close();
    }
  },
});
