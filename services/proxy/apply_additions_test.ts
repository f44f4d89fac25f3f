import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createAdditionsApplier, REDACTED } from "./apply_additions.ts";
import type { RouteAdditions } from "./route_additions.ts";

const KEY = "k3y+with/odd chars";
const TOKEN = "t0ken-abcdef";
const WEATHER: RouteAdditions = {
  query: [["appid", KEY], ["units", "metric"]],
  headers: [["x-api-key", TOKEN]],
};
const applier = createAdditionsApplier(new Map([["weather", WEATHER]]));

Deno.test("query() replaces the client's parameter of the same name and keeps the others raw", () => {
  assert.equal(
    applier.query(
      WEATHER,
      "?q=K%C3%B6ln&appid=mine&APPID=x&units=imperial&a%70pid=y",
    ),
    "?q=K%C3%B6ln&APPID=x&appid=k3y%2Bwith%2Fodd+chars&units=metric",
  );
  const bare = applier.query(WEATHER, "");
  assert.equal(bare, "?appid=k3y%2Bwith%2Fodd+chars&units=metric");
  assert.deepEqual(
    [...new URLSearchParams(bare)],
    [["appid", KEY], ["units", "metric"]],
  );
  assert.equal(applier.query(WEATHER, "?"), bare);
  const headersOnly: RouteAdditions = { query: [], headers: [["x", "1"]] };
  assert.equal(applier.query(headersOnly, "?a=1"), "?a=1");
});

const relayed = applier.relayed("weather")!;

Deno.test("relayed() knows only the routes with additions", () => {
  assert.equal(applier.relayed("other"), undefined);
});

Deno.test("relayed().request() sets the headers, replacing the client's", () => {
  const sent = relayed.request([
    ["accept", "text/plain"],
    ["x-api-key", "clients"],
    ["via", "1.1 homewire-proxy-1"],
  ]);
  assert.deepEqual(sent, [
    ["accept", "text/plain"],
    ["via", "1.1 homewire-proxy-1"],
    ["x-api-key", TOKEN],
  ]);
});

Deno.test("relayed().response() removes added parameters from locations and blanks added values elsewhere", () => {
  const pairs: [string, string][] = [
    [
      "location",
      "/weather/next?q=1&appid=k3y%2Bwith%2Fodd+chars&units=metric#top",
    ],
    ["content-location", "https://elsewhere.example/x?appid=other&b=2"],
    [
      "link",
      `<https://api.example/w?page=2&appid=${
        encodeURIComponent(KEY)
      }>; rel="next"`,
    ],
    ["x-echo", `key ${TOKEN}`],
    ["content-type", `text/plain; k=${TOKEN}`],
  ];
  const before = structuredClone(pairs);
  assert.deepEqual(relayed.response(pairs), [
    ["location", "/weather/next?q=1#top"],
    ["content-location", "https://elsewhere.example/x?b=2"],
    ["link", `<https://api.example/w?page=2&appid=${REDACTED}>; rel="next"`],
    ["x-echo", `key ${REDACTED}`],
    // Framing headers are never rewritten.
    ["content-type", `text/plain; k=${TOKEN}`],
  ]);
  // The given list is left as it was.
  assert.deepEqual(pairs, before);
  const clean: [string, string][] = [["x-other", "nothing secret"]];
  assert.equal(relayed.response(clean), clean);
});

Deno.test("relayed().response() blanks a value straddling two lines of a repeated header", () => {
  const split = createAdditionsApplier(
    new Map([["r", { query: [], headers: [["x-k", "one, two"]] }]]),
  ).relayed("r")!;
  assert.deepEqual(
    split.response([
      ["x-echo", "one"],
      ["vary", "accept"],
      ["x-echo", "two"],
      ["x-echo", "three"],
    ]),
    [["x-echo", `${REDACTED}, three`], ["vary", "accept"]],
  );
  const kept: [string, string][] = [["x-echo", "one"], ["x-echo", "three"]];
  assert.equal(split.response(kept), kept);
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

Deno.test("relayed().response() and log() blank a value percent-encoded in lower-case hex too", () => {
  // RFC 3986 2.1: %2b and %2B are the same octet; an upstream may echo either.
  const lower = "k3y%2bwith%2fodd+chars";
  assert.deepEqual(
    relayed.response([
      ["link", `</data/weather?appid=${lower}>; rel="self"`],
      ["refresh", `0; url=/data/weather?key=k3y%2bwith%2fodd%20chars`],
    ]),
    [
      ["link", `</data/weather?appid=${REDACTED}>; rel="self"`],
      ["refresh", `0; url=/data/weather?key=${REDACTED}`],
    ],
  );
  const memory = createMemoryLog();
  applier.log(memory).warn(`echoed ${lower}`);
  assert.deepEqual(memory.entries.map((e) => e.message), [
    `echoed ${REDACTED}`,
  ]);
});
