/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Explorer render time and page weight (issue 15): each view of /explore drawn in headless
 * Chromium from answers of the size 2M complaints give (the daily series over ~3,000 days, by
 * created day and robocall: ~9,000 groups; every state; cities, area codes, subjects, numbers;
 * a page of notices), served by the browser's request interception so that only drawing is
 * timed. A view's time is the explorer's own `render:SECTION` measures (from the answer's
 * arrival through the next frame), the slowest section and the sum, over several runs. The
 * weight is what /explore and the files it loads cost compressed (br), from a real server.
 * Writes bench/results/web-render.md.
 * Usage: npm run bench:web -- [--runs R] [--days D]
 */
import { writeFileSync } from "node:fs";
import { request } from "node:https";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Page, type Route } from "playwright-core";
import { startTestServer } from "../test/support/test-server.js";
import { ROOT } from "./support/processes.js";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, days: { type: "string", default: "3000" } },
});
const runs = Number(values.runs);
const days = Number(values.days);
const CHROMIUM = "/usr/bin/chromium";
const FIRST_DAY = Date.UTC(2018, 0, 1);
const LAST_DAY = FIRST_DAY + (days - 1) * 86_400_000;
const day = (millis: number) => new Date(millis).toISOString().slice(0, 10);
const STATES = [
  "Alabama",
  "Alaska",
  "Arizona",
  "Arkansas",
  "California",
  "Colorado",
  "Connecticut",
  "Delaware",
  "District of Columbia",
  "Florida",
  "Georgia",
  "Hawaii",
  "Idaho",
  "Illinois",
  "Indiana",
  "Iowa",
  "Kansas",
  "Kentucky",
  "Louisiana",
  "Maine",
  "Maryland",
  "Massachusetts",
  "Michigan",
  "Minnesota",
  "Mississippi",
  "Missouri",
  "Montana",
  "Nebraska",
  "Nevada",
  "New Hampshire",
  "New Jersey",
  "New Mexico",
  "New York",
  "North Carolina",
  "North Dakota",
  "Ohio",
  "Oklahoma",
  "Oregon",
  "Pennsylvania",
  "Rhode Island",
  "South Carolina",
  "South Dakota",
  "Tennessee",
  "Texas",
  "Utah",
  "Vermont",
  "Virginia",
  "Washington",
  "West Virginia",
  "Wisconsin",
  "Wyoming",
  "Puerto Rico",
  "Guam",
  "",
];

/** A counts answer as the API shapes it. */
function countAnswer(by: string[], groups: Array<Record<string, string | number>>) {
  const total = groups.reduce((sum, group) => sum + Number(group.count), 0);
  return {
    data: groups,
    meta: { by, "record-total": total, "group-total": groups.length, "groups-this-page": groups.length },
    links: { self: "https://bench.invalid/v0/dnc-complaints/counts" },
  };
}

/** Synthetic answers of 2M complaints' size for every request the explorer makes. */
function answerFor(url: URL): unknown {
  const random = seededRandom(url.search.length);
  const by = (url.searchParams.get("by") ?? "").split(",");
  if (url.pathname === "/v0/status") {
    return {
      data: [
        {
          id: "dnc-complaints",
          attributes: { "record-count": 2_000_000, "newest-created-date": `${day(LAST_DAY)} 23:59:00` },
        },
      ],
    };
  }
  if (url.pathname === "/v0/hsr-early-termination-notices/counts") {
    return countAnswer(
      ["year"],
      Array.from({ length: 25 }, (_, index) => ({ year: String(2001 + index), count: 50 + index })),
    );
  }
  if (url.pathname === "/v0/hsr-early-termination-notices") {
    return {
      data: Array.from({ length: 20 }, (_, index) => ({
        id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
        links: { self: { href: `https://bench.invalid/v0/hsr-early-termination-notices/${index}` } },
        attributes: {
          title: `2020${String(index).padStart(4, "0")}: Capital Partners ${index}, L.P.; Target ${index} Inc.`,
          date: `2020-${String((index % 12) + 1).padStart(2, "0")}-15`,
          "acquiring-party": `Capital Partners ${index}, L.P.`,
          "acquired-party": `Target ${index} Inc.`,
          "transaction-number": `2020${String(index).padStart(4, "0")}`,
        },
      })),
      meta: { count: 1402 },
    };
  }
  if (by[0] === "created_date") {
    const groups: Array<Record<string, string | number>> = [];
    for (let index = 0; index < days; index++) {
      for (const robocall of ["", "N", "Y"]) {
        groups.push({
          "created-date": day(FIRST_DAY + index * 86_400_000),
          "recorded-message-or-robocall": robocall,
          count: 50 + Math.floor(random() * 400),
        });
      }
    }
    return countAnswer(by, groups);
  }
  const member: Record<string, string> = {
    state: "consumer-state",
    city: "consumer-city",
    area_code: "consumer-area-code",
    subject: "subject",
    company_phone_number: "company-phone-number",
  };
  const limit = Number(url.searchParams.get("limit") ?? 1000);
  const values =
    by[0] === "state"
      ? STATES
      : Array.from({ length: Math.min(limit, 1000) }, (_, index) =>
          by[0] === "company_phone_number" ? String(2_000_000_000 + index * 7919) : `${by[0]} ${index}`,
        );
  const groups = values.slice(0, limit).map((value, index) => ({
    [member[by[0]!]!]: value,
    count: 200_000 - index * 3000 - Math.floor(random() * 1000),
  }));
  return countAnswer(by, groups);
}

/** The explorer's render measures after the view is ready, by section. */
async function renderTimes(page: Page, search: string, view: string): Promise<Map<string, number>> {
  await page.goto(`${baseUrl}/explore${search}`);
  await page.waitForSelector(`#view[data-ready="${view}"]`, { timeout: 60_000 });
  const entries = await page.evaluate(() =>
    performance.getEntriesByType("measure").map((entry) => [entry.name, entry.duration] as const),
  );
  return new Map(
    entries.filter(([name]) => name.startsWith("render:")).map(([name, ms]) => [name.slice(7), ms]),
  );
}

function compressedSize(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { ca, headers: { "Accept-Encoding": "br, gzip" }, agent: false }, (res) => {
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
      });
      res.on("end", () => resolve(size));
    })
      .on("error", reject)
      .end();
  });
}

const server = await startTestServer();
const baseUrl = server.httpsUrl;
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
const lines: string[] = [];
try {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: 1000, height: 700 },
  });
  await context.route(
    (url) => url.pathname.startsWith("/v0/"),
    (route: Route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        headers: { "X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "999", "X-RateLimit-Reset": "3600" },
        body: JSON.stringify(answerFor(new URL(route.request().url()))),
      }),
  );
  const range = `from=${day(FIRST_DAY)}&to=${day(LAST_DAY)}`;
  const views: Array<[string, string, string]> = [
    ["complaints (chart, map, tops)", `?view=complaints&${range}`, "complaints"],
    ["state (cities, area codes)", `?view=state&state=California&${range}`, "state"],
    ["phone number (chart, states, subjects)", "?view=phone&number=2125550100", "phone"],
    ["notices (a page of 20, years)", "?view=notices&q=capital", "notices"],
  ];
  lines.push(
    `# Explorer render time and weight`,
    "",
    `Measured ${new Date().toISOString().slice(0, 16)} UTC by \`npm run bench:web\` (bench/web-render.ts): headless Chromium ` +
      `(${browser.version()}), 1000x700, ${runs} runs a view, each a fresh page load; answers of 2M complaints' size ` +
      `(the daily series: ${days} days by created day and robocall, ${days * 3} groups) served by request interception, ` +
      `so only drawing is timed. Time: the explorer's \`render:SECTION\` measures, from the answer's arrival through the next frame. ` +
      `Machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)} at the start (shared with other work).`,
    "",
    "| view | sections | slowest section, median (ms) | slowest section, worst run (ms) | all sections, median (ms) |",
    "|---|---|---|---|---|",
  );
  for (const [name, search, view] of views) {
    const slowest: number[] = [];
    const sums: number[] = [];
    let sections: string[] = [];
    for (let run = 0; run < runs; run++) {
      const page = await context.newPage();
      const times = await renderTimes(page, search, view);
      await page.close();
      sections = [...times.keys()];
      slowest.push(Math.max(...times.values()));
      sums.push([...times.values()].reduce((sum, ms) => sum + ms, 0));
    }
    const median = (list: number[]) =>
      [...list].sort((left, right) => left - right)[Math.floor(list.length / 2)]!;
    lines.push(
      `| ${name} | ${sections.join(", ")} | ${median(slowest).toFixed(0)} | ${Math.max(...slowest).toFixed(0)} | ${median(sums).toFixed(0)} |`,
    );
  }
  const explore = await compressedSize(`${baseUrl}/explore`, server.ca);
  const page = await context.newPage();
  await page.goto(`${baseUrl}/explore?view=notices`);
  const files = await page.evaluate(() =>
    [
      ...document.querySelectorAll<HTMLScriptElement | HTMLLinkElement>("script[src], link[rel=stylesheet]"),
    ].map((element) => ("src" in element ? element.src : element.href)),
  );
  await page.close();
  let weight = explore;
  const rows = [`| /explore (HTML) | ${explore} |`];
  for (const file of files) {
    const size = await compressedSize(file, server.ca);
    weight += size;
    rows.push(`| ${new URL(file).pathname} | ${size} |`);
  }
  lines.push(
    "",
    `Page weight of /explore, compressed (brotli, as a browser gets it): **${(weight / 1024).toFixed(1)} KB** (budget: 500 KB).`,
    "",
    "| file | bytes |",
    "|---|---|",
    ...rows,
    "",
  );
} finally {
  await browser.close();
  await server.stop();
}
const out = join(ROOT, "bench", "results", "web-render.md");
writeFileSync(out, `${lines.join("\n")}\n`);
process.stdout.write(`${lines.join("\n")}\nwritten to ${out}\n`);
