import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const PATH = "/v0/hsr-early-termination-notices";
const OPERATORS = [
  "=",
  "<>",
  ">",
  ">=",
  "<",
  "<=",
  "STARTS_WITH",
  "CONTAINS",
  "ENDS_WITH",
  "IN",
  "NOT IN",
  "BETWEEN",
  "NOT BETWEEN",
  "IS NULL",
  "IS NOT NULL",
] as const;
type Operator = (typeof OPERATORS)[number];
type Kind = "text" | "id" | "date" | "timestamp" | "array";
const FIELDS: Record<string, Kind> = {
  id: "id",
  title: "text",
  "transaction-number": "text",
  "acquiring-party": "text",
  "acquired-party": "text",
  "acquired-entities": "array",
  date: "date",
  created: "timestamp",
  updated: "timestamp",
  tags: "array",
};

/** A notice as the test knows it, independently of the server: from the fixture or the generated CSV. */
interface Known {
  id?: string;
  title: string;
  "transaction-number": string;
  "acquiring-party": string | null;
  "acquired-party": string | null;
  "acquired-entities": string[];
  date: string | null;
  created: number;
  updated: number;
  tags: string[];
}

const seconds = (iso: string) => Date.parse(iso) / 1000;
const iso = (at: number) => `${new Date(at * 1000).toISOString().slice(0, 19)}+00:00`;

/** Hand-made records with the rough edges: absent values, several entities, tags, wildcards in names, case. */
function fixtureResource(
  id: string,
  revision: number,
  attributes: Omit<Known, "id" | "created" | "updated" | "title"> & {
    created: string;
    updated: string;
    title?: string;
  },
) {
  const title =
    attributes.title ??
    `${attributes["transaction-number"]}: ${[attributes["acquiring-party"], attributes["acquired-party"]].filter(Boolean).join("; ")}`;
  return {
    type: "early_termination_notice",
    id,
    links: {
      self: {
        href: `https://www.ftc.gov/v0/hsr-early-termination-notices/${id}?resourceVersion=id%3A${revision}`,
      },
    },
    attributes: { ...attributes, title },
    relationships: {},
  };
}

const FIXTURE = {
  jsonapi: { version: "1.0" },
  data: [
    fixtureResource("0254a428-d492-4d98-8bc6-e704bad804b7", 2358, {
      "transaction-number": "20110718",
      "acquiring-party": "Carl C. Icahn",
      "acquired-party": "Blockbuster Inc. - Debtor-in-Possession",
      "acquired-entities": ["Blockbuster Inc. - Debtor-in-Possession"],
      date: "2011-04-11",
      created: "2013-09-24T20:05:39+00:00",
      updated: "2013-09-24T22:22:27+00:00",
      tags: [],
    }),
    fixtureResource("633b56f1-a499-4ac5-903d-7e46427563f7", 2359, {
      "transaction-number": "20110728",
      "acquiring-party": "Charles W. Ergen",
      "acquired-party": "Blockbuster Inc. - Debtor-in-Possession",
      "acquired-entities": ["Blockbuster Inc. - Debtor-in-Possession"],
      date: "2011-04-08",
      created: "2013-09-24T20:05:39+00:00",
      updated: "2013-09-24T22:22:27+00:00",
      tags: ["Retail", "bankruptcy"],
    }),
    fixtureResource("9f1c2b3a-0000-4000-8000-00000000a001", 7, {
      "transaction-number": "20159901",
      "acquiring-party": "100% Pure Holdings, Inc.",
      "acquired-party": "Under_Score Widgets LLC",
      "acquired-entities": ["Under_Score Widgets LLC", "UNDER_SCORE Canada ULC", "Widget Finance, L.P."],
      date: "2015-01-05",
      created: "2015-01-06T14:00:00+00:00",
      updated: "2015-03-01T09:30:00+00:00",
      tags: ["Manufacturing"],
    }),
    fixtureResource("9f1c2b3a-0000-4000-8000-00000000a002", 1, {
      "transaction-number": "20159902",
      "acquiring-party": "Back\\Slash Partners",
      "acquired-party": null,
      "acquired-entities": [],
      date: null,
      created: "2015-01-07T14:00:00-05:00",
      updated: "2015-01-07T19:00:00Z",
      tags: [],
    }),
    fixtureResource("9F1C2B3A-0000-4000-8000-00000000A003", 3, {
      "transaction-number": "20159903",
      "acquiring-party": null,
      "acquired-party": "Zeta Energy Pipeline Company",
      "acquired-entities": ["zeta energy pipeline company", "Zeta Midstream, L.P."],
      date: "2015-02-28",
      created: "2015-03-02T10:00:00+00:00",
      updated: "2015-03-02T10:00:00+00:00",
      tags: ["energy"],
    }),
  ],
};

function knownFromFixture(): Known[] {
  return FIXTURE.data.map((resource) => ({
    ...(resource.attributes as unknown as Known),
    id: resource.id.toLowerCase(),
    created: seconds(resource.attributes.created),
    updated: seconds(resource.attributes.updated),
  }));
}

async function knownFromCsv(file: string): Promise<Known[]> {
  const rows: string[][] = parse(await readFile(file), { from_line: 2 });
  return rows.map(([transaction, acquiring, acquired, entities, date, created, updated]) => ({
    title: `${transaction}: ${acquiring}; ${acquired}`,
    "transaction-number": transaction!,
    "acquiring-party": acquiring!,
    "acquired-party": acquired!,
    "acquired-entities": entities!.split(";"),
    date: date!,
    created: seconds(created!),
    updated: seconds(updated!),
    tags: [],
  }));
}

// ---------------------------------------------------------------------------------------------
// The reference semantics: Drupal's, on the test's own copy of the data.

type Value = string | number;

function fieldValue(notice: Known, field: string): Value | null | string[] {
  if (field === "id") return notice.id!;
  return (notice as unknown as Record<string, Value | null | string[]>)[field]!;
}

function normalize(kind: Kind, value: Value): Value {
  if (kind === "timestamp") return typeof value === "number" ? value : timestampValue(value);
  return kind === "date" ? value : String(value).toLowerCase();
}

function timestampValue(text: string): number {
  return /^-?\d+$/.test(text) ? Number(text) : Date.parse(text) / 1000;
}

function holds(notice: Known, field: string, operator: Operator, values: Value[]): boolean {
  const kind = FIELDS[field]!;
  const raw = fieldValue(notice, field);
  if (operator === "IS NULL") return Array.isArray(raw) ? raw.length === 0 : raw === null;
  if (operator === "IS NOT NULL") return Array.isArray(raw) ? raw.length > 0 : raw !== null;
  const items = (Array.isArray(raw) ? raw : [raw]).filter((item) => item !== null);
  const wanted = values.map((value) => normalize(kind, value));
  const [a, b] = wanted as [Value, Value];
  return items.some((item) => {
    const x = normalize(kind, item as Value);
    switch (operator) {
      case "=":
        return x === a;
      case "<>":
        return x !== a;
      case ">":
        return x > a;
      case ">=":
        return x >= a;
      case "<":
        return x < a;
      case "<=":
        return x <= a;
      case "STARTS_WITH":
        return String(x).startsWith(String(a));
      case "CONTAINS":
        return String(x).includes(String(a));
      case "ENDS_WITH":
        return String(x).endsWith(String(a));
      case "IN":
        return wanted.includes(x);
      case "NOT IN":
        return !wanted.includes(x);
      case "BETWEEN":
        return x >= a && x <= b;
      case "NOT BETWEEN":
        return !(x >= a && x <= b);
      default:
        return false;
    }
  });
}

/** A condition as query parameters, in the `condition` form, optionally a member of a group. */
function conditionParams(
  key: string,
  field: string,
  operator: Operator,
  values: string[],
  memberOf?: string,
): string[] {
  const at = `filter[${key}][condition]`;
  const params = [`${at}[path]=${field}`, `${at}[operator]=${encodeURIComponent(operator)}`];
  if (operator === "IN" || operator === "NOT IN" || operator === "BETWEEN" || operator === "NOT BETWEEN") {
    for (const value of values) params.push(`${at}[value][]=${encodeURIComponent(value)}`);
  } else if (values.length > 0) {
    params.push(`${at}[value]=${encodeURIComponent(values[0]!)}`);
  }
  if (memberOf) params.push(`${at}[memberOf]=${memberOf}`);
  return params;
}

/** Values for an operator on a field, picked from the data so that every case selects something and leaves something out. */
function valuesFor(notices: Known[], field: string, operator: Operator, variant: number): string[] {
  const kind = FIELDS[field]!;
  if (operator === "IS NULL" || operator === "IS NOT NULL") return [];
  const present = notices
    .flatMap((notice) => {
      const raw = fieldValue(notice, field);
      return Array.isArray(raw) ? raw : raw === null ? [] : [raw];
    })
    .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const at = (share: number) => present[Math.floor(share * (present.length - 1))]!;
  const shown = (value: Value): string => {
    if (kind === "timestamp") {
      const moment = Number(value);
      // Every accepted spelling of a moment: with +00:00, with Z, with another offset, as seconds.
      switch (variant % 4) {
        case 0:
          return iso(moment);
        case 1:
          return `${iso(moment).slice(0, 19)}Z`;
        case 2:
          return `${new Date((moment + 7200) * 1000).toISOString().slice(0, 19)}+02:00`;
        default:
          return String(moment);
      }
    }
    // Text compares without regard to case: send some values in upper case.
    return variant % 2 === 1 && kind !== "date" ? String(value).toUpperCase() : String(value);
  };
  const sample = String(at(0.37));
  switch (operator) {
    case "STARTS_WITH":
      return [shown(kind === "date" ? sample.slice(0, 7) : sample.slice(0, 6))];
    case "CONTAINS":
      return [shown(kind === "date" ? "-04-" : sample.slice(3, 9))];
    case "ENDS_WITH":
      return [shown(kind === "date" ? "-11" : sample.slice(-5))];
    case "IN":
    case "NOT IN":
      return [shown(at(0.1)), shown(at(0.5)), shown(at(0.9))];
    case "BETWEEN":
    case "NOT BETWEEN":
      return [shown(at(0.25)), shown(at(0.6))];
    default:
      return [shown(at(0.5))];
  }
}

for (const dialect of DIALECTS) {
  describe(`GET ${PATH} (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let key: string;
    let notices: Known[];
    let byTransaction: Map<string, Known>;

    before(async () => {
      const directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      const generated = join(directory, "generated.csv");
      const fixture = join(directory, "fixture.json");
      await writeFile(fixture, JSON.stringify(FIXTURE, null, 2));
      await writeNoticeCsv({ rows: 240, seed: 11 }, generated);
      const imported = await importFiles(db, { notices: [generated, fixture] });
      assert.deepEqual(
        imported.notices.map((result) => [result.rows, result.added]),
        [
          [240, 240],
          [5, 5],
        ],
      );
      notices = [...(await knownFromCsv(generated)), ...knownFromFixture()];
      byTransaction = new Map(notices.map((notice) => [notice["transaction-number"], notice]));
      assert.equal(byTransaction.size, notices.length, "transaction numbers identify the test's notices");
      // Unlimited: the suite sends far more than an hour's default allowance.
      key = await createTestKey(db, { email: "t@example.com", limitPerHour: "unlimited" });
      server = await startTestServer({ db });
      // The generated notices' ids are the server's to derive; learn them once through the API.
      for (const record of await walk(`${PATH}?page[limit]=50`)) {
        byTransaction.get(record.attributes["transaction-number"])!.id = record.id;
      }
    });
    after(() => server?.stop());

    const get = (path: string) => server.get(path, { "X-Api-Key": key });

    /** Every record of a request, following links.next; checks the links on the way. */
    async function walk(start: string): Promise<Array<Record<string, any>>> {
      const records: Array<Record<string, any>> = [];
      let url: string | undefined = start;
      let expected: number | undefined;
      for (let pages = 0; url; pages++) {
        assert.ok(pages < 200, "links.next must come to an end");
        const res = await get(url.replace(server.httpsUrl, ""));
        assert.equal(res.status, 200, `${url}: ${res.body}`);
        const body = res.json();
        expected ??= body.meta.count;
        assert.equal(body.meta.count, expected, "the count stays the same on every page");
        records.push(...body.data);
        if (pages > 0) {
          assert.ok(body.links.prev && body.links.first, "past the first page: prev and first");
        }
        url = body.links.next?.href;
        assert.equal(body.links.last === undefined, url === undefined, "last exactly when next");
      }
      assert.equal(records.length, expected);
      return records;
    }

    const transactions = (records: Array<Record<string, any>>) =>
      records.map((record) => record.attributes["transaction-number"] as string).sort();
    const expectedTransactions = (test: (notice: Known) => boolean) =>
      notices
        .filter(test)
        .map((notice) => notice["transaction-number"])
        .sort();

    it("answers in Drupal's JSON:API document, a record as the live service shows it", async () => {
      const res = await server.get(
        `${PATH}?filter[title][operator]=CONTAINS&filter[title][value]=Blockbuster&sort=date&api_key=${key}`,
      );
      assert.equal(res.status, 200, res.body);
      assert.match(String(res.headers["content-type"]), /^application\/vnd\.api\+json/);
      const body = res.json();
      assert.deepEqual(Object.keys(body), ["jsonapi", "data", "meta", "links"]);
      assert.deepEqual(body.jsonapi, {
        version: "1.0",
        meta: { links: { self: { href: "http://jsonapi.org/format/1.0/" } } },
      });
      assert.deepEqual(body.meta, { count: 2 });
      assert.deepEqual(body.links, {
        self: {
          href: `${server.httpsUrl}${PATH}?filter%5Btitle%5D%5Boperator%5D=CONTAINS&filter%5Btitle%5D%5Bvalue%5D=Blockbuster&sort=date`,
        },
      });
      const record = body.data[1];
      const recordUrl = `${server.httpsUrl}${PATH}/0254a428-d492-4d98-8bc6-e704bad804b7`;
      assert.deepEqual(record, {
        type: "early_termination_notice",
        id: "0254a428-d492-4d98-8bc6-e704bad804b7",
        links: { self: { href: `${recordUrl}?resourceVersion=id%3A2358` } },
        attributes: {
          title: "20110718: Carl C. Icahn; Blockbuster Inc. - Debtor-in-Possession",
          created: "2013-09-24T20:05:39+00:00",
          updated: "2013-09-24T22:22:27+00:00",
          "acquired-party": "Blockbuster Inc. - Debtor-in-Possession",
          "acquiring-party": "Carl C. Icahn",
          date: "2011-04-11",
          "acquired-entities": ["Blockbuster Inc. - Debtor-in-Possession"],
          "transaction-number": "20110718",
          tags: [],
        },
        relationships: {
          node_type: {
            data: null,
            links: { self: { href: `${recordUrl}/relationships/node_type?resourceVersion=id%3A2358` } },
          },
        },
      });
    });

    it("shows CSV notices with a stable UUID, the FTC's title, entities as a list and times with +00:00", async () => {
      const res = await get(`${PATH}?filter[transaction-number]=${notices[0]!["transaction-number"]}`);
      const [record] = res.json().data;
      const known = notices[0]!;
      assert.match(record.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.deepEqual(record.attributes, {
        title: known.title,
        created: iso(known.created),
        updated: iso(known.updated),
        "acquired-party": known["acquired-party"],
        "acquiring-party": known["acquiring-party"],
        date: known.date,
        "acquired-entities": known["acquired-entities"],
        "transaction-number": known["transaction-number"],
        tags: [],
      });
      assert.ok(
        notices.some((notice) => notice["acquired-entities"].length > 1),
        "some have several entities",
      );
    });

    it("walks every notice exactly once through links.next, newest first by default", async () => {
      for (const start of [
        `${PATH}`,
        `${PATH}?page[limit]=7`,
        `${PATH}?sort=date&page[limit]=13&page[offset]=0`,
      ]) {
        const records = await walk(start);
        assert.equal(records.length, notices.length, start);
        assert.equal(
          new Set(records.map((record) => record.id)).size,
          notices.length,
          `${start}: no repeats`,
        );
        assert.deepEqual(
          transactions(records),
          expectedTransactions(() => true),
        );
      }
      const newest = await walk(`${PATH}?page[limit]=50`);
      const created = newest.map((record) => record.attributes.created);
      assert.deepEqual(created, [...created].sort().reverse());
    });

    it("gives pagination links only where they lead, and keeps the request's other parameters in them", async () => {
      const first = (
        await get(`${PATH}?page[limit]=20&filter[date][operator]=STARTS_WITH&filter[date][value]=20`)
      ).json();
      assert.equal(first.links.prev, undefined);
      assert.equal(first.links.first, undefined);
      const next = new URL(first.links.next.href);
      assert.equal(next.searchParams.get("page[offset]"), "20");
      assert.equal(next.searchParams.get("page[limit]"), "20");
      assert.equal(next.searchParams.get("filter[date][value]"), "20");
      assert.equal(
        new URL(first.links.last.href).searchParams.get("page[offset]"),
        String(Math.floor((first.meta.count - 1) / 20) * 20),
      );
      const last = (await get(first.links.last.href.replace(server.httpsUrl, ""))).json();
      assert.equal(last.links.next, undefined);
      assert.equal(last.links.last, undefined);
      assert.equal(new URL(last.links.first.href).searchParams.get("page[offset]"), "0");
      const beyond = (await get(`${PATH}?page[offset]=100000`)).json();
      assert.deepEqual(beyond.data, []);
      assert.equal(beyond.meta.count, notices.length);
      assert.ok(beyond.links.prev, "past the end, prev leads back to the last page");
      const nothing = (await get(`${PATH}?filter[title][value]=no such notice`)).json();
      assert.deepEqual(nothing.meta, { count: 0 });
      assert.deepEqual(Object.keys(nothing.links), ["self"]);
    });

    // The table of every operator on every field, each against the reference semantics above.
    for (const field of Object.keys(FIELDS)) {
      for (const operator of OPERATORS) {
        it(`filters ${field} ${operator}`, async () => {
          const textual = operator === "STARTS_WITH" || operator === "CONTAINS" || operator === "ENDS_WITH";
          for (const variant of [0, 1, 2, 3]) {
            if (variant > 1 && FIELDS[field] !== "timestamp") break;
            const values = valuesFor(notices, field, operator, variant);
            const query = `${PATH}?${conditionParams("c", field, operator, values).join("&")}&page[limit]=50`;
            if (FIELDS[field] === "timestamp" && textual) {
              const res = await get(query);
              assert.equal(res.status, 400, res.body);
              assert.equal(res.json().errors[0].source.parameter, "filter[c][condition][operator]");
              return;
            }
            const expected = expectedTransactions((notice) => holds(notice, field, operator, values));
            const records = await walk(query);
            assert.deepEqual(transactions(records), expected, `${query}`);
            if (operator !== "IS NULL" && operator !== "IS NOT NULL" && field !== "tags") {
              assert.ok(
                expected.length > 0 && expected.length < notices.length,
                `${query} should split the data`,
              );
            }
          }
        });
      }
    }

    it("takes every spelling of a condition: shorthand, value with operator and path, indexed lists", async () => {
      const cases: Array<[string, (notice: Known) => boolean]> = [
        ["filter[transaction-number]=20110718", (n) => n["transaction-number"] === "20110718"],
        ["filter[acquiring-party]=CARL C. ICAHN", (n) => n["acquiring-party"] === "Carl C. Icahn"],
        ["filter[x][path]=date&filter[x][value]=2011-04-08", (n) => n.date === "2011-04-08"],
        [
          "filter[tags][operator]=IN&filter[tags][value][0]=retail&filter[tags][value][1]=ENERGY",
          (n) => n.tags.some((tag) => ["retail", "energy"].includes(tag.toLowerCase())),
        ],
        ["filter[acquired-party][operator]=IS NULL", (n) => n["acquired-party"] === null],
        [
          "filter[acquiring-party][operator]=CONTAINS&filter[acquiring-party][value]=100%25",
          (n) => n["acquiring-party"]?.startsWith("100%") ?? false,
        ],
        [
          "filter[e][condition][path]=acquired-entities&filter[e][condition][operator]=CONTAINS&filter[e][condition][value]=r_s",
          (n) => n["acquired-entities"].some((e) => e.toLowerCase().includes("r_s")),
        ],
        [
          "filter[acquiring-party][operator]=STARTS_WITH&filter[acquiring-party][value]=back\\slash",
          (n) => n["acquiring-party"] === "Back\\Slash Partners",
        ],
        [
          "filter[title.value][operator]=ENDS_WITH&filter[title.value][value]=pipeline company",
          (n) => n.title.toLowerCase().endsWith("pipeline company"),
        ],
        [
          "filter[id]=9F1C2B3A-0000-4000-8000-00000000A003",
          (n) => n.id === "9f1c2b3a-0000-4000-8000-00000000a003",
        ],
      ];
      for (const [query, test] of cases) {
        const records = await walk(`${PATH}?${query.replaceAll(" ", "%20")}`);
        const expected = expectedTransactions(test);
        assert.ok(expected.length > 0, query);
        assert.deepEqual(transactions(records), expected, query);
      }
    });

    it("finds CONTAINS within one value: never across two values of a list or two notices", async () => {
      const within = (pattern: string) => (n: Known) =>
        n["acquired-entities"].some((entity) => entity.toLowerCase().includes(pattern));
      // "Under_Score Widgets LLC", "UNDER_SCORE Canada ULC", "Widget Finance, L.P.": the end of one
      // entity and the start of the next; an entity's end and another notice's entity.
      for (const pattern of ["llcunder", "ulcwidget", "companyzeta", "llc"]) {
        const query = `${PATH}?${conditionParams("e", "acquired-entities", "CONTAINS", [pattern]).join("&")}`;
        const expected = expectedTransactions(within(pattern));
        assert.equal(expected.length > 0, pattern === "llc", pattern);
        assert.deepEqual(transactions(await walk(query)), expected, pattern);
      }
      const query = `${PATH}?${conditionParams("a", "acquiring-party", "CONTAINS", ["capital"]).join("&")}`;
      const expected = expectedTransactions((n) =>
        (n["acquiring-party"] ?? "").toLowerCase().includes("capital"),
      );
      assert.ok(expected.length > 1);
      assert.deepEqual(transactions(await walk(query)), expected);
    });

    it("combines conditions through nested AND/OR groups", async () => {
      const median = notices.map((notice) => notice.created).sort((a, b) => a - b)[
        Math.floor(notices.length / 2)
      ]!;
      const query = [
        "filter[outer][group][conjunction]=OR",
        "filter[both][group][conjunction]=AND",
        "filter[both][group][memberOf]=outer",
        ...conditionParams("a", "acquiring-party", "CONTAINS", ["capital"], "both"),
        ...conditionParams("b", "created", ">=", [iso(median)], "both"),
        "filter[either][group][conjunction]=or",
        "filter[either][group][memberOf]=outer",
        ...conditionParams("c", "tags", "IS NOT NULL", [], "either"),
        ...conditionParams("d", "date", "STARTS_WITH", ["2003"], "either"),
        ...conditionParams("e", "transaction-number", "<>", ["20110718"]),
      ].join("&");
      const expected = expectedTransactions(
        (n) =>
          ((n["acquiring-party"] ?? "").toLowerCase().includes("capital") && n.created >= median) ||
          n.tags.length > 0 ||
          (n.date ?? "").startsWith("2003"),
      ).filter((transaction) => transaction !== "20110718");
      assert.ok(expected.length > 5);
      assert.deepEqual(transactions(await walk(`${PATH}?${query}`)), expected);
    });

    it("agrees with the reference semantics on random filter trees", async () => {
      const leaf = fc.record({
        field: fc.constantFrom(...Object.keys(FIELDS)),
        operator: fc.constantFrom(...OPERATORS),
        variant: fc.nat(3),
      });
      type Tree =
        | { leaf: { field: string; operator: Operator; variant: number } }
        | { group: "AND" | "OR"; members: Tree[] };
      const { tree } = fc.letrec((tie) => ({
        tree: fc.oneof(
          { depthSize: "small", withCrossShrink: true },
          leaf.map((value) => ({ leaf: value }) as Tree),
          fc.record({
            group: fc.constantFrom("AND" as const, "OR" as const),
            members: fc.array(tie("tree") as fc.Arbitrary<Tree>, { minLength: 1, maxLength: 3 }),
          }) as fc.Arbitrary<Tree>,
        ),
      }));
      await fc.assert(
        fc.asyncProperty(fc.array(tree, { minLength: 1, maxLength: 3 }), async (roots) => {
          const params: string[] = [];
          let counter = 0;
          const build = (node: Tree, memberOf?: string): ((n: Known) => boolean) => {
            const name = `k${counter++}`;
            if ("leaf" in node) {
              const { field, operator, variant } = node.leaf;
              const textual =
                operator === "STARTS_WITH" || operator === "CONTAINS" || operator === "ENDS_WITH";
              const usable = FIELDS[field] === "timestamp" && textual ? "=" : operator;
              const values = valuesFor(notices, field, usable, variant);
              params.push(...conditionParams(name, field, usable, values, memberOf));
              return (n) => holds(n, field, usable, values);
            }
            params.push(`filter[${name}][group][conjunction]=${node.group}`);
            if (memberOf) params.push(`filter[${name}][group][memberOf]=${memberOf}`);
            const tests = node.members.map((member) => build(member, name));
            return node.group === "AND"
              ? (n) => tests.every((test) => test(n))
              : (n) => tests.some((test) => test(n));
          };
          const tests = roots.map((root) => build(root));
          const res = await get(`${PATH}?${params.join("&")}&page[limit]=1`);
          assert.equal(res.status, 200, res.body);
          assert.equal(
            res.json().meta.count,
            expectedTransactions((n) => tests.every((test) => test(n))).length,
          );
        }),
        { numRuns: 60, seed: 20261122 },
      );
    });

    it("sorts on any attribute in both forms, ties broken by id", async () => {
      const idOrder = (a: Known, b: Known) => (a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0);
      const compare = (field: string, direction: number) => (a: Known, b: Known) => {
        // A list sorts by its first value; no value sorts as an absent one.
        const first = (value: Value | null | string[]) => (Array.isArray(value) ? (value[0] ?? null) : value);
        const x = first(fieldValue(a, field));
        const y = first(fieldValue(b, field));
        if (x === null || y === null) return x === y ? 0 : (x === null ? 1 : -1) * direction;
        const lowered = FIELDS[field] === "text" || FIELDS[field] === "array";
        const [p, q] = lowered ? [String(x).toLowerCase(), String(y).toLowerCase()] : [x, y];
        return (p < q ? -1 : p > q ? 1 : 0) * direction;
      };
      const cases: Array<[string, Array<(a: Known, b: Known) => number>]> = [
        ["sort=-created,title", [compare("created", -1), compare("title", 1)]],
        ["sort=date", [compare("date", 1)]],
        ["sort=-date", [compare("date", -1)]],
        ["sort[a][path]=acquired-party&sort[a][direction]=DESC", [compare("acquired-party", -1)]],
        [
          "sort[x][path]=updated&sort[y][path]=transaction-number&sort[y][direction]=DESC",
          [compare("updated", 1), compare("transaction-number", -1)],
        ],
        ["sort_by=changed&sort_order=ASC", [compare("updated", 1)]],
        ["sort_by=created", [compare("created", -1)]],
        ["sort=id", []],
        ["sort=acquired-entities,-created", [compare("acquired-entities", 1), compare("created", -1)]],
        ["sort[t][path]=tags&sort[t][direction]=DESC", [compare("tags", -1)]],
      ];
      for (const [query, comparators] of cases) {
        const records = await walk(`${PATH}?${query}`);
        const expected = [...notices]
          .sort((a, b) => {
            for (const comparator of comparators) {
              const result = comparator(a, b);
              if (result !== 0) return result;
            }
            return idOrder(a, b);
          })
          .map((notice) => notice.id);
        assert.deepEqual(
          records.map((record) => record.id),
          expected,
          query,
        );
      }
    });

    it("accepts the spec's plain parameters and the older API's keywords", async () => {
      const cases: Array<[string, (n: Known) => boolean]> = [
        ["title=blockbuster icahn", (n) => /blockbuster/i.test(n.title) && /icahn/i.test(n.title)],
        ['title="capital partners"', (n) => /capital partners/i.test(n.title)],
        ['keywords="Debtor-in-Possession"', (n) => /debtor-in-possession/i.test(n.title)],
        ["transaction_number=20110728", (n) => n["transaction-number"] === "20110728"],
        ["date=2015-02-28", (n) => n.date === "2015-02-28"],
        ["title=pipeline&date=2015-02-28", (n) => /pipeline/i.test(n.title) && n.date === "2015-02-28"],
      ];
      for (const [query, test] of cases) {
        const expected = expectedTransactions(test);
        assert.ok(expected.length > 0, query);
        assert.deepEqual(
          transactions(await walk(`${PATH}?${query.replaceAll(" ", "%20")}`)),
          expected,
          query,
        );
      }
      const paged = (await get(`${PATH}?items_per_page=5&offset=10&sort_by=created&sort_order=asc`)).json();
      const all = (await walk(`${PATH}?sort=created`)).map((record) => record.id);
      assert.deepEqual(
        paged.data.map((record: any) => record.id),
        all.slice(10, 15),
      );
      assert.equal(new URL(paged.links.next.href).searchParams.get("page[offset]"), "15");
      assert.equal(new URL(paged.links.next.href).searchParams.get("offset"), null);
    });

    it("returns sparse fieldsets", async () => {
      const body = (await get(`${PATH}?fields[early_termination_notice]=title,date&page[limit]=3`)).json();
      for (const record of body.data) {
        assert.deepEqual(Object.keys(record.attributes), ["title", "date"]);
        assert.equal(record.relationships, undefined);
        assert.ok(record.links.self.href.includes("resourceVersion=id%3A"));
      }
      const withRelationship = (
        await get(`${PATH}?fields[early_termination_notice]=node_type&page[limit]=1`)
      ).json();
      assert.deepEqual(withRelationship.data[0].attributes, {});
      assert.equal(withRelationship.data[0].relationships.node_type.data, null);
    });

    it("fetches one notice by path and by filter[id], with its revision", async () => {
      const id = "633b56f1-a499-4ac5-903d-7e46427563f7";
      const listed = (await get(`${PATH}?filter[id][value]=${id}`)).json();
      assert.equal(listed.meta.count, 1);
      assert.equal(listed.data.length, 1);
      for (const path of [
        `${PATH}/${id}`,
        `${PATH}/${id.toUpperCase()}`,
        `${PATH}/${id}?resourceVersion=id%3A2359`,
      ]) {
        const res = await get(path);
        assert.equal(res.status, 200, res.body);
        assert.match(String(res.headers["content-type"]), /^application\/vnd\.api\+json/);
        const body = res.json();
        assert.deepEqual(body.data, listed.data);
        assert.deepEqual(body.meta, { count: 1 });
        assert.deepEqual(Object.keys(body.links), ["self"]);
      }
      const own = (await get(`${PATH}/${id}?fields[early_termination_notice]=title`)).json();
      assert.deepEqual(Object.keys(own.data[0].attributes), ["title"]);
      const head = await server.get(`${PATH}/${id}`, { "X-Api-Key": key }, "HEAD");
      assert.equal(head.status, 200);
      const relationship = await get(`${PATH}/${id}/relationships/node_type?resourceVersion=id%3A2359`);
      assert.equal(relationship.status, 200);
      assert.equal(relationship.json().data, null);
    });

    it("answers an unknown id, an old revision and a stray parameter on one notice with JSON:API errors", async () => {
      const cases: Array<[string, number, string | undefined]> = [
        [`${PATH}/00000000-0000-4000-8000-000000000000`, 404, undefined],
        [`${PATH}/not-a-uuid`, 404, undefined],
        [`${PATH}/0254a428-d492-4d98-8bc6-e704bad804b7?resourceVersion=id%3A2000`, 404, "resourceVersion"],
        [`${PATH}/0254a428-d492-4d98-8bc6-e704bad804b7?resourceVersion=2358`, 400, "resourceVersion"],
        [`${PATH}/0254a428-d492-4d98-8bc6-e704bad804b7?page[limit]=1`, 400, "page[limit]"],
        [
          `${PATH}/0254a428-d492-4d98-8bc6-e704bad804b7?fields[early_termination_notice]=nope`,
          400,
          "fields[early_termination_notice]",
        ],
      ];
      for (const [path, status, parameter] of cases) {
        const res = await get(path);
        assert.equal(res.status, status, `${path}: ${res.body}`);
        assert.match(String(res.headers["content-type"]), /^application\/vnd\.api\+json/);
        const body = res.json();
        assert.equal(body.jsonapi.version, "1.0");
        assert.equal(body.errors[0].status, String(status));
        assert.equal(body.errors[0].source?.parameter, parameter);
        assert.ok(body.errors[0].links.via.href.startsWith(`${server.httpsUrl}${PATH}/`));
      }
    });

    it("refuses bad input with Drupal's error documents, naming the parameter", async () => {
      const cases: Array<[string, string, RegExp]> = [
        [
          "filter[title][operator]=LIKE&filter[title][value]=x",
          "filter[title][operator]",
          /^The 'LIKE' operator is not allowed in a filter parameter\.$/,
        ],
        [
          "filter[c][condition][path]=title&filter[c][condition][operator]=%3D%3D&filter[c][condition][value]=x",
          "filter[c][condition][operator]",
          /^The '==' operator is not allowed in a filter parameter\.$/,
        ],
        [
          "filter[nope]=1",
          "filter[nope]",
          /^Invalid nested filtering\. The field `nope`, given in the path `nope`, does not exist\.$/,
        ],
        [
          "filter[c][condition][path]=acquirer&filter[c][condition][value]=x",
          "filter[c][condition][path]",
          /The field `acquirer`, given in the path `acquirer`, does not exist/,
        ],
        [
          "filter[c][condition][path]=title.name&filter[c][condition][value]=x",
          "filter[c][condition][path]",
          /The field `name`, given in the path `title\.name`, does not exist/,
        ],
        [
          "filter[c][condition][operator]=%3D&filter[c][condition][value]=x",
          "filter[c][condition][path]",
          /^Filter parameter is missing a 'path' key\.$/,
        ],
        [
          "filter[c][condition][path]=title",
          "filter[c][condition][value]",
          /^Filter parameter is missing a 'value' key\.$/,
        ],
        [
          "filter[c][condition][path]=date&filter[c][condition][operator]=IS%20NULL&filter[c][condition][value]=2011-01-01",
          "filter[c][condition][value]",
          /^Filters using the 'IS NULL' operator should not provide a value\.$/,
        ],
        [
          "filter[date][operator]=IS%20NOT%20NULL&filter[date][value]=x",
          "filter[date][value]",
          /^Filters using the 'IS NOT NULL' operator should not provide a value\.$/,
        ],
        [
          "filter[g][group][conjunction]=XOR&filter[t][condition][path]=title&filter[t][condition][value]=x&filter[t][condition][memberOf]=g",
          "filter[g][group][conjunction]",
          /'XOR'.*AND or OR/,
        ],
        ["filter[g][group][memberOf]=@root", "filter[g][group][conjunction]", /missing a 'conjunction' key/],
        [
          "filter[t][condition][path]=title&filter[t][condition][value]=x&filter[t][condition][memberOf]=ghost",
          "filter[t][condition][memberOf]",
          /'ghost'.*not defined/,
        ],
        [
          "filter[a][group][conjunction]=AND&filter[a][group][memberOf]=b&filter[b][group][conjunction]=OR&filter[b][group][memberOf]=a&filter[t][condition][path]=title&filter[t][condition][value]=x&filter[t][condition][memberOf]=a",
          "filter[a][group][memberOf]",
          /member of itself/,
        ],
        ["filter[g][group][conjunction]=AND", "filter[g][group]", /no members/],
        [
          "filter[d][condition][path]=date&filter[d][condition][value]=yesterday",
          "filter[d][condition][value]",
          /YYYY-MM-DD/,
        ],
        [
          "filter[d][condition][path]=created&filter[d][condition][operator]=%3E&filter[d][condition][value]=soon",
          "filter[d][condition][value]",
          /ISO 8601/,
        ],
        [
          "filter[d][condition][path]=created&filter[d][condition][operator]=CONTAINS&filter[d][condition][value]=2013",
          "filter[d][condition][operator]",
          /does not apply/,
        ],
        [
          "filter[b][condition][path]=date&filter[b][condition][operator]=BETWEEN&filter[b][condition][value][]=2011-01-01",
          "filter[b][condition][value]",
          /exactly two values/,
        ],
        [
          "filter[b][condition][path]=title&filter[b][condition][value][]=a&filter[b][condition][value][]=b",
          "filter[b][condition][value]",
          /single value/,
        ],
        [
          "filter[b][condition][path]=title&filter[b][condition][value]=a&filter[b][condition][colour]=red",
          "filter[b][condition][colour]",
          /Invalid filter key 'colour'/,
        ],
        ["filter[title]=a&filter[title]=b", "filter[title]", /more than once/],
        ["bogus=1", "bogus", /'bogus' is not supported/],
        ["limit=10", "limit", /'limit' is not supported/],
        ["include=node_type", "include", /'include' is not supported/],
        ["page[limit]=51", "page[limit]", /at most 50/],
        ["page[limit]=0", "page[limit]", /^The page size needs to be a positive integer\.$/],
        ["page[limit]=-3", "page[limit]", /^The page size needs to be a positive integer\.$/],
        ["page[limit]=ten", "page[limit]", /^The page size needs to be a positive integer\.$/],
        ["items_per_page=100", "items_per_page", /at most 50/],
        ["page[offset]=-1", "page[offset]", /non-negative integer/],
        ["page[size]=10", "page[size]", /page\[offset\] and page\[limit\]/],
        ["page[limit]=5&items_per_page=5", "items_per_page", /once/],
        [
          "sort=nope",
          "sort",
          /^Invalid nested sorting\. The field `nope`, given in the path `nope`, does not exist\.$/,
        ],
        ["sort=-created,,title", "sort", /empty field name/],
        ["sort[a][path]=colour", "sort[a][path]", /The field `colour`/],
        ["sort[a][path]=title&sort[a][direction]=UP", "sort[a][direction]", /ASC or DESC/],
        ["sort[a][direction]=ASC", "sort[a][path]", /field name/],
        ["sort=title&sort_by=created", "sort_by", /once/],
        ["sort=title,-title", "sort", /'title' more than once/],
        [`sort=${Array(200).fill("created").join(",")}`, "sort", /'created' more than once/],
        ["sort[a][path]=date&sort[b][path]=date&sort[b][direction]=DESC", "sort", /'date' more than once/],
        ["sort=title,date,created,updated,id", "sort", /at most 4 fields; this one gives 5/],
        ["sort_by=title", "sort_by", /'created' or 'changed'/],
        ["sort_order=up", "sort_order", /ASC or DESC/],
        [
          "fields[early_termination_notice]=title,colour",
          "fields[early_termination_notice]",
          /'colour' does not exist/,
        ],
        ["fields[node]=title", "fields[node]", /only the type/],
        ["transaction_number=abc", "transaction_number", /number/],
        ["date=2011-02-30", "date", /YYYY-MM-DD/],
        ["title=", "title", /empty/],
        ["filter[title]=%00", "filter[title]", /NUL/],
      ];
      for (const [query, parameter, detail] of cases) {
        const res = await get(`${PATH}?${query}`);
        assert.equal(res.status, 400, `${query}: ${res.body}`);
        assert.match(String(res.headers["content-type"]), /^application\/vnd\.api\+json/);
        const body = res.json();
        assert.equal(body.jsonapi.version, "1.0");
        assert.equal(body.errors.length, 1);
        const [error] = body.errors;
        assert.equal(error.status, "400");
        assert.equal(error.title, "Bad Request");
        assert.equal(error.source.parameter, parameter, query);
        assert.match(error.detail, detail, query);
        assert.ok(error.links.via.href.startsWith(`${server.httpsUrl}${PATH}?`), error.links.via.href);
      }
    });

    it("never lets the key into a link, and uses --base-url when configured", async () => {
      const res = await server.get(`${PATH}?api_key=${key}&page[limit]=1`);
      assert.ok(!res.body.includes(key));
      assert.equal(res.json().links.self.href, `${server.httpsUrl}${PATH}?page%5Blimit%5D=1`);
      const bad = await server.get(`${PATH}?api_key=${key}&page[limit]=99`);
      assert.ok(!bad.body.includes(key));
      const other = await startTestServer({ db, baseUrl: "https://api.example.gov" });
      try {
        const body = (await other.get(`${PATH}?page[limit]=1`, { "X-Api-Key": key })).json();
        assert.equal(
          body.links.self.href,
          "https://api.example.gov/v0/hsr-early-termination-notices?page%5Blimit%5D=1",
        );
        assert.ok(
          body.data[0].links.self.href.startsWith(
            "https://api.example.gov/v0/hsr-early-termination-notices/",
          ),
        );
        assert.ok(body.links.next.href.startsWith("https://api.example.gov/"));
      } finally {
        await other.stop();
      }
    });

    it("answers any query string with 200 or 400, never anything else", async () => {
      const token = fc.oneof(
        fc.constantFrom(
          "filter",
          "sort",
          "page",
          "fields",
          "[",
          "]",
          "[]",
          "condition",
          "group",
          "path",
          "operator",
          "value",
          "memberOf",
          "conjunction",
          "=",
          "&",
          "title",
          "date",
          "created",
          "updated",
          "tags",
          "acquired-entities",
          "id",
          "transaction-number",
          "IN",
          "BETWEEN",
          "IS%20NULL",
          "%3C%3E",
          "STARTS_WITH",
          "AND",
          "OR",
          "-",
          ",",
          "limit",
          "offset",
          "0",
          "1",
          "50",
          "99999999999999999999",
          "2011-04-11",
          "2013-09-24T20:05:39%2B00:00",
          "%00",
          "%ZZ",
          "%25",
          "%5B",
          "%5D",
          "%22",
          "@root",
          "items_per_page",
          "keywords",
          "sort_by",
          "api_key",
          "early_termination_notice",
          ".",
          "value",
          "%E2%82%AC",
          "%F0%9F%98%80",
          "%FF",
        ),
        fc.string({ maxLength: 6 }).map(encodeURIComponent),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(token, { maxLength: 40 }), async (tokens) => {
          const res = await get(`${PATH}?${tokens.join("")}`);
          assert.ok(
            res.status === 200 || res.status === 400,
            `${tokens.join("")}: ${res.status} ${res.body}`,
          );
          const body = res.json();
          if (res.status === 400) assert.equal(body.errors[0].status, "400");
          else assert.equal(typeof body.meta.count, "number");
        }),
        { numRuns: 400, seed: 42 },
      );
    });
  });
}
