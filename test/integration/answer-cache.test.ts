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
    });
  });
}
