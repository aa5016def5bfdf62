import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/store/database.js";
import { FreshnessStore } from "../../src/store/freshness-store.js";
import { migrate } from "../../src/store/migrate.js";
import { openDatabase } from "../../src/store/open-database.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";

for (const dialect of DIALECTS) {
  describe(`freshness and mirror progress records (${dialect})`, () => {
    let database: Database;
    let store: FreshnessStore;
    before(async () => {
      database = openDatabase(await freshDatabase(dialect));
      await migrate(database);
      store = new FreshnessStore(database);
    });
    after(() => database?.close());

    const run = (statement: ReturnType<FreshnessStore["markUpdated"]>) => database.db.executeQuery(statement);

    it("update times and completed days never move backwards", async () => {
      assert.equal(await store.lastUpdated("dnc-complaints"), undefined);
      await run(store.markUpdated("dnc-complaints", 2000));
      await run(store.markUpdated("dnc-complaints", 1000));
      assert.equal(await store.lastUpdated("dnc-complaints"), 2000);

      const upstream = "https://api.example.gov";
      await run(store.progress(upstream, "dnc-complaints", 19_000));
      await run(store.progress(upstream, "dnc-complaints", 18_000));
      assert.deepEqual(await store.mirrorProgress(upstream, "dnc-complaints"), {
        completeThroughDay: 19_000,
        checkedAt: null,
      });
      await store.markChecked(upstream, "dnc-complaints", 3000);
      await store.markChecked("https://other.example.gov", "dnc-complaints", 2500);
      assert.equal((await store.mirrorProgress(upstream, "dnc-complaints")).completeThroughDay, 19_000);
      assert.equal(await store.lastChecked("dnc-complaints"), 3000);
      assert.equal(await store.lastChecked("hsr-early-termination-notices"), undefined);
    });

    it("keeps a text cursor per upstream and collection", async () => {
      const upstream = "https://api.example.gov";
      assert.equal(await store.mirrorCursor(upstream, "hsr-early-termination-notices"), undefined);
      await run(
        store.cursorStatement(upstream, "hsr-early-termination-notices", "2013-09-24T20:05:39+00:00"),
      );
      await run(
        store.cursorStatement(upstream, "hsr-early-termination-notices", "2014-01-02T10:00:00+00:00"),
      );
      assert.equal(
        await store.mirrorCursor(upstream, "hsr-early-termination-notices"),
        "2014-01-02T10:00:00+00:00",
      );
      assert.equal(
        await store.mirrorCursor("https://other.example.gov", "hsr-early-termination-notices"),
        undefined,
      );
    });
  });
}
