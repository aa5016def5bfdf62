import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { asAttributes, type CsvComplaint, readComplaintCsv } from "../support/complaint-rows.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

/** Rows with the data's rough edges: case variants, empty values, a quoted comma, an identical pair. */
const FIXTURE = [
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall",
  "2025550100,2024-03-20 10:00:00,2024-03-19 09:00:00,San Pedro,California,310,Other,Y",
  "2025550100,2024-03-20 10:00:01,2024-03-19 09:00:00,san pedro,California,310,Other,N",
  ',2024-03-20 10:00:02,2019-01-01 00:00:00,,,212,"Reducing your debt (credit cards, mortgage, student loans)",',
  "7578688432,2024-03-20 11:00:00,2024-03-20 08:00:00,Poquoson,Virginia,757,Warranties  & protection plans,Y",
  "7578688432,2024-03-20 11:00:00,2024-03-20 08:00:00,Poquoson,Virginia,757,Warranties  & protection plans,Y",
].join("\r\n");

for (const dialect of DIALECTS) {
  describe(`GET /v0/dnc-complaints (${dialect})`, () => {
    let server: TestServer;
    let key: string;
    let rows: CsvComplaint[];

    before(async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      const generated = join(directory, "generated.csv");
      const fixture = join(directory, "fixture.csv");
      await writeFile(fixture, `${FIXTURE}\r\n`);
      await writeComplaintCsv(
        { rows: 6000, days: 12, seed: 7, endSeconds: Date.UTC(2024, 2, 15) / 1000 },
        generated,
      );
      await importFiles(db, { complaints: [generated, fixture] });
      rows = [...(await readComplaintCsv(generated)), ...(await readComplaintCsv(fixture))];
      key = await createTestKey(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const get = (path: string) => server.get(path, { "X-Api-Key": key });

    /** Every record of a filter, walked page by page through `offset`. */
    async function walk(query: string): Promise<Array<Record<string, any>>> {
      const records: Array<Record<string, any>> = [];
      for (let offset = 0; ; offset += 50) {
        const res = await get(
          `/v0/dnc-complaints?${query}${query ? "&" : ""}items_per_page=50&offset=${offset}`,
        );
        assert.equal(res.status, 200, res.body);
        const page = res.json().data;
        records.push(...page);
        if (page.length < 50) return records;
      }
    }

    it("answers in the live service's envelope", async () => {
      const res = await server.get(`/v0/dnc-complaints?items_per_page=3&state=%22Virginia%22&api_key=${key}`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      const body = res.json();
      assert.deepEqual(Object.keys(body), ["data", "meta", "links"]);
      assert.equal(body.meta["records-this-page"], 3);
      assert.equal(typeof body.meta["record-total"], "number");
      assert.equal(body.meta["record-total"], body.meta["records-total"]);
      assert.equal(
        body.links.self,
        `${server.httpsUrl}/v0/dnc-complaints?items_per_page=3&state=%22Virginia%22`,
      );
      for (const record of body.data) {
        assert.equal(record.type, "dnc_complaint");
        assert.match(record.id, /^[0-9a-f]{32}$/);
        assert.deepEqual(record.relationships, []);
        assert.deepEqual(record.meta, []);
        assert.equal(record.links.self, `${server.httpsUrl}/v0/dnc-complaints/${record.id}`);
        assert.equal(record.attributes["consumer-state"], "Virginia");
        for (const value of Object.values(record.attributes)) assert.equal(typeof value, "string");
      }
    });

    it("keeps empty values as empty strings and text exactly as imported", async () => {
      const res = await get("/v0/dnc-complaints?area_code=212&created_date=2024-03-20");
      const [record] = res.json().data;
      assert.deepEqual(
        record.attributes,
        asAttributes(
          rows.find(
            (row) => row.phone === "" && row.areaCode === "212" && row.created.startsWith("2024-03-20"),
          )!,
        ),
      );
    });

    const cases: Array<[string, (row: CsvComplaint) => boolean]> = [
      ["", () => true],
      ["created_date=%222024-03-10%22", (row) => row.created.startsWith("2024-03-10")],
      [
        "created_date_from=%222024-03-05 13:14:15%22&created_date_to=%222024-03-09 08:00:00%22",
        (row) => row.created >= "2024-03-05 13:14:15" && row.created <= "2024-03-09 08:00:00",
      ],
      [
        "created_date_from=2024-03-06 10:00:00&created_date_to=2024-03-06 18:30:00",
        (row) => row.created >= "2024-03-06 10:00:00" && row.created <= "2024-03-06 18:30:00",
      ],
      [
        "created_date_from=2024-03-04&created_date_to=2024-03-07",
        (row) => row.created >= "2024-03-04" && row.created <= "2024-03-07 23:59:59",
      ],
      ["state=california", (row) => row.state === "California"],
      ["state=%22New York%22", (row) => row.state === "New York"],
      [
        "state=California&city=SAN PEDRO",
        (row) => row.state === "California" && row.city.toLowerCase() === "san pedro",
      ],
      [
        "state=Texas&created_date_from=2024-03-05 06:00:00&created_date_to=2024-03-12",
        (row) =>
          row.state === "Texas" &&
          row.created >= "2024-03-05 06:00:00" &&
          row.created <= "2024-03-12 23:59:59",
      ],
      ["area_code=310", (row) => row.areaCode === "310"],
      [
        "area_code=212&created_date_from=2024-03-01&created_date_to=2024-03-31",
        (row) => row.areaCode === "212" && row.created >= "2024-03-01",
      ],
      ["is_robocall=true", (row) => row.robocall === "Y"],
      [
        "is_robocall=false&created_date=2024-03-08",
        (row) => row.robocall === "N" && row.created.startsWith("2024-03-08"),
      ],
      ["violation_date=2024-03-07", (row) => row.violation.startsWith("2024-03-07")],
      [
        "violation_date_from=2024-03-01 12:00:00&violation_date_to=2024-03-08",
        (row) => row.violation >= "2024-03-01 12:00:00" && row.violation <= "2024-03-08 23:59:59",
      ],
      [
        "violation_date=2024-03-07&state=Florida",
        (row) => row.violation.startsWith("2024-03-07") && row.state === "Florida",
      ],
      ["company_phone_number=7578688432", (row) => row.phone === "7578688432"],
      [
        "company_phone_number=2025550100&created_date_from=2024-03-20&created_date_to=2024-03-20",
        (row) => row.phone === "2025550100" && row.created.startsWith("2024-03-20"),
      ],
    ];

    for (const [query, matches] of cases) {
      it(`counts exactly and orders newest first: ${query || "(no filter)"}`, async () => {
        const expected = rows
          .filter(matches)
          .map((row) => row.created)
          .sort()
          .reverse();
        const res = await get(`/v0/dnc-complaints?items_per_page=50${query ? `&${query}` : ""}`);
        assert.equal(res.status, 200, res.body);
        assert.equal(res.json().meta["record-total"], expected.length);
        if (expected.length <= 400) {
          const records = await walk(query);
          assert.deepEqual(
            records.map((record) => record.attributes["created-date"]),
            expected,
          );
          assert.equal(new Set(records.map((record) => record.id)).size, expected.length);
        }
      });
    }

    it("pages through everything in both orders without overlap or gap, deep offsets included", async () => {
      const all = rows.map((row) => row.created).sort();
      for (const order of ["ASC", "DESC"] as const) {
        const expected = order === "ASC" ? all : [...all].reverse();
        const records = await walk(`sort_order=${order.toLowerCase()}`);
        assert.deepEqual(
          records.map((record) => record.attributes["created-date"]),
          expected,
        );
        assert.equal(new Set(records.map((record) => record.id)).size, all.length);
        for (const offset of [1001, 2345, 3000, 4999, rows.length - 7, rows.length - 1, rows.length]) {
          const res = await get(`/v0/dnc-complaints?sort_order=${order}&items_per_page=13&offset=${offset}`);
          const page = res.json();
          assert.deepEqual(
            page.data.map((record: any) => record.id),
            records.slice(offset, offset + 13).map((record) => record.id),
          );
          assert.equal(page.meta["records-this-page"], page.data.length);
          assert.equal(page.meta["record-total"], all.length);
        }
      }
    });

    it("finds deep pages inside a filter and a cut range", async () => {
      const query = "created_date_from=2024-03-04 07:30:00&created_date_to=2024-03-13 16:00:00";
      const records = await walk(query);
      assert.ok(records.length > 2000);
      for (const offset of [1100, 1777, records.length - 60]) {
        const res = await get(`/v0/dnc-complaints?${query}&offset=${offset}`);
        assert.deepEqual(
          res.json().data.map((record: any) => record.id),
          records.slice(offset, offset + 50).map((record) => record.id),
        );
      }
    });

    it("places deep offsets inside cut ranges in both orders, with and without a filter", async () => {
      const from = "2024-03-05 13:15:00";
      const to = "2024-03-12 09:45:30";
      const inRange = (row: CsvComplaint) => row.created >= from && row.created <= to;
      const area = commonest(rows.map((row) => row.areaCode));
      const cases: Array<[string, (row: CsvComplaint) => boolean]> = [
        ["", inRange],
        ["is_robocall=true", (row) => inRange(row) && row.robocall === "Y"],
        ["state=California", (row) => inRange(row) && row.state === "California"],
        // Area codes are counted per day only, cities too: their cut days are counted on rows.
        [`area_code=${area}`, (row) => inRange(row) && row.areaCode === area],
      ];
      for (const [filter, matches] of cases) {
        const query = `created_date_from=${from}&created_date_to=${to}${filter ? `&${filter}` : ""}`;
        const expected = rows.filter(matches).map((row) => row.created);
        const ascending = await walk(`${query}&sort_order=asc`);
        const descending = await walk(`${query}&sort_order=desc`);
        assert.deepEqual(
          ascending.map((record) => record.attributes["created-date"]),
          [...expected].sort(),
          query,
        );
        // Both orders agree on the order of complaints created in the same second (by id).
        assert.deepEqual(
          descending.map((record) => record.id),
          ascending.map((record) => record.id).reverse(),
          query,
        );
        const total = ascending.length;
        for (const [order, records] of [
          ["asc", ascending],
          ["desc", descending],
        ] as const) {
          for (const offset of [1001, 1234, Math.floor(total / 2) + 3, total - 77, total - 1]) {
            if (offset < 0 || offset >= total) continue;
            const res = await get(
              `/v0/dnc-complaints?${query}&sort_order=${order}&items_per_page=31&offset=${offset}`,
            );
            const page = res.json();
            assert.equal(page.meta["record-total"], total, `${query} ${order} ${offset}`);
            assert.deepEqual(
              page.data.map((record: any) => record.id),
              records.slice(offset, offset + 31).map((record) => record.id),
              `${query} ${order} ${offset}`,
            );
          }
        }
      }
    });

    it("keeps identical rows of one file as separate complaints", async () => {
      const res = await get("/v0/dnc-complaints?company_phone_number=7578688432");
      const body = res.json();
      assert.equal(body.meta["record-total"], 2);
      assert.notEqual(body.data[0].id, body.data[1].id);
    });

    it("fetches one complaint in the same envelope", async () => {
      const listed = (await get("/v0/dnc-complaints?items_per_page=1")).json().data[0];
      const res = await server.get(`/v0/dnc-complaints/${listed.id}?api_key=${key}`);
      assert.equal(res.status, 200);
      const body = res.json();
      assert.deepEqual(body.data, [listed]);
      assert.deepEqual(body.meta, { "records-this-page": 1, "record-total": 1, "records-total": 1 });
      assert.equal(body.links.self, `${server.httpsUrl}/v0/dnc-complaints/${listed.id}`);
      const head = await server.get(`/v0/dnc-complaints/${listed.id}`, { "X-Api-Key": key }, "HEAD");
      assert.equal(head.status, 200);
      assert.equal(head.body, "");
    });

    it("answers 404 with a JSON:API error for an unknown or malformed id", async () => {
      for (const id of [
        "0123456789abcdef0123456789abcdef",
        "not-an-id",
        "0123456789ABCDEF0123456789ABCDEF",
      ]) {
        const res = await get(`/v0/dnc-complaints/${id}`);
        assert.equal(res.status, 404);
        const [error] = res.json().errors;
        assert.equal(error.status, "404");
        assert.equal(error.code, "RECORD_NOT_FOUND");
      }
    });

    it("refuses bad parameters with a JSON:API error naming the parameter", async () => {
      const bad: Array<[string, string]> = [
        ["limit=10", "limit"],
        ["created_date_from=2024-03-01", "created_date_from"],
        ["created_date=2024-02-30", "created_date"],
        ["created_date_from=2024-03-02&created_date_to=2024-03-01", "created_date_from"],
        ["items_per_page=51", "items_per_page"],
        ["offset=-5", "offset"],
        ["is_robocall=maybe", "is_robocall"],
        ["sort_order=sideways", "sort_order"],
        ["state=Ohio%00", "state"],
        ["state=Texas&city=Aus%00tin", "city"],
        ["state=%1B%5B2J", "state"],
        ["created_date=0021-07-08", "created_date"],
        ["created_date_from=0099-01-01&created_date_to=2024-01-01", "created_date_from"],
        ["violation_date=0000-01-01", "violation_date"],
      ];
      for (const [query, parameter] of bad) {
        const res = await get(`/v0/dnc-complaints?${query}`);
        assert.equal(res.status, 400, query);
        const body = res.json();
        assert.equal(body.errors.length, 1);
        assert.equal(body.errors[0].status, "400");
        assert.equal(body.errors[0].source.parameter, parameter);
        assert.equal(typeof body.errors[0].detail, "string");
      }
    });

    it("accepts combinations the spec does not mention", async () => {
      const res = await get("/v0/dnc-complaints?violation_date=2024-03-07&is_robocall=true&sort_order=ASC");
      assert.equal(res.status, 200);
    });

    it("never lets the key into a link", async () => {
      const res = await server.get(`/v0/dnc-complaints?api_key=${key}&items_per_page=1`);
      assert.ok(!res.body.includes(key));
      assert.equal(res.json().links.self, `${server.httpsUrl}/v0/dnc-complaints?items_per_page=1`);
    });

    it("uses --base-url for links when configured", async () => {
      const other = await startTestServer({ db: server.db, baseUrl: "https://api.example.gov" });
      try {
        const res = await other.get("/v0/dnc-complaints?items_per_page=1", { "X-Api-Key": key });
        const body = res.json();
        assert.equal(body.links.self, "https://api.example.gov/v0/dnc-complaints?items_per_page=1");
        assert.ok(body.data[0].links.self.startsWith("https://api.example.gov/v0/dnc-complaints/"));
      } finally {
        await other.stop();
      }
    });

    it("is reachable from browsers: any origin, preflight for X-Api-Key", async () => {
      const preflight = await server.get(
        "/v0/dnc-complaints",
        {
          Origin: "https://example.org",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "x-api-key",
        },
        "OPTIONS",
      );
      assert.ok(preflight.status === 204 || preflight.status === 200);
      assert.equal(preflight.headers["access-control-allow-origin"], "*");
      assert.match(String(preflight.headers["access-control-allow-headers"]), /x-api-key/i);
      const res = await server.get("/v0/dnc-complaints?items_per_page=1", {
        Origin: "https://example.org",
        "X-Api-Key": key,
      });
      assert.equal(res.headers["access-control-allow-origin"], "*");
      const denied = await server.get("/v0/dnc-complaints", { Origin: "https://example.org" });
      assert.equal(denied.headers["access-control-allow-origin"], "*");
    });
  });
}

/** The value that occurs most often. */
function commonest(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}
