/**
 * One change-detection service per collection: a write committed by another process (here: another
 * connection, as an import or mirror holds) is seen by every reader of every serving process within
 * the documented bound (VERSION_POLL_MS: SQLite 3 ms, PostgreSQL a second), and the readers
 * agree: list totals, the count series, notice totals, Last-Modified and /v0/status all move together.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { VERSION_POLL_MS } from "../../src/store/collection-version.js";
import { createKeyWithCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const DAY = Date.UTC(2024, 2, 21) / 1000;

for (const dialect of DIALECTS) {
  describe(`a commit in another process reaches every reader within the bound (${dialect})`, () => {
    let db: string;
    let directory: string;
    let key: string;
    const servers: TestServer[] = [];

    /** Writes through the ingest layer on a connection of its own, as `ftcapi import` does. */
    async function importRound(seed: number): Promise<void> {
      const complaints = join(directory, `complaints-${seed}.csv`);
      const notices = join(directory, `notices-${seed}.csv`);
      await writeComplaintCsv({ rows: 200, days: 3, seed, endSeconds: DAY + seed * 86_400 }, complaints);
      await writeNoticeCsv({ rows: 20 * seed, seed }, notices);
      await importFiles(db, { complaints: [complaints], notices: [notices] });
    }

    before(async () => {
      directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      await importRound(1);
      key = await createKeyWithCli(db, "visibility@example.com", "--unlimited");
      servers.push(await startTestServer({ db }), await startTestServer({ db }));
    });
    after(async () => {
      for (const server of servers) await server.stop();
    });

    /** What one server shows now: totals, a count-series total, Last-Modified and status. */
    async function view(server: TestServer) {
      const get = (path: string) => server.get(path, { "X-Api-Key": key });
      const complaints = await get("/v0/dnc-complaints?items_per_page=1");
      const byState = await get("/v0/dnc-complaints?items_per_page=1&state=California");
      const notices = await get("/v0/hsr-early-termination-notices?page[limit]=1");
      const filtered = await get(
        "/v0/hsr-early-termination-notices?page[limit]=1&filter[title][operator]=CONTAINS&filter[title][value]=a",
      );
      for (const res of [complaints, byState, notices, filtered]) assert.equal(res.status, 200, res.body);
      return {
        complaints: complaints.json().meta["record-total"] as number,
        californians: byState.json().meta["record-total"] as number,
        notices: notices.json().meta.count as number,
        noticesWithA: filtered.json().meta.count as number,
        complaintsModified: complaints.headers["last-modified"],
        noticesModified: notices.headers["last-modified"],
      };
    }

    it("totals, count series, notice totals and Last-Modified all move, in every process, within the bound", async () => {
      const before = await Promise.all(servers.map(view));
      assert.deepEqual(before[0], before[1]);
      // Last-Modified has one-second resolution: make the next commit's time visibly later.
      await sleep(1100);
      await importRound(2);
      const committedAt = performance.now();
      const boundMs = VERSION_POLL_MS[dialect];
      for (const server of servers) {
        let seen = await view(server);
        while (seen.notices === before[0]!.notices && performance.now() - committedAt < boundMs + 2000) {
          await sleep(50);
          seen = await view(server);
        }
        const elapsedMs = performance.now() - committedAt;
        assert.ok(
          elapsedMs <= boundMs + 500,
          `seen after ${Math.round(elapsedMs)} ms; the bound is ${boundMs} ms`,
        );
        assert.ok(seen.complaints > before[0]!.complaints, "the complaint total moved");
        assert.ok(seen.californians > before[0]!.californians, "the count series moved");
        assert.ok(seen.noticesWithA > before[0]!.noticesWithA, "the notice total of a filter moved");
        assert.notEqual(seen.complaintsModified, before[0]!.complaintsModified);
        assert.notEqual(seen.noticesModified, before[0]!.noticesModified);
      }
      const [first, second] = await Promise.all(servers.map(view));
      assert.deepEqual(first, second);
    });

    it("/v0/status is exact at once, and its update time is the answers' Last-Modified", async () => {
      await sleep(1100);
      await importRound(3);
      for (const server of servers) {
        const status = await server.get("/v0/status", { "X-Api-Key": key });
        const [complaints, notices] = status.json().data;
        const list = await server.get("/v0/dnc-complaints?items_per_page=1", { "X-Api-Key": key });
        assert.equal(complaints.attributes["record-count"], list.json().meta["record-total"]);
        assert.equal(
          new Date(complaints.attributes["last-updated"]).toUTCString(),
          list.headers["last-modified"],
        );
        const noticeList = await server.get("/v0/hsr-early-termination-notices?page[limit]=1", {
          "X-Api-Key": key,
        });
        assert.equal(notices.attributes["record-count"], noticeList.json().meta.count);
        assert.equal(
          new Date(notices.attributes["last-updated"]).toUTCString(),
          noticeList.headers["last-modified"],
        );
      }
    });
  });
}
