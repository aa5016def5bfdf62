/// <reference lib="dom" />
/**
 * The web front in a real browser (issue 15): Debian's Chromium, driven by playwright-core, over a
 * real `ftcapi serve` process on generated data. The landing page's figures are /v0/status's; the
 * explorer's chart has one point per day of the range with the counts endpoint's values, its map
 * one shape per state with complaints, darker for more, each leading (by click or keyboard) to
 * the state's cities; a phone lookup and a notice search show what the API answers; a bad key
 * and a spent limit are explained; nothing is requested from another origin, nothing is logged
 * as an error, and a 320 px wide screen needs no sideways scrolling.
 *
 * Screenshots of each view go to a temporary directory, and to docs/images/ only with
 * FTCAPI_UPDATE_SCREENSHOTS=1 (so that a test run leaves the tree as it was).
 */
import assert from "node:assert/strict";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { launchChromium, NO_CHROMIUM } from "../support/chromium.js";
import { REPO_ROOT } from "../support/cli.js";
import { fetchRaw } from "../support/https-client.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const FROM = "2026-09-20";
const TO = "2026-10-31";
const RANGE_DAYS = 42;
const UPDATE_SCREENSHOTS = process.env.FTCAPI_UPDATE_SCREENSHOTS === "1";
const VIEWPORT = { width: 1000, height: 700 };

/** A colour `rgb(r, g, b)` as its relative luminance (WCAG's formula). */
function luminance(colour: string): number {
  const [r, g, b] = (/rgb\((\d+), (\d+), (\d+)\)/.exec(colour) ?? []).slice(1).map((channel) => {
    const value = Number(channel) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  assert.ok(r !== undefined && g !== undefined && b !== undefined, `not an rgb() colour: ${colour}`);
  return 0.2126 * r + 0.7152 * g! + 0.0722 * b!;
}

describe("the web front in Chromium", { skip: NO_CHROMIUM }, () => {
  let server: ServeProcess;
  let ca: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let limitedKey: string;
  let shots: string;
  const consoleErrors: string[] = [];
  const foreignRequests: string[] = [];
  /** Console errors expected while a refused key is shown (the browser logs the failed fetch). */
  let refusalsExpected = false;

  const api = async (path: string) => {
    const res = await fetchRaw(`${server.httpsUrl}${path}`, { ca, headers: { "X-Api-Key": "DEMO_KEY" } });
    assert.equal(res.status, 200, `${path}: ${res.body.slice(0, 300)}`);
    return res.json();
  };
  const counts = (query: string) => api(`/v0/dnc-complaints/counts?${query}`);
  const ready = (view: string) => page.waitForSelector(`#view[data-ready="${view}"]`, { timeout: 30_000 });
  /** A screenshot of the viewport, scrolled to `anchor` (an element id) when the page has it. */
  const shoot = async (name: string, target: Page = page, anchor = "view-title") => {
    const file = join(shots, `${name}.png`);
    // Explorer views are shot from their title down (the key panel above is the same in each).
    await target.evaluate((id) => document.getElementById(id)?.scrollIntoView(), anchor);
    await target.screenshot({ path: file });
    if (UPDATE_SCREENSHOTS) {
      const folder = join(REPO_ROOT, "docs", "images");
      await mkdir(folder, { recursive: true });
      await copyFile(file, join(folder, `${name}.png`));
    }
  };

  before(async () => {
    const directory = await makeTempDirectory();
    shots = join(directory, "screenshots");
    await mkdir(shots);
    const db = join(directory, "ftcapi.db");
    const complaints = join(directory, "complaints.csv");
    const notices = join(directory, "notices.csv");
    await writeComplaintCsv(
      { rows: 6000, days: 60, seed: 11, endSeconds: Date.parse(`${TO}T00:00:00Z`) / 1000 + 86_400 },
      complaints,
    );
    // A busier fortnight on top, so that the days differ.
    const burst = join(directory, "burst.csv");
    await writeComplaintCsv(
      { rows: 1500, days: 14, seed: 12, endSeconds: Date.parse("2026-10-20T00:00:00Z") / 1000 },
      burst,
    );
    await writeNoticeCsv({ rows: 300, seed: 11 }, notices);
    await importFiles(db, { complaints: [complaints, burst], notices: [notices] });
    limitedKey = await createTestKey(db, { limitPerHour: 2 });
    server = await startServeProcess(
      localServeFlags(db, "--demo-limit-per-hour", "100000", "--demo-limit-per-day", "100000"),
    );
    ca = await readFile(server.certPath!, "utf8");
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: VIEWPORT });
    const origin = new URL(server.httpsUrl).origin;
    // Anything for another origin is recorded and refused: the front must need no network.
    await context.route(
      (url) => !["data:", "blob:"].includes(url.protocol) && url.origin !== origin,
      (route) => {
        foreignRequests.push(route.request().url());
        return route.abort();
      },
    );
    page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      if (refusalsExpected && /status of (403|429)/.test(message.text())) return;
      consoleErrors.push(message.text());
    });
    page.on("pageerror", (err) => consoleErrors.push(`page error: ${err.message}`));
  });

  after(async () => {
    await browser?.close();
    if (server) assert.equal(await server.stop(), 0, server.errorOutput());
  });

  it("shows on / the figures of /v0/status", async () => {
    const status = await api("/v0/status");
    await page.goto(`${server.httpsUrl}/`);
    for (const collection of status.data) {
      const card = page.locator(`[data-collection="${collection.id}"]`);
      const count = await card.locator('[data-field="record-count"]').textContent();
      assert.equal(Number(count?.replace(/,/g, "")), collection.attributes["record-count"], collection.id);
      assert.equal(
        await card.locator('[data-field="newest-created-date"]').textContent(),
        collection.attributes["newest-created-date"],
      );
    }
    assert.match(
      (await page.locator("pre").first().textContent()) ?? "",
      /^curl --cacert \S+ -H 'X-Api-Key: DEMO_KEY' 'https:\/\//,
    );
    await shoot("landing");
  });

  it("renders the API reference with Redoc from this server, and the guide", async () => {
    await page.goto(`${server.httpsUrl}/docs`);
    await page.waitForSelector("#redoc-container h1", { timeout: 30_000 });
    await page.waitForSelector("#plain-reference", { state: "hidden" });
    assert.ok((await page.locator("#redoc-container").textContent())?.includes("/v0/dnc-complaints/counts"));
    await shoot("docs");
    await page.goto(`${server.httpsUrl}/docs/guide`);
    assert.equal(await page.locator("main h1").first().textContent(), "The Do Not Call complaints API");
  });

  it("draws complaints per day, one point per day of the range, with the counts endpoint's values", async () => {
    await page.goto(`${server.httpsUrl}/explore?view=complaints&from=${FROM}&to=${TO}`);
    await ready("complaints");
    const chart = page.locator("[data-section=daily] figure.chart");
    assert.equal(Number(await chart.getAttribute("data-points")), RANGE_DAYS);
    assert.equal(await page.locator("[data-section=daily] canvas").count(), 1);
    const answer = await counts(`by=created_date&created_date_from=${FROM}&created_date_to=${TO}&sort=key`);
    const expected = new Map<string, number>(
      answer.data.map((group: any) => [group["created-date"], group.count]),
    );
    const rows = await page
      .locator(".daily-table tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector("th")!.textContent!,
          Number(tr.querySelector("td")!.textContent!.replace(/,/g, "")),
        ]),
      );
    assert.equal(rows.length, RANGE_DAYS);
    for (const [day, count] of rows) assert.equal(count, expected.get(day as string) ?? 0, String(day));
    assert.equal(rows[0]![0], FROM);
    assert.equal(rows[RANGE_DAYS - 1]![0], TO);
    const total = await page.locator("[data-section=daily] [data-total]").getAttribute("data-total");
    assert.equal(Number(total), answer.meta["record-total"]);
    await shoot("explore-complaints");
  });

  it("maps complaints by state: one shape per state with complaints, darker for more", async () => {
    const answer = await counts(`by=state&created_date_from=${FROM}&created_date_to=${TO}&limit=1000`);
    const shapes = await page.locator("svg.state-map path[data-state]").evaluateAll((paths) =>
      paths.map((path) => ({
        state: path.getAttribute("data-state")!,
        count: Number(path.getAttribute("data-count")),
        fill: getComputedStyle(path).fill,
      })),
    );
    const drawn = new Map(shapes.map((shape) => [shape.state, shape]));
    assert.equal(shapes.length, drawn.size, "one shape per state");
    const withData = answer.data.filter((group: any) => drawn.has(group["consumer-state"]));
    assert.ok(withData.length >= 40, `${withData.length} states with complaints`);
    assert.equal(shapes.filter((shape) => shape.count > 0).length, withData.length);
    for (const group of withData) assert.equal(drawn.get(group["consumer-state"])!.count, group.count);
    const byCount = shapes.filter((shape) => shape.count > 0).sort((left, right) => left.count - right.count);
    for (let index = 1; index < byCount.length; index++) {
      const fewer = byCount[index - 1]!;
      const more = byCount[index]!;
      const comparison = `${more.state} (${more.count}, ${more.fill}) against ${fewer.state} (${fewer.count}, ${fewer.fill})`;
      if (more.count > fewer.count) assert.ok(luminance(more.fill) < luminance(fewer.fill), comparison);
      else assert.equal(more.fill, fewer.fill, comparison);
    }
  });

  it("lists the top subjects and numbers of the range", async () => {
    const subjects = await counts(`by=subject&created_date_from=${FROM}&created_date_to=${TO}&limit=10`);
    const shown = await page.locator("[data-section=subjects] tbody th").allTextContents();
    assert.equal(shown.length, subjects.data.length);
    assert.equal(shown[0], subjects.data[0].subject || "(no subject given)");
    assert.ok((await page.locator("[data-section=numbers] tbody tr").count()) > 0);
  });

  it("opens a state's cities and area codes by click, and by keyboard", async () => {
    await page.locator('svg.state-map a[aria-label^="California:"]').click();
    await ready("state");
    assert.match(page.url(), /view=state&state=California&from=2026-09-20&to=2026-10-31/);
    const cities = await counts(
      `by=city&state=California&created_date_from=${FROM}&created_date_to=${TO}&limit=25`,
    );
    const shown = await page
      .locator("[data-section=cities] tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector("th")!.textContent,
          Number(tr.querySelector("td")!.textContent!.replace(/,/g, "")),
        ]),
      );
    assert.equal(shown.length, cities.data.length);
    assert.deepEqual(shown[0], [cities.data[0]["consumer-city"] || "(no city given)", cities.data[0].count]);
    assert.ok((await page.locator("[data-section=area-codes] tbody tr").count()) > 0);
    await shoot("explore-state");
    await page.goBack();
    await ready("complaints");
    await page.locator('svg.state-map a[aria-label^="Texas:"]').focus();
    await page.keyboard.press("Enter");
    await ready("state");
    assert.match(page.url(), /state=Texas/);
    assert.match((await page.locator("#view-title").textContent()) ?? "", /^Texas: /);
  });

  it("looks up a phone number: its complaints over time, states and subjects", async () => {
    const top = await counts("by=company_phone_number&limit=5");
    const number = top.data.find((group: any) => group["company-phone-number"] !== "")[
      "company-phone-number"
    ];
    await page.getByRole("link", { name: "Phone number", exact: true }).click();
    await ready("phone");
    await page.getByLabel(/Reported number/).fill(number);
    await page.getByRole("button", { name: "Look up" }).click();
    await page.waitForURL(/view=phone&number=\d+/);
    await ready("phone");
    const answer = await counts(`by=created_date&company_phone_number=${number}&sort=key`);
    const total = await page.locator("[data-section=phone-daily] [data-total]").getAttribute("data-total");
    assert.equal(Number(total), answer.meta["record-total"]);
    assert.ok(answer.meta["record-total"] > 0);
    const states = await counts(`by=state&company_phone_number=${number}`);
    assert.equal(await page.locator("[data-section=phone-states] tbody tr").count(), states.data.length);
    await shoot("explore-phone");
  });

  it("searches notices by party or title and year, newest first, each linking to its JSON", async () => {
    await page.getByRole("link", { name: "Notices", exact: true }).click();
    await ready("notices");
    await page.getByLabel("Party or title contains").fill("capital");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/view=notices&q=capital/);
    await ready("notices");
    const filters =
      "filter[p][group][conjunction]=OR" +
      ["title", "acquiring-party", "acquired-party"]
        .map(
          (path, index) =>
            `&filter[c${index}][condition][path]=${path}&filter[c${index}][condition][operator]=CONTAINS&filter[c${index}][condition][value]=capital&filter[c${index}][condition][memberOf]=p`,
        )
        .join("");
    const expected = await api(
      `/v0/hsr-early-termination-notices?${filters}&sort=-date,-created&page[limit]=20`,
    );
    assert.ok(expected.meta.count > 0);
    const total = await page.locator("[data-section=notices] [data-total]").getAttribute("data-total");
    assert.equal(Number(total), expected.meta.count);
    const shown = await page
      .locator(".notice-list li")
      .evaluateAll((items) =>
        items.map((item) => ({ id: item.getAttribute("data-notice"), json: item.querySelector("a")!.href })),
      );
    assert.deepEqual(
      shown.map((item) => item.id),
      expected.data.map((notice: any) => notice.id),
    );
    for (const item of shown)
      assert.ok(item.json.startsWith(`${server.httpsUrl}/v0/hsr-early-termination-notices/${item.id}`));
    const json = await page.request.get(shown[0]!.json);
    assert.equal(json.status(), 200);
    assert.equal((await json.json()).data[0].id, shown[0]!.id);
    await shoot("explore-notices");
    const year = expected.data[0].attributes.date.slice(0, 4);
    await page.getByLabel("Year granted").selectOption(year);
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(new RegExp(`year=${year}`));
    await ready("notices");
    const dates = await page.locator(".notice-facts").allTextContents();
    assert.ok(dates.length > 0);
    for (const text of dates) assert.match(text, new RegExp(`^Granted: ${year}-`));
  });

  it("keeps every view in its URL: a shared link opens the same view", async () => {
    const shared = await context.newPage();
    await shared.goto(`${server.httpsUrl}/explore?view=state&state=Ohio&from=${FROM}&to=${TO}`);
    await shared.waitForSelector('#view[data-ready="state"]');
    assert.match(
      (await shared.locator("#view-title").textContent()) ?? "",
      /^Ohio: complaints created from 2026-09-20 to 2026-10-31/,
    );
    await shared.close();
  });

  it("explains an invalid key and a spent limit, and keeps the key out of URLs", async () => {
    refusalsExpected = true;
    await page.goto(`${server.httpsUrl}/explore?view=complaints&from=${FROM}&to=${TO}`);
    await ready("complaints");
    await page.getByLabel("Your API key (optional)").fill("not-a-key-of-this-server");
    await page.getByRole("button", { name: "Use this key" }).click();
    const problem = page.locator("#api-problem");
    await page.waitForSelector('#api-problem[data-code="API_KEY_INVALID"]');
    assert.match((await problem.textContent()) ?? "", /Key not accepted/);
    await problem.getByRole("button", { name: "use DEMO_KEY" }).click();
    await ready("complaints");
    assert.equal(await problem.isHidden(), true);

    await page.getByLabel("Your API key (optional)").fill(limitedKey);
    await page.getByRole("button", { name: "Use this key" }).click();
    await page.waitForSelector('#api-problem[data-code="OVER_RATE_LIMIT"]');
    assert.match((await problem.textContent()) ?? "", /Too many requests/);
    assert.ok(!page.url().includes(limitedKey));
    assert.equal(await page.evaluate(() => localStorage.getItem("ftcapi.apiKey")), limitedKey);
    await shoot("explore-rate-limited", page, "api-problem");
    await page.getByRole("button", { name: "Use DEMO_KEY", exact: true }).click();
    await ready("complaints");
    refusalsExpected = false;
  });

  it("fits a 320 px wide screen without sideways scrolling", async () => {
    const narrow = await context.newPage();
    await narrow.setViewportSize({ width: 320, height: 640 });
    for (const path of [
      "/",
      "/docs",
      "/docs/guide",
      `/explore?view=complaints&from=${FROM}&to=${TO}`,
      "/explore?view=notices&q=capital",
    ]) {
      await narrow.goto(`${server.httpsUrl}${path}`);
      if (path.startsWith("/explore")) await narrow.waitForSelector("#view[data-ready]");
      if (path === "/docs") await narrow.waitForSelector("#redoc-container h1", { timeout: 30_000 });
      const widths = await narrow.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      assert.ok(widths[0]! <= widths[1]!, `${path}: ${widths[0]} px wide in a ${widths[1]} px window`);
    }
    await narrow.goto(`${server.httpsUrl}/explore?view=complaints&from=${FROM}&to=${TO}`);
    await narrow.waitForSelector("#view[data-ready]");
    await shoot("explore-320px", narrow, "main");
    await narrow.close();
  });

  it("works without JavaScript where it can: the landing page and the docs' list of paths", async () => {
    const plain = await browser.newContext({
      ignoreHTTPSErrors: true,
      javaScriptEnabled: false,
      viewport: VIEWPORT,
    });
    try {
      const noScript = await plain.newPage();
      await noScript.goto(`${server.httpsUrl}/docs`);
      assert.equal(await noScript.locator("#plain-reference").isVisible(), true);
      assert.ok(
        (await noScript.locator("#plain-reference").textContent())?.includes("GET /v0/dnc-complaints/counts"),
      );
      await noScript.goto(`${server.httpsUrl}/`);
      assert.equal(await noScript.locator('[data-field="record-count"]').count(), 2);
      await noScript.goto(`${server.httpsUrl}/explore`);
      assert.match((await noScript.locator("main").textContent()) ?? "", /needs? JavaScript|with JavaScript/);
    } finally {
      await plain.close();
    }
  });

  it("logged no error and asked nothing of another origin", () => {
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(foreignRequests, []);
  });
});
