import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createKeyWithCli, REPO_ROOT, runCli } from "../support/cli.js";
import { asAttributes, type CsvComplaint, readComplaintCsv } from "../support/complaint-rows.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const EXTRACT = join(REPO_ROOT, "..", "shared", "data", "DNC_Complaint_Numbers_2021-07-08.csv");

for (const dialect of DIALECTS) {
  describe(`the real 2021-07-08 extract (${dialect})`, () => {
    const present = existsSync(EXTRACT);
    let server: TestServer;
    let key: string;
    let rows: CsvComplaint[];

    before(async () => {
      if (!present) return;
      const db = await freshDatabase(dialect);
      const imported = await runCli(["import", "dnc", "--db", db, EXTRACT]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /14034 rows, 14034 added, 0 already present, 0 rejected/);
      rows = await readComplaintCsv(EXTRACT);
      key = await createKeyWithCli(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const total = async (query: string) => {
      const res = await server.get(`/v0/dnc-complaints?items_per_page=1&${query}`, { "X-Api-Key": key });
      assert.equal(res.status, 200, res.body);
      return res.json().meta["record-total"] as number;
    };

    it("serves totals equal to counts computed independently from the file", async (t) => {
      if (!present) {
        t.skip(`${EXTRACT} not found: the real-extract test is skipped`);
        return;
      }
      assert.equal(rows.length, 14_034);
      const count = (test: (row: CsvComplaint) => boolean) => rows.filter(test).length;
      const expectations: Array<[string, number]> = [
        ["", rows.length],
        ["created_date=%222021-07-07%22", count((row) => row.created.startsWith("2021-07-07"))],
        ["state=California", count((row) => row.state === "California")],
        ["state=%22new york%22", count((row) => row.state.toLowerCase() === "new york")],
        [
          "state=Texas&city=houston",
          count((row) => row.state === "Texas" && row.city.toLowerCase() === "houston"),
        ],
        ["area_code=510", count((row) => row.areaCode === "510")],
        ["is_robocall=true", count((row) => row.robocall === "Y")],
        ["is_robocall=false", count((row) => row.robocall === "N")],
        ["violation_date=2021-07-06", count((row) => row.violation.startsWith("2021-07-06"))],
        [
          "violation_date_from=2021-01-01&violation_date_to=2021-06-30",
          count((row) => row.violation >= "2021-01-01" && row.violation <= "2021-06-30 23:59:59"),
        ],
        [
          'created_date_from="2021-07-07 08:00:00"&created_date_to="2021-07-07 12:30:00"',
          count((row) => row.created >= "2021-07-07 08:00:00" && row.created <= "2021-07-07 12:30:00"),
        ],
        [
          "state=Florida&created_date_from=2021-07-07 18:00:00&created_date_to=2021-07-07 23:59:59",
          count((row) => row.state === "Florida" && row.created >= "2021-07-07 18:00:00"),
        ],
        ["company_phone_number=7578688432", count((row) => row.phone === "7578688432")],
      ];
      for (const [query, expected] of expectations) {
        assert.equal(await total(query), expected, query);
      }
    });

    it("returns rows exactly as published, the identical pair included", async (t) => {
      if (!present) {
        t.skip(`${EXTRACT} not found: the real-extract test is skipped`);
        return;
      }
      const res = await server.get(
        "/v0/dnc-complaints?company_phone_number=7578688432&created_date=2021-07-07",
        {
          "X-Api-Key": key,
        },
      );
      const data = res.json().data;
      const published = rows.filter((row) => row.phone === "7578688432");
      assert.equal(data.length, published.length);
      assert.deepEqual(
        data
          .map((record: any) => record.attributes)
          .sort((a: any, b: any) => a["created-date"].localeCompare(b["created-date"])),
        published.map(asAttributes).sort((a, b) => a["created-date"]!.localeCompare(b["created-date"]!)),
      );
      assert.equal(new Set(data.map((record: any) => record.id)).size, data.length);
      const messy = await server.get(
        "/v0/dnc-complaints?created_date=2021-07-07&items_per_page=50&offset=0",
        { "X-Api-Key": key },
      );
      assert.equal(messy.status, 200);
    });
  });
}
