/**
 * The page cache of SQLite's read threads (`readThreadCacheKib`, which `serve` takes as
 * `--read-thread-cache-mb`): every connection that runs the server's reads (each read thread's and
 * the idle event loop's) gets the size asked, or 4 MB by default. SQLite only: PostgreSQL has no
 * read threads.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CompiledQuery } from "kysely";
import { migrate } from "../../src/store/migrate.js";
import { openDatabase } from "../../src/store/open-database.js";
import { eventually } from "../support/eventually.js";
import { makeTempDirectory } from "../support/test-server.js";

const CACHE_SIZE = CompiledQuery.raw("pragma cache_size");

describe("read threads' page cache (SQLite)", () => {
  it("is the size asked on every reading connection, and 4 MB by default", async () => {
    const file = join(await makeTempDirectory(), "ftcapi.db");
    const setup = openDatabase(file);
    await migrate(setup);
    await setup.close();
    const asked = openDatabase(file, { readThreads: 2, readThreadCacheKib: 8_192 });
    const plain = openDatabase(file, { readThreads: 2 });
    try {
      for (const [database, kib] of [
        [asked, 8_192],
        [plain, 4_096],
      ] as const) {
        assert.equal(database.dialect, "sqlite");
        const figures = () => (database.dialect === "sqlite" ? database.readPool() : undefined)!;
        // The idle loop's connection answers a lone read once the loop has waited for events with
        // no statement out to the threads (which may still be starting on a busy machine).
        await eventually(async () => {
          const before = figures().idleLoopReads;
          assert.deepEqual(await database.selectRows(CACHE_SIZE), [[-kib]]);
          assert.ok(figures().idleLoopReads > before, JSON.stringify(figures()));
        });
        // Many at once: past the idle loop's allowance of reads, the threads answer the rest.
        await eventually(async () => {
          const before = figures().lanes.reduce((sum, lane) => sum + lane.statements, 0);
          const together = await Promise.all(
            Array.from({ length: 1_000 }, () => database.selectRows(CACHE_SIZE)),
          );
          assert.deepEqual(
            new Set(together.map((rows) => JSON.stringify(rows))),
            new Set([JSON.stringify([[-kib]])]),
          );
          const after = figures().lanes.reduce((sum, lane) => sum + lane.statements, 0);
          assert.ok(after > before, JSON.stringify(figures()));
        });
      }
    } finally {
      await asked.close();
      await plain.close();
    }
  });
});
