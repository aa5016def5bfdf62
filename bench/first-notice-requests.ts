/**
 * The first request of every kind of notice query after a start (issue 13, item 1: "from the first
 * request after a start"). Each round starts a fresh server on the database, waits until it
 * listens, then sends, one at a time on one keep-alive connection, one request of every field with
 * every operator the field takes, every field's sort in both directions, sorts of several keys, an
 * OR group, a nested group, plain `title` and `keywords`, a fieldset and a deep page, each with
 * values drawn from the notices themselves (read first through the API) and each asked once: the
 * first request of its kind that server sees. Times are from the request to the last byte of the
 * answer. Reports, over all rounds, p50, p99 and the maximum per family of request and overall,
 * and the slowest requests.
 *
 * Usage: npx tsx bench/first-notice-requests.ts --db FILE|postgres://... [--rounds R] [--seed S] [--show K]
 */
import { writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cli, ROOT, serve } from "./support/processes.js";
import { timedGet } from "./support/timed-get.js";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    rounds: { type: "string", default: "3" },
    seed: { type: "string", default: "5" },
    show: { type: "string", default: "8" },
  },
});
if (values.db === undefined) throw new Error("--db is required");
const db = values.db;
const rounds = Number(values.rounds);
const PATH = "/v0/hsr-early-termination-notices";
const key = cli(["keys", "create", "--db", db, "--email", "first-notices@example.com", "--unlimited"])
  .trim()
  .split("\n")
  .at(-1)!;

const TEXT_FIELDS = ["title", "transaction-number", "acquiring-party", "acquired-party"] as const;
const LIST_FIELDS = ["acquired-entities", "tags"] as const;
const TEXT_OPERATORS = [
  "=",
  "<>",
  "STARTS_WITH",
  "CONTAINS",
  "ENDS_WITH",
  "IN",
  "NOT IN",
  "IS NULL",
  "IS NOT NULL",
];
const ORDER_OPERATORS = [">", ">=", "<", "<=", "BETWEEN", "NOT BETWEEN"];
const SORTABLE = [...TEXT_FIELDS, ...LIST_FIELDS, "id", "date", "created", "updated"];

interface Probe {
  family: string;
  name: string;
  query: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** GET over the server's plain listener (as behind a proxy), timed to the last byte. */
function get(base: string, path: string) {
  return timedGet(`${base}${path}`, agent, { "X-Api-Key": key, "X-Forwarded-Proto": "https" });
}

const condition = (field: string, operator: string, values: readonly string[], name = "c") => {
  const base = `filter[${name}][condition][path]=${field}&filter[${name}][condition][operator]=${encodeURIComponent(operator)}`;
  if (operator === "IS NULL" || operator === "IS NOT NULL") return base;
  if (values.length === 1)
    return `${base}&filter[${name}][condition][value]=${encodeURIComponent(values[0]!)}`;
  return `${base}${values.map((value) => `&filter[${name}][condition][value][]=${encodeURIComponent(value)}`).join("")}`;
};

/** Notices' attributes to draw values from (a page of 50 at a random offset). */
async function sample(base: string, random: () => number): Promise<Array<Record<string, unknown>>> {
  const total = JSON.parse((await get(base, `${PATH}?page[limit]=1`)).body).meta.count as number;
  const offset = Math.floor(random() * Math.max(0, total - 50));
  return JSON.parse((await get(base, `${PATH}?page[offset]=${offset}`)).body).data.map(
    (record: { attributes: Record<string, unknown> }) => record.attributes,
  );
}

/** One probe of every kind, with values from `notices`. */
function probes(notices: Array<Record<string, unknown>>, random: () => number): Probe[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const text = (field: string): string => {
    const value = pick(notices)[field];
    const found = Array.isArray(value) ? value[0] : value;
    return typeof found === "string" && found !== "" ? found : "holdings";
  };
  const piece = (value: string, where: "start" | "middle" | "end") => {
    const length = Math.min(value.length, 3 + Math.floor(random() * 8));
    if (where === "start") return value.slice(0, length);
    if (where === "end") return value.slice(value.length - length);
    const from = Math.floor(random() * Math.max(1, value.length - length));
    return value.slice(from, from + length);
  };
  const list: Probe[] = [];
  for (const field of [...TEXT_FIELDS, ...LIST_FIELDS]) {
    for (const operator of TEXT_OPERATORS) {
      const value = text(field);
      const operands =
        operator === "STARTS_WITH"
          ? [piece(value, "start")]
          : operator === "ENDS_WITH"
            ? [piece(value, "end")]
            : operator === "CONTAINS"
              ? [piece(value, "middle")]
              : operator === "IN" || operator === "NOT IN"
                ? [value, text(field)]
                : [value];
      list.push({
        family: `${field} text`,
        name: `${field} ${operator}`,
        query: condition(field, operator, operands),
      });
    }
  }
  for (const field of ["date", "created", "updated"]) {
    const value = () => {
      const found = pick(notices)[field];
      return typeof found === "string" ? (field === "date" ? found : found.slice(0, 19)) : "2012-06-01";
    };
    for (const operator of [...ORDER_OPERATORS, "=", "IS NULL"]) {
      const [a, b] = [value(), value()].sort();
      const operands = operator.includes("BETWEEN") ? [a!, b!] : [a!];
      list.push({
        family: `${field} order`,
        name: `${field} ${operator}`,
        query: condition(field, operator, operands),
      });
    }
  }
  list.push({
    family: "date text",
    name: "date STARTS_WITH",
    query: condition("date", "STARTS_WITH", [text("date").slice(0, 7)]),
  });
  for (const field of SORTABLE)
    for (const direction of ["", "-"])
      list.push({
        family: "sort",
        name: `sort=${direction}${field}`,
        query: `sort=${direction}${field}&page[offset]=${Math.floor(random() * 2000)}`,
      });
  for (let at = 0; at < 6; at++) {
    const fields = new Set([pick(SORTABLE), pick(SORTABLE), pick(SORTABLE)]);
    const keys = [...fields].map((field) => (random() < 0.5 ? `-${field}` : field));
    list.push({ family: "sort", name: `sort=${keys.join(",")}`, query: `sort=${keys.join(",")}` });
  }
  const orGroup =
    "filter[o][group][conjunction]=OR" +
    `&${condition("acquiring-party", "STARTS_WITH", [piece(text("acquiring-party"), "start")], "a")}&filter[a][condition][memberOf]=o` +
    `&${condition("acquired-entities", "CONTAINS", [piece(text("acquired-entities"), "middle")], "e")}&filter[e][condition][memberOf]=o`;
  list.push({ family: "groups", name: "OR group", query: orGroup });
  list.push({
    family: "groups",
    name: "AND of an OR group and a date range",
    query: `${orGroup}&${condition("date", "BETWEEN", ["2005-01-01", "2015-12-31"], "d")}`,
  });
  const word =
    text("title")
      .split(/\s+/)
      .find((part) => part.length > 3) ?? "holdings";
  list.push({ family: "plain", name: "title keyword", query: `title=${encodeURIComponent(word)}` });
  list.push({
    family: "plain",
    name: "keywords phrase",
    query: `keywords=${encodeURIComponent(`"${word}"`)}`,
  });
  list.push({
    family: "plain",
    name: "fieldset",
    query: "fields[early_termination_notice]=title,date,acquired-entities",
  });
  list.push({
    family: "plain",
    name: "deep page",
    query: `page[offset]=${20_000 + Math.floor(random() * 5000)}`,
  });
  return list;
}

const results: Array<{ round: number; probe: Probe; ms: number }> = [];
for (let round = 0; round < rounds; round++) {
  const random = seededRandom(Number(values.seed) + round);
  const server = await serve(["--db", db, "--trust-proxy"]);
  try {
    // The values are drawn from this server's default pages (a count and one page), which `warm`
    // has already answered: no kind measured below is asked before its turn.
    const notices = await sample(server.httpUrl, random);
    for (const probe of probes(notices, random)) {
      const { status, body, ms } = await get(server.httpUrl, `${PATH}?${probe.query}`);
      if (status !== 200) throw new Error(`${probe.name}: ${status} ${body.slice(0, 300)}`);
      results.push({ round, probe, ms });
    }
  } finally {
    await server.stop();
  }
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return `${quantile(sorted, 0.5).toFixed(2)} | ${quantile(sorted, 0.99).toFixed(2)} | ${sorted.at(-1)!.toFixed(2)}`;
};
const families = [...new Set(results.map((result) => result.probe.family))];
const lines = [
  `# First notice requests after a start, ${db.split("/").at(-1)}`,
  "",
  `${new Date().toISOString()}; ${rounds} rounds, each a fresh server (one worker, notice thread) and ${results.length / rounds} requests, each the first of its kind, one at a time on one keep-alive connection; from the request to the answer's last byte.`,
  "",
  "| requests | count | p50 ms | p99 ms | max ms |",
  "|---|---:|---:|---:|---:|",
  ...families.map((family) => {
    const times = results.filter((result) => result.probe.family === family).map((result) => result.ms);
    return `| ${family} | ${times.length} | ${summary(times)} |`;
  }),
  `| all | ${results.length} | ${summary(results.map((result) => result.ms))} |`,
  "",
  "Slowest:",
  "",
  ...[...results]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, Number(values.show))
    .map(
      (result) =>
        `- ${result.ms.toFixed(2)} ms, round ${result.round + 1}: ${result.probe.name} (\`${result.probe.query}\`)`,
    ),
  "",
];
const file = join(
  ROOT,
  "bench",
  "results",
  `first-notice-requests-${db.includes("://") ? "postgres" : db.split("/").at(-1)!.replace(/\.db$/, "")}.md`,
);
writeFileSync(file, lines.join("\n"));
console.log(lines.join("\n"));
console.log(`written to ${file}`);
