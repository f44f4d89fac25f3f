import assert from "node:assert/strict";
import {
  type Message,
  parseTargetUrl,
  type ServiceBases,
  splitUrls,
  TargetUrlError,
} from "./mod.ts";

const BASES: ServiceBases = {
  pushbullet: "http://pb.test",
  pushover: "http://po.test/",
  telegram: "http://tg.test",
  discord: "http://dc.test",
};
const MESSAGE: Message = {
  title: "Door ✓",
  body: "Opened <now>",
  type: "warning",
};

function requests(url: string, message = MESSAGE) {
  return parseTargetUrl(url).requests(message, BASES).map((r) => ({
    ...r,
    body: r.body === undefined ? undefined : r.body,
  }));
}

function basic(user: string, password = "") {
  return `Basic ${btoa(`${user}:${password}`)}`;
}

Deno.test("parseTargetUrl() pbul:// posts a Pushbullet note", () => {
  const target = parseTargetUrl("pbul://o.AbC123");
  assert.equal(target.display, "pbul://****");
  assert.deepEqual(requests("pbul://o.AbC123"), [{
    url: "http://pb.test/v2/pushes",
    method: "POST",
    headers: {
      authorization: basic("o.AbC123"),
      "access-token": "o.AbC123",
      "content-type": "application/json",
      accept: "application/json",
    },
    body: JSON.stringify({
      type: "note",
      title: "Door ✓",
      body: "Opened <now>",
    }),
  }]);
});

Deno.test("parseTargetUrl() ntfy:// publishes JSON to the server root", async (t) => {
  await t.step("without options", () => {
    assert.deepEqual(requests("ntfy://ntfy.lan:8080/alerts"), [{
      url: "http://ntfy.lan:8080",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        topic: "alerts",
        title: "Door ✓",
        message: "Opened <now>",
      }),
    }]);
  });
  await t.step("with credentials, options and two topics", () => {
    const url =
      "ntfys://me:p%40ss@ntfy.lan/a/b?priority=high&tags=door,house&click=https://x.test/";
    const target = parseTargetUrl(url);
    assert.equal(target.display, "ntfys://me:****@ntfy.lan/a/b");
    assert.deepEqual(target.secrets, ["p@ss", btoa("me:p@ss")]);
    const sent = requests(url);
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[1], {
      url: "https://ntfy.lan",
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: basic("me", "p@ss"),
        "x-priority": "high",
        "x-click": "https://x.test/",
        "x-tags": "door,house",
      },
      body: JSON.stringify({
        topic: "b",
        title: "Door ✓",
        message: "Opened <now>",
      }),
    });
  });
  await t.step("priority words and numbers as Apprise maps them", () => {
    for (
      const [given, sent] of [
        ["5", "max"],
        ["1", "min"],
        ["emergency", "max"],
        ["moderate", "low"],
        ["urgent", undefined],
      ]
    ) {
      if (sent === undefined) {
        assert.throws(
          () => parseTargetUrl(`ntfy://h/t?priority=${given}`),
          TargetUrlError,
        );
        continue;
      }
      assert.equal(
        requests(`ntfy://h/t?priority=${given}`)[0]!.headers["x-priority"],
        sent,
      );
    }
    assert.equal(
      requests("ntfy://h/t?priority=default")[0]!.headers["x-priority"],
      undefined,
    );
  });
  await t.step("ntfy://topic goes to ntfy.sh over HTTPS", () => {
    const [sent] = requests("ntfy://my_topic");
    assert.equal(sent!.url, "https://ntfy.sh");
    assert.equal(JSON.parse(sent!.body!).topic, "my_topic");
  });
  await t.step("a server whose name ends in ntfy.sh is not ntfy.sh", () => {
    const [sent] = requests("ntfy://me:pw@myntfy.sh/door");
    assert.equal(sent!.url, "http://myntfy.sh");
    assert.equal(JSON.parse(sent!.body!).topic, "door");
    const [cloud] = requests("ntfys://NTFY.sh/door");
    assert.equal(cloud!.url, "https://ntfy.sh");
    assert.equal(JSON.parse(cloud!.body!).topic, "door");
  });
  await t.step("?token= is sent as a bearer token, masked", () => {
    const target = parseTargetUrl("ntfy://h/t?token=tk_secret");
    assert.equal(target.display, "ntfy://h/t?token=****");
    assert.equal(
      requests("ntfy://h/t?token=tk_secret")[0]!.headers.authorization,
      "Bearer tk_secret",
    );
  });
  await t.step("an empty title is left out", () => {
    const [sent] = requests("ntfy://h/t", { ...MESSAGE, title: "" });
    assert.deepEqual(JSON.parse(sent!.body!), {
      topic: "t",
      message: "Opened <now>",
    });
  });
});

Deno.test("parseTargetUrl() gotify:// posts to /message with X-Gotify-Key", () => {
  assert.deepEqual(requests("gotify://gotify.lan/AbCdEf"), [{
    url: "http://gotify.lan/message",
    method: "POST",
    headers: { "content-type": "application/json", "x-gotify-key": "AbCdEf" },
    body: JSON.stringify({
      priority: 5,
      title: "Door ✓",
      message: "Opened <now>",
    }),
  }]);
  const target = parseTargetUrl(
    "gotifys://g.lan:8443/sub/path/AbCdEf?priority=high",
  );
  assert.equal(target.display, "gotifys://g.lan:8443/sub/path/****");
  const [sent] = target.requests(MESSAGE, BASES);
  assert.equal(sent!.url, "https://g.lan:8443/sub/path/message");
  assert.equal(JSON.parse(sent!.body!).priority, 8);
  assert.equal(
    JSON.parse(requests("gotify://h/T?priority=10")[0]!.body!).priority,
    10,
  );
  assert.equal(
    JSON.parse(requests("gotify://h/T?priority=low")[0]!.body!).priority,
    0,
  );
});

Deno.test("parseTargetUrl() pover:// posts Pushover's form", () => {
  const url =
    "pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi";
  const target = parseTargetUrl(url);
  assert.equal(target.display, "pover://****@****");
  const [sent] = requests(url);
  assert.equal(sent!.url, "http://po.test/1/messages.json");
  assert.equal(sent!.method, "POST");
  assert.deepEqual(sent!.headers, {
    "content-type": "application/x-www-form-urlencoded",
  });
  assert.deepEqual(Object.fromEntries(new URLSearchParams(sent!.body)), {
    token: "azGDORePK8gMaC0QOYAMyEEuzJnyUi",
    user: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG",
    priority: "0",
    title: "Door ✓",
    message: "Opened <now>",
  });
  const [emergency] = requests(`${url}/phone?priority=emergency`);
  const form = new URLSearchParams(emergency!.body);
  assert.equal(form.get("priority"), "2");
  assert.equal(form.get("retry"), "900");
  assert.equal(form.get("expire"), "3600");
  assert.equal(form.get("device"), "phone");
  // Pushover refuses an empty message: a note with a title alone sends the title.
  const [titleOnly] = requests(url, { title: "Door", body: "", type: "info" });
  const titleForm = new URLSearchParams(titleOnly!.body);
  assert.equal(titleForm.get("message"), "Door");
  assert.equal(titleForm.get("title"), null);
});

Deno.test("parseTargetUrl() tgram:// calls sendMessage per chat", () => {
  const url = "tgram://123456789:AAH-abc_DEF/-1001234/@alerts";
  const target = parseTargetUrl(url);
  assert.equal(target.display, "tgram://****/-1001234/@alerts");
  const sent = requests(url);
  assert.equal(sent.length, 2);
  assert.equal(
    sent[0]!.url,
    "http://tg.test/bot123456789:AAH-abc_DEF/sendMessage",
  );
  assert.deepEqual(JSON.parse(sent[0]!.body!), {
    chat_id: -1001234,
    text: "<b>Door ✓</b>\r\nOpened &lt;now&gt;",
    parse_mode: "HTML",
  });
  assert.equal(JSON.parse(sent[1]!.body!).chat_id, "@alerts");
});

Deno.test("parseTargetUrl() discord:// executes the webhook", () => {
  const url = "discord://112233445566/Tok-en_123";
  assert.equal(parseTargetUrl(url).display, "discord://112233445566/****");
  assert.deepEqual(requests(url), [{
    url: "http://dc.test/api/webhooks/112233445566/Tok-en_123",
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content: "Door ✓\r\nOpened <now>" }),
  }]);
});

Deno.test("parseTargetUrl() json:// posts Apprise's JSON", () => {
  assert.deepEqual(requests("json://hook.lan:9000/in/"), [{
    url: "http://hook.lan:9000/in/",
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      version: "1.0",
      title: "Door ✓",
      message: "Opened <now>",
      attachments: [],
      type: "warning",
    }),
  }]);
  const url = "jsons://u:pw@hook.lan/x?method=put&+X-Key=k3y&-q=1&:extra=v";
  const target = parseTargetUrl(url);
  assert.equal(target.display, "jsons://u:****@hook.lan/x");
  assert.deepEqual(target.secrets, ["pw", btoa("u:pw"), "k3y", "1"]);
  const [sent] = requests(url);
  assert.equal(sent!.url, "https://hook.lan/x?q=1");
  assert.equal(sent!.method, "PUT");
  assert.equal(sent!.headers["x-key"], "k3y");
  assert.equal(sent!.headers.authorization, basic("u", "pw"));
  assert.equal(JSON.parse(sent!.body!).extra, "v");
});

Deno.test("parseTargetUrl() refuses unknown schemes and malformed URLs, secrets masked", () => {
  for (
    const [url, expected, secret] of [
      [
        "slack://T0KEN/B1/C2",
        /^"slack:\/\/\*\*\*\*": unknown scheme "slack": use one of pbul, ntfy/,
        "T0KEN",
      ],
      ["not a url", /expected an Apprise URL/, undefined],
      [
        "gotify://AGotifyT0k",
        /^"gotify:\/\/\*\*\*\*": expected gotify:\/\/host/,
        "AGotifyT0k",
      ],
      [
        "gotify://host/s3cr%zz",
        /"gotify:\/\/host\/\*\*\*\*": malformed URL/,
        "s3cr",
      ],
      ["ntfy://me:s3cret@bad_host!/t", /expected ntfy:\/\//, "s3cret"],
      ["ntfy://h:99999/t", /expected ntfy:\/\//, undefined],
      [
        "pbul://o.tok/device",
        /^"pbul:\/\/\*\*\*\*": expected pbul:\/\/ACCESS_TOKEN/,
        "o.tok",
      ],
      [
        "pover://onlytoken",
        /expected pover:\/\/USER_KEY@APP_TOKEN/,
        "onlytoken",
      ],
      ["tgram://123:QwErTy", /expected tgram:\/\/BOT_TOKEN\/CHAT_ID/, "QwErTy"],
      [
        "discord://123",
        /expected discord:\/\/WEBHOOK_ID\/WEBHOOK_TOKEN/,
        undefined,
      ],
      ["json://h/?method=delete", /expected \?method= POST or PUT/, undefined],
      [
        "json://h/x?+Bad%20Name=S3cretV",
        /^"json:\/\/h\/x": invalid header "\+bad name"/,
        "S3cretV",
      ],
      [
        "json://h/x?+X-Key=S3cret%0Av",
        /^"json:\/\/h\/x": invalid header "\+x-key"/,
        "S3cret",
      ],
      ["ntfy://h/t?click=a%0Ab", /the x-click header cannot carry/, undefined],
      [
        "gotify://h/T0k%0AS3cret",
        /^"gotify:\/\/h\/\*\*\*\*": expected gotify:\/\/host/,
        "S3cret",
      ],
      [
        "ntfy://h/t?tags=%E2%9C%93",
        /the x-tags header cannot carry/,
        undefined,
      ],
      [
        "ntfy://h/t?token=tk%0AS3cret",
        /^"ntfy:\/\/h\/t\?token=\*\*\*\*": the authorization header/,
        "S3cret",
      ],
    ] as const
  ) {
    assert.throws(
      () => parseTargetUrl(url),
      (error: Error) => {
        assert.ok(error instanceof TargetUrlError, url);
        assert.match(error.message, expected, url);
        if (secret) assert.ok(!error.message.includes(secret), error.message);
        return true;
      },
    );
  }
});

Deno.test("splitUrls() splits on commas, blanks and line breaks before a scheme", () => {
  assert.deepEqual(
    splitUrls(" ntfy://h/a?tags=x,y, gotify://h/T\njson://h,\r\n pbul://o.t ,"),
    ["ntfy://h/a?tags=x,y", "gotify://h/T", "json://h", "pbul://o.t"],
  );
  assert.deepEqual(splitUrls("  \n"), []);
});

Deno.test("a note's priority wins over the URL's for ntfy and Gotify", () => {
  const urgent = { ...MESSAGE, priority: "max" } as const;
  assert.equal(
    requests("ntfy://h/t?priority=low", urgent)[0]!.headers["x-priority"],
    "max",
  );
  assert.equal(
    requests("ntfy://h/t?priority=high", {
      ...MESSAGE,
      priority: "default",
    })[0]!
      .headers["x-priority"],
    undefined,
  );
  assert.equal(
    requests("ntfy://h/t?priority=high")[0]!.headers["x-priority"],
    "high",
  );
  assert.equal(
    JSON.parse(requests("gotify://h/T?priority=low", urgent)[0]!.body!)
      .priority,
    10,
  );
});
