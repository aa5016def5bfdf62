/**
 * `warmFileCache` (store/sqlite/warm-file-cache.ts), which `serve` runs at start (its log line is
 * tested in test/e2e/file-cache-warming.test.ts): it reads a SQLite file and its write-ahead log
 * whole, refuses a file larger than half the memory it is told is available, and stops when told.
 * SQLite only: PostgreSQL keeps its own cache.
 */
import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { migrate } from "../../src/store/migrate.js";
import { openDatabase } from "../../src/store/open-database.js";
import { megabytes, warmFileCache } from "../../src/store/sqlite/warm-file-cache.js";
import { makeTempDirectory } from "../support/test-server.js";

describe("warmFileCache (SQLite)", () => {
  let file: string;
  let bytes: number;

  before(async () => {
    file = join(await makeTempDirectory(), "ftcapi.db");
    const database = openDatabase(file);
    await migrate(database);
    await database.close();
    bytes = (await stat(file)).size + ((await stat(`${file}-wal`).catch(() => undefined))?.size ?? 0);
    assert.ok(bytes > 0);
  });

  it("reads the file and its write-ahead log whole", async () => {
    const outcome = await warmFileCache(file, { availableBytes: 2 * bytes });
    assert.equal(outcome.warmed, true);
    assert.equal(outcome.bytes, bytes);
  });

  it("does not read a file larger than half the memory available, and says why", async () => {
    const outcome = await warmFileCache(file, { availableBytes: 2 * bytes - 1 });
    assert.deepEqual(outcome, {
      warmed: false,
      bytes,
      reason: `larger than half the memory available (${megabytes(2 * bytes - 1)})`,
    });
  });

  it("stops once its signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await warmFileCache(file, { availableBytes: 2 * bytes, signal: controller.signal });
    assert.deepEqual(outcome, { warmed: false, bytes, reason: "stopped" });
  });

  it("writes sizes in megabytes with a thousands separator", () => {
    assert.equal(megabytes(1_452_097_536), "1,384.8 MB");
    assert.equal(megabytes(0), "0.0 MB");
  });
});
