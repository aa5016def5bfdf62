/**
 * SQLite's idle event loop runs a lone request's reads on a connection of its own, under a short
 * budget; a read that outruns it is run again by a read thread, and the idle loop then runs no read
 * for a while, so that the same costly request's next statements do not each spend that budget
 * first. SQLite only: PostgreSQL has no read threads.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CompiledQuery } from "kysely";
import { migrate } from "../../src/store/migrate.js";
import { openDatabase } from "../../src/store/open-database.js";
import { makeTempDirectory } from "../support/test-server.js";

/** Tens of milliseconds of work: far past the idle loop's budget of 6 ms. */
const COSTLY = CompiledQuery.raw(
  "with recursive numbers(n) as (select 1 union all select n + 1 from numbers where n < 300000) select count(*) from numbers",
);
const CHEAP = CompiledQuery.raw("select 1");

describe("reads on the idle event loop (SQLite)", () => {
  it("pause after one outran the idle loop's budget, then resume", async () => {
    const file = join(await makeTempDirectory(), "ftcapi.db");
    const setup = openDatabase(file);
    await migrate(setup);
    await setup.close();
    const database = openDatabase(file, { readThreads: 2 });
    assert.equal(database.dialect, "sqlite");
    const figures = () => (database.dialect === "sqlite" ? database.readPool()! : undefined)!;
    try {
      // The threads started, and the loop idle since.
      await Promise.all(Array.from({ length: 8 }, () => database.selectRows(CHEAP)));
      await sleep(100);
      const start = figures();
      const idleLoopReads = () => figures().idleLoopReads - start.idleLoopReads;
      assert.deepEqual(await database.selectRows(CHEAP), [[1]]);
      assert.equal(idleLoopReads(), 1, "a lone cheap read runs on the idle loop");

      // The loop waits for events again, which renews its allowance of reads.
      await sleep(20);
      assert.deepEqual(await database.selectRows(COSTLY), [[300_000]]);
      assert.equal(idleLoopReads(), 2, JSON.stringify(figures()));
      assert.equal(figures().idleLoopInterrupted - start.idleLoopInterrupted, 1, JSON.stringify(figures()));

      // Right after the costly read's answer: a thread runs the next read.
      assert.deepEqual(await database.selectRows(CHEAP), [[1]]);
      assert.equal(idleLoopReads(), 2, JSON.stringify(figures()));

      // Once the pause is over, a lone read runs on the idle loop again.
      await sleep(200);
      assert.deepEqual(await database.selectRows(CHEAP), [[1]]);
      assert.equal(idleLoopReads(), 3, JSON.stringify(figures()));
    } finally {
      await database.close();
    }
  });
});
