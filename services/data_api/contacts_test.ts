import assert from "node:assert/strict";
import { createContactsJson, PEOPLE, randomPhone } from "./contacts.ts";

const PHONE = /^\+1 (\d{3})-(\d{3})-(\d{4})$/;

Deno.test("randomPhone() covers the ends of every range", () => {
  assert.equal(randomPhone(() => 0), "+1 200-100-1000");
  assert.equal(randomPhone(() => 0.9999999999), "+1 999-999-9999");
});

Deno.test("randomPhone() stays within the ranges over many draws", () => {
  for (let i = 0; i < 20_000; i++) {
    const match = PHONE.exec(randomPhone(Math.random));
    assert.ok(match);
    const [area, prefix, line] = match.slice(1).map(Number) as [
      number,
      number,
      number,
    ];
    assert.ok(area >= 200 && area <= 999, `area ${area}`);
    assert.ok(prefix >= 100 && prefix <= 999, `prefix ${prefix}`);
    assert.ok(line >= 1000 && line <= 9999, `line ${line}`);
  }
});

Deno.test("PEOPLE holds 20 distinct invented people under example.com", () => {
  assert.equal(PEOPLE.length, 20);
  assert.equal(new Set(PEOPLE.map((p) => p.name)).size, 20);
  assert.equal(new Set(PEOPLE.map((p) => p.email)).size, 20);
  for (const person of PEOPLE) {
    assert.match(person.email, /^[a-z.]+@example\.com$/);
    assert.match(person.name, /^\S+ \S+$/);
  }
});

Deno.test("createContactsJson() encodes the people with fresh phones in order", () => {
  const contactsJson = createContactsJson(Math.random);
  const decode = (bytes: Uint8Array) =>
    JSON.parse(new TextDecoder().decode(bytes));
  const first = decode(contactsJson());
  const second = decode(contactsJson());
  assert.equal(first.length, 20);
  assert.deepEqual(
    first.map((c: { name: string; email: string }) => [c.name, c.email]),
    PEOPLE.map((p) => [p.name, p.email]),
  );
  for (const contact of first) {
    assert.deepEqual(Object.keys(contact), ["phone", "name", "email"]);
    assert.match(contact.phone, PHONE);
  }
  assert.notDeepEqual(
    first.map((c: { phone: string }) => c.phone),
    second.map((c: { phone: string }) => c.phone),
  );
  assert.ok(/^\+1 \d{3}-\d{3}-\d{4}$/.test(first[0].phone));
});

Deno.test("createContactsJson() never overwrites an earlier response", () => {
  const contactsJson = createContactsJson(Math.random);
  const decoder = new TextDecoder();
  const responses: Uint8Array[] = [];
  const texts: string[] = [];
  for (let i = 0; i < 200; i++) {
    const bytes = contactsJson();
    responses.push(bytes);
    texts.push(decoder.decode(bytes));
  }
  const again = responses.map((bytes) => decoder.decode(bytes));
  assert.deepEqual(again, texts);
  assert.equal(new Set(texts).size, 200);
  for (const text of texts) assert.equal(JSON.parse(text).length, 20);
});
