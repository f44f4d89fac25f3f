import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/testing.ts";
import { createAdditionsApplier, REDACTED } from "./apply_additions.ts";
import type { RouteAdditions } from "./route_additions.ts";

const KEY = "k3y+with/odd chars";
const TOKEN = "t0ken-abcdef";
const WEATHER: RouteAdditions = {
  query: [["appid", KEY], ["units", "metric"]],
  headers: [["x-api-key", TOKEN]],
};
const applier = createAdditionsApplier(new Map([["weather", WEATHER]]));

Deno.test("target() replaces the caller's parameter of the same name and keeps the others raw", () => {
  const url = applier.target(
    WEATHER,
    new URL(
      "https://api.example/data/weather?q=K%C3%B6ln&appid=mine&APPID=x&units=imperial&a%70pid=y",
    ),
  );
  assert.equal(
    url.href,
    "https://api.example/data/weather?q=K%C3%B6ln&APPID=x&appid=k3y%2Bwith%2Fodd+chars&units=metric",
  );
  const bare = applier.target(WEATHER, new URL("https://api.example/w"));
  assert.equal(bare.search, "?appid=k3y%2Bwith%2Fodd+chars&units=metric");
  assert.deepEqual(
    [...new URLSearchParams(bare.search)],
    [["appid", KEY], ["units", "metric"]],
  );
});

Deno.test("request() sets the headers, replacing the caller's, and keeps the body", async () => {
  const request = applier.request(
    WEATHER,
    new Request("http://localhost/weather/x", {
      method: "POST",
      body: "payload",
      headers: {
        "X-Api-Key": "callers",
        "accept": "text/plain",
        "connection": "x-api-key, x-other",
      },
    }),
  );
  assert.equal(request.headers.get("x-api-key"), TOKEN);
  assert.equal(request.headers.get("accept"), "text/plain");
  // A caller's Connection cannot have the added header dropped.
  assert.equal(request.headers.get("connection"), "x-other");
  assert.equal(request.method, "POST");
  assert.equal(await new Response(request.body).text(), "payload");
});

Deno.test("answer() removes added parameters from locations and blanks added values elsewhere", () => {
  const response = new Response("body keeps k3y", {
    status: 302,
    headers: {
      location:
        "/weather/next?q=1&appid=k3y%2Bwith%2Fodd+chars&units=metric#top",
      "content-location": "https://elsewhere.example/x?appid=other&b=2",
      link: `<https://api.example/w?page=2&appid=${
        encodeURIComponent(KEY)
      }>; rel="next"`,
      "x-echo": `key ${TOKEN}`,
      "content-type": "text/plain",
    },
  });
  const scrubbed = applier.answer(WEATHER, response);
  assert.equal(scrubbed.headers.get("location"), "/weather/next?q=1#top");
  assert.equal(
    scrubbed.headers.get("content-location"),
    "https://elsewhere.example/x?b=2",
  );
  assert.equal(
    scrubbed.headers.get("link"),
    `<https://api.example/w?page=2&appid=${REDACTED}>; rel="next"`,
  );
  assert.equal(scrubbed.headers.get("x-echo"), `key ${REDACTED}`);
  const only = applier.answer(
    WEATHER,
    new Response(null, {
      status: 301,
      headers: { location: "/weather/x?appid=k3y%2Bwith%2Fodd+chars" },
    }),
  );
  assert.equal(only.headers.get("location"), "/weather/x");
});

Deno.test("answer() copies immutable headers", () => {
  // Response.redirect() answers with immutable headers, as fetch does.
  const immutable = Response.redirect(
    "http://localhost/weather/x?appid=k3y%2Bwith%2Fodd+chars&q=1",
    302,
  );
  assert.throws(() => immutable.headers.set("x", "y"));
  const scrubbed = applier.answer(WEATHER, immutable);
  assert.notEqual(scrubbed, immutable);
  assert.equal(scrubbed.status, 302);
  assert.equal(
    scrubbed.headers.get("location"),
    "http://localhost/weather/x?q=1",
  );
});

Deno.test("log() blanks every form of every added value", () => {
  const memory = createMemoryLog();
  const log = applier.log(memory);
  log.debug(`raw ${KEY}`);
  log.info(`encoded ${encodeURIComponent(KEY)}`);
  log.warn(`form k3y%2Bwith%2Fodd+chars and ${TOKEN}`);
  log.error("nothing secret: 1 2 3");
  assert.deepEqual(memory.entries.map((e) => e.message), [
    `raw ${REDACTED}`,
    `encoded ${REDACTED}`,
    `form ${REDACTED} and ${REDACTED}`,
    "nothing secret: 1 2 3",
  ]);
});

Deno.test("answer() and log() blank a value percent-encoded in lower-case hex too", () => {
  // RFC 3986 2.1: %2b and %2B are the same octet; a remote may echo either.
  const lower = "k3y%2bwith%2fodd+chars";
  const response = applier.answer(
    WEATHER,
    new Response(null, {
      status: 302,
      headers: {
        link: `</data/weather?appid=${lower}>; rel="self"`,
        refresh: `0; url=/data/weather?key=k3y%2bwith%2fodd%20chars`,
      },
    }),
  );
  assert.equal(
    response.headers.get("link"),
    `</data/weather?appid=${REDACTED}>; rel="self"`,
  );
  assert.equal(
    response.headers.get("refresh"),
    `0; url=/data/weather?key=${REDACTED}`,
  );
  const memory = createMemoryLog();
  applier.log(memory).warn(`echoed ${lower}`);
  assert.deepEqual(memory.entries.map((e) => e.message), [
    `echoed ${REDACTED}`,
  ]);
});
