import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const PATH = "/v0/hsr-early-termination-notices";

for (const dialect of DIALECTS) {
  describe(`notice totals after an import (${dialect})`, () => {
    let server: TestServer;
    let key: string;
    let db: string;
    let directory: string;

    async function generateAndImport(seed: string): Promise<void> {
      const csv = join(directory, `notices-${seed}.csv`);
      const generated = await runCli(["generate", "notices", "--rows", "300", "--seed", seed, "--out", csv]);
      assert.equal(generated.code, 0, generated.stderr);
      const imported = await runCli(["import", "notices", "--db", db, "--quiet", csv]);
      assert.equal(imported.code, 0, imported.stderr);
    }

    before(async () => {
      directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      // The first notices through the store; the import the test watches for is a process of its own.
      const csv = join(directory, "notices-11.csv");
      await writeNoticeCsv({ rows: 300, seed: 11 }, csv);
      await importFiles(db, { notices: [csv] });
      key = await createTestKey(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    it("tags lists and answers their If-None-Match with 304, still counting the key", async () => {
      const path = `${PATH}?sort=-date&page[limit]=5`;
      const first = await server.get(path, { "X-Api-Key": key });
      assert.equal(first.status, 200);
      const etag = first.headers.etag as string;
      assert.match(etag, /^"[^"]+"$/);
      assert.match(String(first.headers["content-type"]), /^application\/vnd\.api\+json/);
      const conditional = await server.get(path, { "X-Api-Key": key, "If-None-Match": etag });
      assert.equal(conditional.status, 304);
      assert.equal(conditional.body, "");
      assert.equal(
        Number(conditional.headers["x-ratelimit-remaining"]),
        Number(first.headers["x-ratelimit-remaining"]) - 1,
      );
      const unkeyed = await server.get(path, { "If-None-Match": etag });
      assert.ok(unkeyed.status >= 400, `status ${unkeyed.status}`);
    });

    it("counts again once another process has imported more notices", async () => {
      const query = `${PATH}?filter[title][value]=a&filter[title][operator]=CONTAINS&page[limit]=1`;
      const count = async () => {
        const res = await server.get(query, { "X-Api-Key": key });
        assert.equal(res.status, 200, res.body);
        return res.json().meta.count as number;
      };
      const first = await count();
      assert.equal(await count(), first, "a repeated request gives the kept total");
      await generateAndImport("12");
      // PostgreSQL's answers may lag a commit by up to a second (docs/performance.md).
      let second = await count();
      for (let tries = 0; second === first && tries < 30; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        second = await count();
      }
      assert.ok(second > first, `${second} > ${first}`);
    });
  });
}
