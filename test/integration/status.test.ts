import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NOTICE_SCHEDULE, nextPublicationAfter } from "../../src/domain/publication-calendar.js";
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
    let noticesCsv: string;

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
      noticesCsv = join(await makeTempDirectory(), "notices.csv");
      await writeFile(
        noticesCsv,
        [
          "transaction_number,acquiring_party,acquired_party,acquired_entities,date,created,updated",
          "20240001,Acme Holdings,Widget Co.,Widget Co.;Widget Sales LLC,2024-01-05,2024-01-08T15:00:00+00:00,2024-01-08T15:00:00+00:00",
          "20240002,Bolt Partners,Nut Inc.,Nut Inc.,2024-01-06,2024-01-09T16:30:00+00:00,2024-01-09T16:30:00+00:00",
          "",
        ].join("\n"),
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
    const noticeStatus = async () => {
      const res = await server.get("/v0/status", { "X-Api-Key": key });
      assert.equal(res.status, 200, res.body);
      return res.json().data.find((entry: { id: string }) => entry.id === "hsr-early-termination-notices");
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

      // Both validators name the same version: the update time inside the tag is Last-Modified's.
      const tagged = await server.get("/v0/dnc-complaints?state=Ohio", { "X-Api-Key": key });
      assert.equal(tagged.status, 200);
      const taggedSeconds = Number(/^"\d+\.(\d+)\./.exec(String(tagged.headers.etag))?.[1]);
      assert.equal(Date.parse(String(tagged.headers["last-modified"])) / 1000, taggedSeconds);
      const unmatchedTag = await server.get("/v0/dnc-complaints?state=Ohio", {
        "X-Api-Key": key,
        "If-None-Match": '"another"',
        "If-Modified-Since": lastModified,
      });
      assert.equal(unmatchedTag.status, 304, "an If-Modified-Since not older still answers 304");
      assert.equal(unmatchedTag.headers["last-modified"], lastModified);

      const bad = await server.get("/v0/dnc-complaints?items_per_page=500", {
        "X-Api-Key": key,
        "If-Modified-Since": lastModified,
      });
      assert.equal(bad.status, 400, "bad parameters are reported, not hidden behind 304");
      assert.equal(bad.headers["last-modified"], undefined);
    });

    it("reports both collections; notices: empty, no update known, no Last-Modified", async () => {
      const res = await server.get("/v0/status", { "X-Api-Key": key });
      assert.deepEqual(
        res.json().data.map((entry: { id: string }) => entry.id),
        ["dnc-complaints", "hsr-early-termination-notices"],
      );
      const entry = await noticeStatus();
      assert.equal(entry.attributes.path, "/v0/hsr-early-termination-notices");
      assert.equal(entry.attributes["record-count"], 0);
      assert.equal(entry.attributes["newest-created-date"], null);
      assert.equal(entry.attributes["last-updated"], null);
      assert.equal(entry.attributes["last-mirrored"], null);
      assert.equal(entry.attributes.overdue, false);
      assert.match(entry.attributes.schedule, /^every day by the end of the day \(24:00\) America\/New_York/);
      const list = await server.get("/v0/hsr-early-termination-notices", { "X-Api-Key": key });
      assert.equal(list.status, 200);
      assert.equal(list.headers["last-modified"], undefined);
    });

    it("notices: an import in another process sets count, newest created, update time and the next daily update", async () => {
      const complaintsUpdated = (await status()).attributes["last-updated"];
      const before = Math.floor(Date.now() / 1000);
      const imported = await runCli(["import", "notices", "--db", db, noticesCsv]);
      assert.equal(imported.code, 0, imported.stderr);
      const after = Math.ceil(Date.now() / 1000);
      const entry = await noticeStatus();
      assert.equal(entry.attributes["record-count"], 2);
      assert.equal(entry.attributes["newest-created-date"], "2024-01-09T16:30:00+00:00");
      const updated = Date.parse(entry.attributes["last-updated"]) / 1000;
      assert.ok(updated >= before && updated <= after, `${entry.attributes["last-updated"]}`);
      const due = nextPublicationAfter(updated * 1000, NOTICE_SCHEDULE);
      assert.equal(entry.attributes["next-update-due"], new Date(due).toISOString());
      const clock = new Intl.DateTimeFormat("en-US", {
        timeZone: "America/New_York",
        hourCycle: "h23",
        hour: "2-digit",
        minute: "2-digit",
      }).format(new Date(due));
      assert.equal(clock, "00:00", "the end of a day on the New York clock");
      assert.ok(due - updated * 1000 <= 86_400_000 + 3_600_000, "within the day after the update");
      assert.equal((await status()).attributes["last-updated"], complaintsUpdated, "complaints untouched");

      // The same file again changes nothing, so the collection did not change.
      const again = await runCli(["import", "notices", "--db", db, noticesCsv]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /0 added, 0 changed, 2 unchanged/);
      assert.equal((await noticeStatus()).attributes["last-updated"], entry.attributes["last-updated"]);
    });

    it("notices answers carry Last-Modified; If-Modified-Since not older gets 304", async () => {
      const entry = await noticeStatus();
      const lastModified = new Date(entry.attributes["last-updated"]).toUTCString();
      const list = await server.get("/v0/hsr-early-termination-notices", { "X-Api-Key": key });
      assert.equal(list.status, 200);
      assert.equal(list.headers["last-modified"], lastModified);
      const id = list.json().data[0].id;
      for (const path of [
        `/v0/hsr-early-termination-notices/${id}`,
        `/v0/hsr-early-termination-notices/${id}/relationships/node_type`,
        `/v0/hsr-early-termination-notices?filter[id][value]=${id}`,
      ]) {
        const single = await server.get(path, { "X-Api-Key": key });
        assert.equal(single.status, 200, path);
        assert.equal(single.headers["last-modified"], lastModified, path);
      }

      const unchanged = await server.get("/v0/hsr-early-termination-notices", {
        "X-Api-Key": key,
        "If-Modified-Since": lastModified,
      });
      assert.equal(unchanged.status, 304);
      assert.equal(unchanged.body, "");
      const older = await server.get("/v0/hsr-early-termination-notices", {
        "X-Api-Key": key,
        "If-Modified-Since": new Date(Date.parse(lastModified) - 1000).toUTCString(),
      });
      assert.equal(older.status, 200);
      assert.equal(older.json().meta.count, 2);

      const bad = await server.get("/v0/hsr-early-termination-notices?page[limit]=500", {
        "X-Api-Key": key,
        "If-Modified-Since": lastModified,
      });
      assert.equal(bad.status, 400, "bad parameters are reported, not hidden behind 304");
      assert.equal(bad.headers["last-modified"], undefined);
      const missing = await server.get(
        "/v0/hsr-early-termination-notices/00000000-0000-4000-8000-000000000000",
        { "X-Api-Key": key, "If-Modified-Since": lastModified },
      );
      assert.equal(missing.status, 404);
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
