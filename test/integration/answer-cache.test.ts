import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const HEADER =
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall";
const FIRST = [
  "2025550100,2024-03-20 10:00:00,2024-03-19 09:00:00,Austin,Texas,512,Other,Y",
  "2025550101,2024-03-20 11:00:00,2024-03-19 09:00:00,Dallas,Texas,214,Other,N",
  "2025550102,2024-03-20 12:00:00,2024-03-19 09:00:00,Reno,Nevada,775,Other,N",
];
const LATER = "2025550103,2024-03-21 09:00:00,2024-03-20 09:00:00,Houston,Texas,713,Other,Y";

for (const dialect of DIALECTS) {
  describe(`answers cached with ETag (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let directory: string;
    let key: string;

    before(async () => {
      directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      const file = join(directory, "first.csv");
      await writeFile(file, `${[HEADER, ...FIRST].join("\r\n")}\r\n`);
      await importFiles(db, { complaints: [file] });
      key = await createTestKey(db, { email: "etag@example.com", limitPerHour: 100 });
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const path = "/v0/dnc-complaints?state=Texas";

    it("answers If-None-Match with 304, still checking and counting the key", async () => {
      const first = await server.get(path, { "X-Api-Key": key });
      assert.equal(first.status, 200);
      const etag = first.headers.etag as string;
      assert.match(etag, /^"[^"]+"$/);
      assert.equal(first.json().meta["record-total"], 2);
      const remaining = Number(first.headers["x-ratelimit-remaining"]);

      const again = await server.get(path, { "X-Api-Key": key });
      assert.equal(again.headers.etag, etag);
      assert.equal(again.body, first.body);

      const conditional = await server.get(path, { "X-Api-Key": key, "If-None-Match": etag });
      assert.equal(conditional.status, 304);
      assert.equal(conditional.body, "");
      assert.equal(Number(conditional.headers["x-ratelimit-remaining"]), remaining - 2);

      const other = await server.get(path, { "X-Api-Key": key, "If-None-Match": '"something-else"' });
      assert.equal(other.status, 200);

      const unkeyed = await server.get(path, { "If-None-Match": etag });
      const wrongKey = await server.get(path, { "X-Api-Key": "not-a-key", "If-None-Match": etag });
      for (const refused of [unkeyed, wrongKey]) {
        assert.notEqual(refused.status, 304);
        assert.ok(refused.status >= 400, `status ${refused.status}`);
      }
    });

    it("tags single records and answers their If-None-Match with 304", async () => {
      const list = await server.get(path, { "X-Api-Key": key });
      const id = list.json().data[0].id as string;
      const one = await server.get(`/v0/dnc-complaints/${id}`, { "X-Api-Key": key });
      assert.equal(one.status, 200);
      const etag = one.headers.etag as string;
      const conditional = await server.get(`/v0/dnc-complaints/${id}`, {
        "X-Api-Key": key,
        "If-None-Match": etag,
      });
      assert.equal(conditional.status, 304);
    });

    it("drops cached answers once an import adds complaints", async () => {
      const list = await server.get(path, { "X-Api-Key": key });
      const recordPath = `/v0/dnc-complaints/${list.json().data[0].id}`;
      // Asked twice, so that the record's answer is kept.
      await server.get(recordPath, { "X-Api-Key": key });
      const record = await server.get(recordPath, { "X-Api-Key": key });
      const before = await server.get(path, { "X-Api-Key": key });
      const file = join(directory, "later.csv");
      await writeFile(file, `${[HEADER, LATER].join("\r\n")}\r\n`);
      const imported = await runCli(["import", "dnc", "--db", db, file]);
      assert.equal(imported.code, 0, imported.stderr);
      // The data version is read at most once a second: the new answer comes within a few.
      let after = await server.get(path, {
        "X-Api-Key": key,
        "If-None-Match": before.headers.etag as string,
      });
      for (let attempt = 0; attempt < 25 && after.status === 304; attempt++) {
        await sleep(200);
        after = await server.get(path, { "X-Api-Key": key, "If-None-Match": before.headers.etag as string });
      }
      assert.equal(after.status, 200);
      assert.notEqual(after.headers.etag, before.headers.etag);
      assert.equal(after.json().meta["record-total"], 3);
      // A stored complaint never changes: its answer and its tag outlive the new version.
      const recordAfter = await server.get(recordPath, {
        "X-Api-Key": key,
        "If-None-Match": record.headers.etag as string,
      });
      assert.equal(recordAfter.status, 304);
      const recordAgain = await server.get(recordPath, { "X-Api-Key": key });
      assert.equal(recordAgain.body, record.body);
      assert.equal(recordAgain.headers.etag, record.headers.etag);
    });
  });

  describe(`one notice's kept answer (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let directory: string;
    let key: string;
    const id = "0254a428-d492-4d98-8bc6-e704bad804b7";
    const document = (revision: number, title: string) =>
      JSON.stringify({
        jsonapi: { version: "1.0" },
        data: [
          {
            type: "early_termination_notice",
            id,
            links: {
              self: {
                href: `https://www.ftc.gov/v0/hsr-early-termination-notices/${id}?resourceVersion=id%3A${revision}`,
              },
            },
            attributes: {
              title,
              "transaction-number": "20110718",
              "acquiring-party": "Carl C. Icahn",
              "acquired-party": "Blockbuster Inc.",
              "acquired-entities": ["Blockbuster Inc."],
              date: "2011-04-11",
              created: "2013-09-24T20:05:39+00:00",
              updated: revision === 1 ? "2013-09-24T22:22:27+00:00" : "2013-10-01T08:00:00+00:00",
              tags: [],
            },
            relationships: {},
          },
        ],
      });

    before(async () => {
      directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      const file = join(directory, "first.json");
      await writeFile(file, document(1, "20110718: Carl C. Icahn; Blockbuster Inc."));
      await importFiles(db, { notices: [file] });
      key = await createTestKey(db, { email: "notice-record@example.com", limitPerHour: "unlimited" });
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    it("shows the notice's new revision once an import changes it", async () => {
      const path = `/v0/hsr-early-termination-notices/${id}`;
      const first = await server.get(path, { "X-Api-Key": key });
      assert.equal(first.status, 200, first.body);
      assert.equal(first.json().data[0].attributes.title, "20110718: Carl C. Icahn; Blockbuster Inc.");
      assert.equal(first.headers.etag, undefined, "a notice's answer carries no ETag (spec 4.2)");
      const kept = await server.get(path, { "X-Api-Key": key });
      assert.equal(kept.body, first.body);

      const file = join(directory, "second.json");
      await writeFile(file, document(2, "20110718: Carl C. Icahn; Blockbuster Inc. (amended)"));
      const imported = await runCli(["import", "notices", "--db", db, file]);
      assert.equal(imported.code, 0, imported.stderr);
      let after = await server.get(path, { "X-Api-Key": key });
      for (let attempt = 0; attempt < 25 && after.body === first.body; attempt++) {
        await sleep(200);
        after = await server.get(path, { "X-Api-Key": key });
      }
      assert.equal(after.status, 200);
      assert.equal(
        after.json().data[0].attributes.title,
        "20110718: Carl C. Icahn; Blockbuster Inc. (amended)",
      );
      assert.match(after.json().data[0].links.self.href, /resourceVersion=id%3A2$/);
    });
  });
}
