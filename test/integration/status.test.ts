import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nextPublicationAfter } from "../../src/domain/publication-calendar.js";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const HEADER =
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall";

for (const dialect of DIALECTS) {
  describe(`GET /v0/status and Last-Modified (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let key: string;
    let csv: string;

    before(async () => {
      db = await freshDatabase(dialect);
      key = await createKeyWithCli(db);
      csv = join(await makeTempDirectory(), "daily.csv");
      await writeFile(
        csv,
        [
          HEADER,
          "2025550100,2024-01-02 10:00:00,2024-01-01 09:00:00,Austin,Texas,512,Other,Y",
          "2025550101,2024-01-03 23:59:58,2024-01-01 09:00:00,Austin,Texas,512,Other,N",
          "",
        ].join("\r\n"),
      );
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const status = async () => {
      const res = await server.get("/v0/status", { "X-Api-Key": key });
      assert.equal(res.status, 200, res.body);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      return res.json().data.find((entry: { id: string }) => entry.id === "dnc-complaints");
    };

    it("before any data: an empty collection, no update known, no Last-Modified", async () => {
      const entry = await status();
      assert.equal(entry.type, "collection_status");
      assert.equal(entry.attributes.path, "/v0/dnc-complaints");
      assert.equal(entry.attributes["record-count"], 0);
      assert.equal(entry.attributes["newest-created-date"], null);
      assert.equal(entry.attributes["last-updated"], null);
      assert.equal(entry.attributes["last-mirrored"], null);
      const due = Date.parse(entry.attributes["next-update-due"]);
      assert.ok(due > Date.now() - 60_000, "due after now");
      assert.equal(entry.attributes.overdue, false);
      const list = await server.get("/v0/dnc-complaints", { "X-Api-Key": key });
      assert.equal(list.status, 200);
      assert.equal(list.headers["last-modified"], undefined);
    });

    it("after an import in another process: count, newest date, update time, next publication after it", async () => {
      const before = Math.floor(Date.now() / 1000);
      const imported = await runCli(["import", "dnc", "--db", db, csv]);
      assert.equal(imported.code, 0, imported.stderr);
      const after = Math.ceil(Date.now() / 1000);
      const entry = await status();
      assert.equal(entry.attributes["record-count"], 2);
      assert.equal(entry.attributes["newest-created-date"], "2024-01-03 23:59:58");
      const updated = Date.parse(entry.attributes["last-updated"]) / 1000;
      assert.ok(updated >= before && updated <= after, `${entry.attributes["last-updated"]}`);
      assert.equal(
        entry.attributes["next-update-due"],
        new Date(nextPublicationAfter(updated * 1000)).toISOString(),
      );
      assert.match(entry.attributes.schedule, /business day.*12:00 America\/New_York/);

      // Importing the same file again adds nothing, so the collection did not change.
      assert.equal((await runCli(["import", "dnc", "--db", db, csv])).code, 0);
      assert.equal((await status()).attributes["last-updated"], entry.attributes["last-updated"]);
    });

    it("collection answers carry Last-Modified; If-Modified-Since not older gets 304", async () => {
      const entry = await status();
      const lastModified = new Date(entry.attributes["last-updated"]).toUTCString();
      const list = await server.get("/v0/dnc-complaints", { "X-Api-Key": key });
      assert.equal(list.headers["last-modified"], lastModified);
      const id = list.json().data[0].id;
      const single = await server.get(`/v0/dnc-complaints/${id}`, { "X-Api-Key": key });
      assert.equal(single.headers["last-modified"], lastModified);

      const unchanged = await server.get("/v0/dnc-complaints", {
        "X-Api-Key": key,
        "If-Modified-Since": lastModified,
      });
      assert.equal(unchanged.status, 304);
      assert.equal(unchanged.body, "");
      assert.equal(unchanged.headers["x-ratelimit-limit"], "1000", "a 304 is a keyed answer");
      const older = await server.get("/v0/dnc-complaints", {
        "X-Api-Key": key,
        "If-Modified-Since": new Date(Date.parse(lastModified) - 1000).toUTCString(),
      });
      assert.equal(older.status, 200);
      assert.equal(older.json().data.length, 2);

      const bad = await server.get("/v0/dnc-complaints?items_per_page=500", {
        "X-Api-Key": key,
        "If-Modified-Since": lastModified,
      });
      assert.equal(bad.status, 400, "bad parameters are reported, not hidden behind 304");
      assert.equal(bad.headers["last-modified"], undefined);
    });

    it("refuses parameters it does not take", async () => {
      const res = await server.get("/v0/status?collection=dnc", { "X-Api-Key": key });
      assert.equal(res.status, 400);
      assert.equal(res.json().errors[0].code, "UNKNOWN_PARAMETER");
      assert.equal(res.json().errors[0].source.parameter, "collection");
    });

    it("a disabled key is refused", async () => {
      const victim = await createKeyWithCli(db, "status-victim@example.com");
      assert.equal((await runCli(["keys", "disable", victim.slice(0, 6), "--db", db])).code, 0);
      const fresh = await startTestServer({ db });
      try {
        const res = await fresh.get("/v0/status", { "X-Api-Key": victim });
        assert.equal(res.status, 403);
        assert.equal(res.json().error.code, "API_KEY_DISABLED");
      } finally {
        await fresh.stop();
      }
    });
  });
}
