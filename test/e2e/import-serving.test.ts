import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import { cliEntry, createKeyWithCli, REPO_ROOT, runCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { fetchRaw, type TestResponse } from "../support/https-client.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

/** Rows in the extract: enough that its one transaction stays open for many seconds. */
const ROWS = 300_000;
const LIMIT = 500;
/** Keyed requests to send while the import's transaction is open, of which some by the second server. */
const REQUESTS = 30;
const SECOND_REQUESTS = 6;
const MAX_REQUESTS = 200;
/** The most hits a server leases at once: another server's X-RateLimit-Remaining is low by at most that. */
const MAX_LEASE = 64;
/** A generous bound: a counted request that waited for the import would take the busy timeout (10 s). */
const SLOW_MILLIS = 3000;

// SQLite only: there an import holds the database file's write lock for a whole extract, and the
// counters every keyed request writes must not wait for it. PostgreSQL locks rows, not the database.
describe("keyed requests during a long SQLite import", () => {
  let directory: string;
  let db: string;
  let extract: string;
  let key: string;
  let server: ServeProcess;
  let ca: string;

  before(async () => {
    directory = await makeTempDirectory();
    db = join(directory, "ftcapi.db");
    extract = join(directory, "DNC_Complaint_Numbers_2024-03-01.csv");
    const generated = await runCli([
      "generate",
      "dnc",
      "--rows",
      String(ROWS),
      "--days",
      "30",
      "--end",
      "2024-03-01",
      "--seed",
      "41",
      "--out",
      extract,
    ]);
    assert.equal(generated.code, 0, generated.stderr);
    key = await createKeyWithCli(db, "reader@example.com", "--limit-per-hour", String(LIMIT));
    server = await startServeProcess(serveFlags());
    ca = await readFile(server.certPath!, "utf8");
  });
  after(() => server?.stop());

  const serveFlags = () => localServeFlags(db);
  const complaints = (target = server): Promise<TestResponse> =>
    fetchRaw(`${target.httpsUrl}/v0/dnc-complaints?items_per_page=1`, { headers: { "X-Api-Key": key }, ca });

  it("answers every keyed request at once, in a server started before the import and one started during it, counting exactly", async (t) => {
    // Whether some process holds the main file's write lock: a second writer is refused at once.
    const probe = new BetterSqlite3(db, { timeout: 0 });
    const writeLockHeld = (): boolean => {
      try {
        probe.exec("begin immediate");
        probe.exec("rollback");
        return false;
      } catch (err) {
        if ((err as { code?: string }).code === "SQLITE_BUSY") return true;
        throw err;
      }
    };

    const first = await complaints();
    assert.equal(first.status, 200, first.body);
    assert.equal(first.headers["x-ratelimit-remaining"], String(LIMIT - 1));

    const importer = spawn(process.execPath, [...cliEntry(), "import", "dnc", "--db", db, extract], {
      cwd: REPO_ROOT,
    });
    let output = "";
    importer.stdout.on("data", (chunk) => {
      output += chunk;
    });
    importer.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const exitCode = new Promise<number | null>((resolve) => importer.on("exit", (code) => resolve(code)));
    let running = true;
    void exitCode.then(() => {
      running = false;
    });

    let second: ServeProcess | undefined;
    let secondStart: Promise<ServeProcess> | undefined;
    try {
      while (running && !writeLockHeld()) await sleep(20);
      assert.ok(running, `the import ended before its transaction was seen open:\n${output}`);
      // A server (or a restarted worker) starting now must not wait for the import either.
      const secondStarted = performance.now();
      secondStart = startServeProcess(serveFlags(), 60_000);
      void secondStart.then(
        (started) => {
          second = started;
          t.diagnostic(`second server up in ${Math.round(performance.now() - secondStarted)} ms`);
        },
        () => {},
      );

      // Each answer counts as inside the transaction when the lock was held before and after it
      // and the answer does not see the file's rows yet (they appear only at commit).
      const answers: { status: number; remaining: number; millis: number; total: number; second: boolean }[] =
        [];
      const enough = () =>
        answers.length >= REQUESTS && answers.filter((answer) => answer.second).length >= SECOND_REQUESTS;
      while (!enough() && answers.length < MAX_REQUESTS && writeLockHeld()) {
        // Once the second server is up, requests alternate between the two processes.
        const target = second && answers.length % 2 === 1 ? second : server;
        const started = performance.now();
        const res = await complaints(target);
        const millis = performance.now() - started;
        if (!writeLockHeld()) break;
        assert.equal(res.status, 200, `a keyed request during the import: ${res.status} ${res.body}`);
        answers.push({
          status: res.status,
          remaining: Number(res.headers["x-ratelimit-remaining"]),
          millis,
          total: res.json().meta["record-total"],
          second: target !== server,
        });
        await sleep(100);
      }
      const fromSecond = answers.filter((answer) => answer.second).length;
      t.diagnostic(
        `${answers.length} keyed requests inside the import's transaction (${fromSecond} by the server started during it); slowest ${Math.round(Math.max(...answers.map((answer) => answer.millis)))} ms`,
      );
      assert.ok(
        answers.length >= 10,
        `only ${answers.length} requests fitted in the transaction:\n${output}`,
      );
      assert.ok(
        fromSecond >= 3,
        `the server started during the import answered ${fromSecond} requests in it`,
      );
      const firstOfSecond = answers.findIndex((answer) => answer.second);
      answers.forEach((answer, index) => {
        assert.equal(answer.total, 0, "the answer saw rows of the uncommitted file");
        assert.ok(answer.millis < SLOW_MILLIS, `request ${index} took ${Math.round(answer.millis)} ms`);
        const exact = LIMIT - 2 - index;
        if (index < firstOfSecond) {
          assert.equal(answer.remaining, exact, `X-RateLimit-Remaining of request ${index}`);
        } else {
          // Each server counts the hits the other leased and has not used yet (low), and does not
          // see the hits the other used since it last read the counters (high): one lease either way.
          assert.ok(
            Math.abs(answer.remaining - exact) <= MAX_LEASE,
            `X-RateLimit-Remaining of request ${index}: ${answer.remaining}, exactly ${exact}`,
          );
        }
      });

      assert.equal(await exitCode, 0, output);
      // Stopping hands the second server's unused hits back: the first one's figure is exact again.
      await second?.stop();
      assert.match(output, new RegExp(`${ROWS} rows, ${ROWS} added`));
      // The first server sees the second's used hits when it next reads the counters (its lease is
      // renewed at least every half second), so its figure is exact again within a few requests.
      let afterImport = await complaints();
      let polls = 1;
      const exactAfter = () => String(LIMIT - 1 - answers.length - polls);
      while (afterImport.headers["x-ratelimit-remaining"] !== exactAfter() && polls < 20) {
        await sleep(250);
        afterImport = await complaints();
        polls++;
      }
      assert.equal(afterImport.status, 200);
      assert.equal(afterImport.json().meta["record-total"], ROWS);
      assert.equal(afterImport.headers["x-ratelimit-remaining"], exactAfter());

      // The counts are in the counter file beside the database, and the key commands read them there.
      assert.ok((await stat(`${db}-counters`)).size > 0);
      const counted = answers.length + 1 + polls;
      // Usage is written in batches, at least every second.
      await eventually(async () => {
        const usage = await runCli(["keys", "usage", key.slice(0, 6), "--db", db]);
        assert.equal(usage.code, 0, usage.stderr);
        assert.match(usage.stdout, new RegExp(`^${counted} requests by ${key.slice(0, 6)}\\.\\.\\.`, "m"));
      });
      const list = await runCli(["keys", "list", "--db", db]);
      assert.equal(list.code, 0, list.stderr);
      const row = list.stdout.split("\n").find((line) => line.startsWith(key.slice(0, 6)));
      assert.ok(row && !/\bnever\b/.test(row), `keys list shows the key as never used:\n${list.stdout}`);
    } finally {
      if (running) importer.kill("SIGKILL");
      probe.close();
      const started = await secondStart?.catch(() => undefined);
      await started?.stop();
    }
  });
});
