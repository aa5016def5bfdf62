/**
 * `serve` reads its SQLite file once at start, in the background, into the operating system's file
 * cache (store/sqlite/warm-file-cache.ts), and says so; `--no-warm-file-cache` turns it off. Real
 * serve processes over a database made by the CLI.
 */
import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { runCli } from "../support/cli.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const WARMED = /file cache: read (\S+) \(([\d,.]+) MB\) in [\d.]+ s/;

/** The output once `pattern` has appeared in it, or after `timeoutMs`. */
async function outputShowing(server: ServeProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (!pattern.test(server.output()) && Date.now() < until) await sleep(50);
  return server.output();
}

describe("serve reads its SQLite file into the file cache at start", () => {
  let directory: string;
  let db: string;

  before(async () => {
    directory = await makeTempDirectory();
    db = join(directory, "ftcapi.db");
    const csv = join(directory, "dnc.csv");
    assert.equal((await runCli(["generate", "dnc", "--rows", "20000", "--seed", "5", "--out", csv])).code, 0);
    const imported = await runCli(["import", "dnc", "--quiet", "--db", db, csv]);
    assert.equal(imported.code, 0, imported.stderr);
  });

  it("by default: the whole file, named with its size", async () => {
    const server = await startServeProcess(localServeFlags(db), 60_000, directory);
    try {
      const output = await outputShowing(server, WARMED, 10_000);
      const [, file, megabytes] = WARMED.exec(output) ?? [];
      assert.equal(file, db, output);
      const size = (await stat(db)).size + ((await stat(`${db}-wal`).catch(() => undefined))?.size ?? 0);
      assert.equal(megabytes, (size / 1024 / 1024).toFixed(1), output);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("not with --no-warm-file-cache", async () => {
    const server = await startServeProcess(localServeFlags(db, "--no-warm-file-cache"), 60_000, directory);
    try {
      const output = await outputShowing(server, /file cache:/, 1_500);
      assert.doesNotMatch(output, /file cache:/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
