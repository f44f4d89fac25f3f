/**
 * End to end: the `table` role's page in Debian's Chromium (headless, driven by
 * puppeteer-core), reading a real `data-api` role; both started through `main.ts`.
 */
import assert from "node:assert/strict";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import {
  listeningUrl,
  type MainProcess,
  requireBinary,
  startMain,
} from "./_test_helpers.ts";

const chromium = requireBinary("chromium", ["/usr/bin/chromium"]);
const TOKEN = "browser-test-token-9d2";
const OUTPUT = new URL("../test_output/", import.meta.url).pathname;

function startTable(apiUrl: string, apiKey: string): MainProcess {
  return startMain(["table", "0", "127.0.0.1", "false"], {
    env: { API_URL: apiUrl, API_KEY: apiKey },
  });
}

const cellsOf = (page: Page, column: number) =>
  page.$$eval(
    "#data tbody tr",
    (rows, i) => rows.map((row) => row.children[i as number]!.textContent!),
    column,
  );

async function openPage(browser: Browser, url: string, errors: string[]) {
  const page = await browser.newPage();
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.setViewport({ width: 1000, height: 900 });
  await page.goto(url, { waitUntil: "load" });
  return page;
}

Deno.test({
  name:
    "the table page in Chromium: rows, refresh, notice, sorting, filter, paging, errors",
  ignore: chromium.ignore,
  async fn(t) {
    await Deno.mkdir(OUTPUT, { recursive: true });
    const userDataDir = await Deno.makeTempDir({
      prefix: "homewire-chromium-",
    });
    // A stand-in for a broken API (500 on /data) and an empty one (/empty).
    const standIn = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) =>
        new URL(request.url).pathname === "/empty"
          ? Response.json({ data: [] })
          : Response.json({ message: "Database down" }, { status: 500 }),
    );
    const api = startMain(["data-api"], {
      env: {
        DATA_API_TOKEN: TOKEN,
        DATA_API_HOST: "127.0.0.1",
        DATA_API_PORT: "0",
      },
    });
    const processes: MainProcess[] = [api];
    let browser: Browser | undefined;
    try {
      const apiUrl = `${await listeningUrl(api, "data-api")}/data`;
      const good = startTable(apiUrl, TOKEN);
      const denied = startTable(apiUrl, "not-the-token");
      const standInUrl = `http://127.0.0.1:${standIn.addr.port}`;
      const broken = startTable(`${standInUrl}/data`, "k");
      const empty = startTable(`${standInUrl}/empty`, "k");
      processes.push(good, denied, broken, empty);
      const [goodUrl, deniedUrl, brokenUrl, emptyUrl] = await Promise.all(
        [good, denied, broken, empty].map((p) => listeningUrl(p, "table")),
      );
      browser = await puppeteer.launch({
        executablePath: chromium.path ?? "/usr/bin/chromium",
        args: [
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          `--user-data-dir=${userDataDir}`,
        ],
      });
      const errors: string[] = [];
      const page = await openPage(browser, `${goodUrl}/`, errors);

      await t.step("the table shows 20 rows when the page opens", async () => {
        await page.waitForFunction(
          `document.querySelectorAll("#data tbody tr").length === 20`,
          { timeout: 15_000 },
        );
        const headers = await page.$$eval(
          "#data thead th",
          (ths) => ths.map((th) => th.textContent),
        );
        assert.deepEqual(headers, ["phone", "name", "email"]);
        assert.ok(!(await page.content()).includes(TOKEN), "key in the page");
        for (const phone of await cellsOf(page, 0)) {
          assert.match(phone, /^\+1 [2-9]\d\d-[1-9]\d\d-[1-9]\d{3}$/);
        }
        assert.equal(
          await page.$eval("#refresh", (b) => `${b.tagName} ${b.textContent}`),
          "BUTTON Refresh data",
        );
      });

      await t.step(
        "clicking #refresh shows Updating... and new phones",
        async () => {
          const before = await cellsOf(page, 0);
          const names = await cellsOf(page, 1);
          await page.click("#refresh");
          await page.waitForFunction(
            `document.getElementById("notice").textContent === "Updating..."`,
            { timeout: 5_000 },
          );
          assert.equal(
            await page.$eval(
              "#notice",
              (n) => n.getBoundingClientRect().height > 0,
            ),
            true,
          );
          await page.screenshot({ path: `${OUTPUT}table_updating.png` });
          await page.waitForFunction(
            `(() => {
              const old = ${JSON.stringify(before)};
              const phones = [...document.querySelectorAll("#data tbody td:first-child")]
                .map((td) => td.textContent);
              return phones.length === 20 && phones.some((p, i) => p !== old[i]);
            })()`,
            { timeout: 10_000 },
          );
          assert.deepEqual(await cellsOf(page, 1), names);
          await page.waitForFunction(
            `document.getElementById("notice").textContent === ""`,
            { timeout: 10_000 },
          );
        },
      );

      await t.step(
        "clicking a column header sorts by it, again reverses",
        async () => {
          await page.click("#data thead th:nth-child(2) button");
          const ascending = await cellsOf(page, 1);
          assert.deepEqual(
            ascending,
            [...ascending].sort((a, b) => a.localeCompare(b)),
          );
          assert.equal(
            await page.$eval(
              "#data thead th:nth-child(2)",
              (th) => th.getAttribute("aria-sort"),
            ),
            "ascending",
          );
          await page.click("#data thead th:nth-child(2) button");
          assert.deepEqual(await cellsOf(page, 1), [...ascending].reverse());
          assert.equal(
            await page.$eval(
              "#data thead th:nth-child(2)",
              (th) => th.getAttribute("aria-sort"),
            ),
            "descending",
          );
        },
      );

      await t.step("the filter box keeps the matching rows", async () => {
        await page.type("#filter", "thornbury");
        assert.deepEqual(await cellsOf(page, 1), ["Ada Thornbury"]);
        await page.click("#filter", { count: 3 });
        await page.keyboard.press("Backspace");
        await page.type("#filter", "no such person");
        assert.equal((await cellsOf(page, 1)).length, 0);
        assert.equal(
          await page.$eval("#state", (p) => p.textContent),
          "No rows match the filter.",
        );
        await page.$eval("#filter", (input) => {
          (input as unknown as { value: string }).value = "";
          input.dispatchEvent(new Event("input", { bubbles: true }));
        });
        assert.equal((await cellsOf(page, 1)).length, 20);
      });

      await t.step("paging shows one page at a time", async () => {
        await page.select("#page-size", "10");
        const first = await cellsOf(page, 1);
        assert.equal(first.length, 10);
        assert.match(
          await page.$eval("#page-info", (s) => s.textContent!),
          /Rows 1-10 of 20, page 1 of 2/,
        );
        await page.click("#next");
        const second = await cellsOf(page, 1);
        assert.equal(second.length, 10);
        assert.equal(new Set([...first, ...second]).size, 20);
        assert.equal(
          await page.$eval("#next", (b) => b.hasAttribute("disabled")),
          true,
        );
        await page.click("#prev");
        await page.select("#page-size", "25");
        assert.equal((await cellsOf(page, 1)).length, 20);
        await page.screenshot({
          path: `${OUTPUT}table_page.png`,
          fullPage: true,
        });
        assert.deepEqual(errors, []);
      });

      for (
        const [name, url, code, text] of [
          [
            "a data API returning 500 shows the code",
            brokenUrl,
            "500",
            /Database down/,
          ],
          ["a refused key shows 401", deniedUrl, "401", /Not valid token/],
        ] as const
      ) {
        await t.step(name, async () => {
          const failingPage = await openPage(browser!, `${url}/`, []);
          await failingPage.waitForSelector("#error:not([hidden])", {
            timeout: 15_000,
          });
          const message = await failingPage.$eval(
            "#error",
            (p) => p.textContent!,
          );
          assert.match(message, new RegExp(`\\b${code}\\b`));
          assert.match(message, text);
          assert.equal(
            await failingPage.$eval("#data", (t) => t.hasAttribute("hidden")),
            true,
          );
          assert.equal(
            await failingPage.$eval(
              "#pager",
              (n) => n.getBoundingClientRect().height,
            ),
            0,
          );
          await failingPage.screenshot({
            path: `${OUTPUT}table_error_${code}.png`,
          });
          await failingPage.close();
        });
      }

      await t.step(
        "an API returning no rows shows the empty state",
        async () => {
          const emptyPage = await openPage(browser!, `${emptyUrl}/`, []);
          await emptyPage.waitForFunction(
            `document.getElementById("state").textContent === "The data API returned no rows."`,
            { timeout: 15_000 },
          );
          assert.equal(
            await emptyPage.$eval("#error", (p) => p.hasAttribute("hidden")),
            true,
          );
          await emptyPage.close();
        },
      );
    } finally {
      await browser?.close();
      for (const p of processes.reverse()) await p.stop();
      await standIn.shutdown();
      await Deno.remove(userDataDir, { recursive: true });
    }
  },
});
