import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { NOTICES as NOTICE_COLLECTION } from "../../src/domain/collections.js";
import { isBusinessDay, localDayNumber, zonedInstant } from "../../src/domain/publication-calendar.js";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { openDatabase } from "../../src/store/open-database.js";
import { cliEntry, REPO_ROOT, runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw } from "../support/https-client.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory, startTestServer } from "../support/test-server.js";

/** The source's key may make this many requests in any WINDOW_SECONDS: small, so the mirror meets 429. */
const LIMIT = 60;
const WINDOW_SECONDS = 5;
/** 3,000 complaints over 4 days: about 750 a day, so each day's window passes the offset cap (500) and is narrowed. */
const ROWS = 3000;
const DAYS = 4;
/** 400 notices: 8 pages of 50, so a kill can land between pages. */
const NOTICES = 400;

interface Snapshot {
  rows: unknown[];
  counts: unknown[];
  hourCounts: unknown[];
  /** Every notice (all columns: ids, attributes, revisions, update times), by id. */
  notices: Array<{ id: string; created_at: number | string; revision: number | string }>;
  /** Every value of the notices' list attributes (acquired entities, tags). */
  noticeValues: unknown[];
}

/** Every complaint (all columns), every daily count and every notice of a store, in a fixed order. */
async function snapshot(location: string): Promise<Snapshot> {
  const database = openDatabase(location);
  try {
    const notices = await database.db.selectFrom("notices").selectAll().orderBy("id").execute();
    const noticeValues = await database.db
      .selectFrom("notice_values")
      .selectAll()
      .orderBy("notice_id")
      .orderBy("field")
      .orderBy("position")
      .execute();
    const rows = await database.db.selectFrom("complaints").selectAll().orderBy("id").execute();
    const counts = await database.db
      .selectFrom("complaint_counts")
      .selectAll()
      .orderBy("dimension")
      .orderBy("value")
      .orderBy("day")
      .execute();
    const hourCounts = await database.db
      .selectFrom("complaint_hour_counts")
      .selectAll()
      .orderBy("dimension")
      .orderBy("value")
      .orderBy("hour")
      .execute();
    return { rows, counts, hourCounts, notices, noticeValues };
  } finally {
    await database.close();
  }
}

function rowsPerDay(snapshot: Snapshot): Map<number, number> {
  const days = new Map<number, number>();
  for (const row of snapshot.rows as Array<{ created_at: number }>) {
    const day = Math.floor(row.created_at / 86_400);
    days.set(day, (days.get(day) ?? 0) + 1);
  }
  return days;
}

function assertSameCopy(
  copy: Snapshot,
  source: Snapshot,
  collections: "all" | "dnc" | "notices" = "all",
): void {
  if (collections !== "notices") assertSameComplaints(copy, source);
  if (collections === "dnc") {
    assert.equal(copy.notices.length, 0, "--collection dnc copies no notices");
    return;
  }
  assert.equal(copy.notices.length, source.notices.length, "as many notices as the source");
  assert.deepEqual(copy.notices, source.notices, "same notice ids, attributes, revisions and update times");
  assert.deepEqual(copy.noticeValues, source.noticeValues, "same acquired entities and tags");
}

function assertSameComplaints(copy: Snapshot, source: Snapshot): void {
  assert.equal(copy.rows.length, source.rows.length, "as many complaints as the source");
  assert.deepEqual(copy.rows, source.rows, "same ids and attributes");
  assert.deepEqual(copy.counts, source.counts, "same daily counts, so the same totals for every filter");
  assert.deepEqual(copy.hourCounts, source.hourCounts, "same hourly counts");
}

/** Starts `ftcapi mirror <args>` as a process whose output the test watches. */
function spawnMirror(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
  waitFor: (pattern: RegExp) => Promise<void>;
} {
  const child = spawn(process.execPath, [...cliEntry(), "mirror", ...args], {
    cwd: REPO_ROOT,
  });
  let output = "";
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const onData = (chunk: Buffer) => {
    output += chunk;
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(output)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(output)) return resolve();
        waiters.push({ pattern, resolve });
        void exited.then(() => {
          if (!pattern.test(output)) reject(new Error(`mirror exited before ${pattern}:\n${output}`));
        });
      }),
  };
}

describe("ftcapi mirror from another ftcapi over HTTPS with a self-signed certificate", () => {
  let source: ServeProcess;
  let sourceDb: string;
  let sourceSnapshot: Snapshot;
  let key: string;
  let readerKey: string;
  let certFile: string;
  let noticesCsv: string;

  before(async () => {
    const directory = await makeTempDirectory();
    sourceDb = join(directory, "source.db");
    const csv = join(directory, "source.csv");
    noticesCsv = join(directory, "notices.csv");
    await writeComplaintCsv(
      { rows: ROWS, days: DAYS, seed: 11, endSeconds: Date.UTC(2024, 2, 1) / 1000 },
      csv,
    );
    await writeNoticeCsv({ rows: NOTICES, seed: 5 }, noticesCsv);
    await importFiles(sourceDb, { complaints: [csv], notices: [noticesCsv] });
    key = await createTestKey(sourceDb, { email: "mirror@example.com", limitPerHour: LIMIT });
    // The test's own reads of the source: the mirror's key is kept spent by holdLimit (below).
    readerKey = await createTestKey(sourceDb, { email: "reader@example.com" });
    source = await startServeProcess(
      localServeFlags(sourceDb, "--rate-limit-window-seconds", String(WINDOW_SECONDS)),
    );
    certFile = source.certPath!;
    sourceSnapshot = await snapshot(sourceDb);
    assert.equal(sourceSnapshot.rows.length, ROWS);
    assert.equal(sourceSnapshot.notices.length, NOTICES);
  });
  after(() => source?.stop());

  /**
   * Keeps the key's window used up (refused requests are not counted, so each freed slot is taken
   * again) until the mirror reports that it met a 429, or ends.
   */
  async function holdLimit(run: ReturnType<typeof spawnMirror>): Promise<void> {
    const ca = await readFile(certFile, "utf8");
    let ended = false;
    void run.exited.then(() => {
      ended = true;
    });
    while (!ended && !/upstream rate limit reached/.test(run.output())) {
      await fetchRaw(`${source.httpsUrl}/v0/status`, { headers: { "X-Api-Key": key }, ca });
      await sleep(20);
    }
  }

  /**
   * A plain-HTTP proxy in front of the source: `intercept` sees each request first and returns true
   * when it has dealt with it (answered, dropped or held); the others are forwarded, and `answered`
   * is told each one's status. `close` also ends the connections of held requests.
   */
  async function startProxy(
    ca: string,
    intercept: (req: IncomingMessage, res: ServerResponse) => boolean,
    answered: (req: IncomingMessage, status: number) => void = () => {},
  ): Promise<{ url: string; mirrorArgs: (db: string, ...more: string[]) => string[]; close: () => void }> {
    const target = new URL(source.httpsUrl);
    const proxy: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (intercept(req, res)) return;
      const forwarded = httpsRequest(
        { host: target.hostname, port: target.port, path: req.url, headers: req.headers, ca, method: "GET" },
        (answer) => {
          answered(req, answer.statusCode ?? 502);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on("error", () => res.destroy());
      forwarded.end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    return {
      url,
      mirrorArgs: (db, ...more) => ["--upstream", url, "--api-key", key, "--db", db, ...more],
      close: () => {
        proxy.close();
        proxy.closeAllConnections();
      },
    };
  }

  const mirrorArgs = (db: string, ...more: string[]) => [
    "--upstream",
    source.httpsUrl,
    "--api-key",
    key,
    "--ca",
    certFile,
    "--db",
    db,
    ...more,
  ];

  for (const dialect of DIALECTS) {
    it(`copies every complaint and notice into ${dialect} (--collection all), waiting out 429 as Retry-After asks; a second run adds nothing`, async () => {
      const db = await freshDatabase(dialect);
      const run = spawnMirror(mirrorArgs(db, "--collection", "all"));
      await holdLimit(run);
      const first = { code: await run.exited, stdout: run.output() };
      assert.equal(first.code, 0, first.stdout);
      assert.match(first.stdout, /upstream rate limit reached \(429\); waiting [1-5] s as Retry-After asks/);
      assert.match(
        first.stdout,
        new RegExp(`mirrored ${DAYS} day windows: ${ROWS} complaints fetched, ${ROWS} added`),
      );
      assert.match(first.stdout, /[1-9]\d* rate-limit waits/);
      // About 750 complaints a day: more than the 10 shallow pages, so each window was narrowed.
      assert.match(first.stdout, /^2024-02-26: 7\d\d complaints, 1[6-9] pages$/m);
      assert.match(
        first.stdout,
        new RegExp(`mirrored notices: \\d+ pages, \\d+ fetched, ${NOTICES} added, 0 changed`),
      );
      assertSameCopy(await snapshot(db), sourceSnapshot);
      // The copy answers as the source does: the same meta.count, the same first page.
      const path = "/v0/hsr-early-termination-notices?sort=-date&page[limit]=5";
      // Not with the mirror's key: the run (and holdLimit) left its 5-second window spent, so the
      // same key could be answered 429 here.
      const sourceAnswer = await fetchRaw(`${source.httpsUrl}${path}`, {
        headers: { "X-Api-Key": readerKey },
        ca: await readFile(certFile, "utf8"),
      });
      assert.equal(sourceAnswer.status, 200, sourceAnswer.body);
      assert.equal(sourceAnswer.json().meta.count, NOTICES);
      const copyKey = await createTestKey(db, { email: "copy@example.com" });
      const copy = await startTestServer({ db });
      try {
        const copyAnswer = await copy.get(path, { "X-Api-Key": copyKey });
        assert.equal(copyAnswer.json().meta.count, NOTICES);
        const withoutBase = (body: string, base: string) => JSON.parse(body.replaceAll(base, "BASE")).data;
        assert.deepEqual(
          withoutBase(copyAnswer.body, copy.httpsUrl),
          withoutBase(sourceAnswer.body, source.httpsUrl),
          "same records, links (but for the host) and revisions",
        );
      } finally {
        await copy.stop();
      }

      // The default is --collection all: a second run adds nothing to either collection.
      const again = await runCli(["mirror", ...mirrorArgs(db)]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /resuming after 2024-02-28, the last day copied for good/);
      assert.match(
        again.stdout,
        /mirrored 1 day windows: (\d+) complaints fetched, 0 added, \1 already present/,
      );
      assert.match(again.stdout, /notices: resuming at created \S+, the last one written/);
      assert.match(
        again.stdout,
        /mirrored notices: [1-3] pages, (\d+) fetched, 0 added, 0 changed, \1 already present/,
      );
      assertSameCopy(await snapshot(db), sourceSnapshot);
    });
  }

  for (const dialect of DIALECTS) {
    it(`killed with SIGKILL mid-way (${dialect}), the same command continues where it stopped, adding nothing twice`, async () => {
      const db = await freshDatabase(dialect);
      const run = spawnMirror(mirrorArgs(db));
      await run.waitFor(/^2024-02-26: \d+ complaints/m);
      run.child.kill("SIGKILL");
      await run.exited;
      const partial = await snapshot(db);
      assert.ok(
        partial.rows.length > 0 && partial.rows.length < ROWS,
        `${partial.rows.length} rows after the kill`,
      );
      const sourceDays = rowsPerDay(sourceSnapshot);
      for (const [day, count] of rowsPerDay(partial)) {
        assert.equal(count, sourceDays.get(day), `day ${day} is whole: no half window`);
      }

      const resumed = await runCli(["mirror", ...mirrorArgs(db)]);
      assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`);
      assert.match(resumed.stdout, /resuming after 2024-02-2\d, the last day copied for good/);
      assert.doesNotMatch(resumed.stdout, /^2024-02-26:/m, "days copied for good are not fetched again");
      assertSameCopy(await snapshot(db), sourceSnapshot);
    });
  }

  for (const dialect of DIALECTS) {
    it(`killed with SIGKILL among the notices (${dialect}), the next run keeps whole pages and continues at its cursor`, async () => {
      const db = await freshDatabase(dialect);
      // Both runs go through a proxy (the copy's cursor belongs to the upstream it names). During
      // the first, notice pages after the second are held unanswered, so the kill lands between
      // pages however fast the mirror runs.
      let holding = true;
      let noticePages = 0;
      // A walk's pages: 50 notices each (the run's first request asks for the newest one only).
      const isNoticeList = (req: IncomingMessage) =>
        req.url?.startsWith(`${NOTICE_COLLECTION.path}?`) === true &&
        decodeURIComponent(req.url).includes("page[limit]=50");
      const proxy = await startProxy(
        await readFile(certFile, "utf8"),
        (req) => holding && isNoticeList(req) && noticePages >= 2,
        (req, status) => {
          if (isNoticeList(req) && status === 200) noticePages++;
        },
      );
      try {
        const run = spawnMirror(proxy.mirrorArgs(db, "--collection", "all"));
        await run.waitFor(/^notices: page 2: /m);
        run.child.kill("SIGKILL");
        await run.exited;
        holding = false;
        const partial = await snapshot(db);
        assert.equal(partial.rows.length, ROWS, "the complaints were done before the notices began");
        const kept = partial.notices.length;
        assert.equal(kept, 100, "the two pages answered, whole");
        // The pages are the first ones in created order (ties by id): nothing half written.
        const inOrder = [...sourceSnapshot.notices].sort(
          (a, b) => Number(a.created_at) - Number(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
        );
        assert.deepEqual(
          partial.notices.map((notice) => notice.id).sort(),
          inOrder
            .slice(0, kept)
            .map((notice) => notice.id)
            .sort(),
        );

        const resumed = await runCli(["mirror", ...proxy.mirrorArgs(db, "--collection", "notices")]);
        assert.equal(resumed.code, 0, `${resumed.stdout}\n${resumed.stderr}`);
        assert.match(resumed.stdout, /notices: resuming at created \S+, the last one written/);
        assert.doesNotMatch(resumed.stdout, /day windows/, "--collection notices leaves complaints alone");
        const added = Number(
          /mirrored notices: \d+ pages, \d+ fetched, (\d+) added/.exec(resumed.stdout)?.[1],
        );
        assert.equal(added, NOTICES - kept, "nothing added twice");
      } finally {
        proxy.close();
      }
      assertSameCopy(await snapshot(db), sourceSnapshot);
    });
  }

  it("retries 5xx answers and dropped connections with backoff", async () => {
    const ca = await readFile(certFile, "utf8");
    let seen = 0;
    const failing = new Set([3, 9, 10, 25]);
    const dropped = new Set([17]);
    // A plain-HTTP proxy in front of the source that fails some requests.
    const proxy = await startProxy(ca, (req, res) => {
      seen++;
      if (failing.has(seen)) {
        res
          .writeHead(503, { "Content-Type": "application/json" })
          .end('{"error":{"code":"SERVICE_UNAVAILABLE"}}');
        return true;
      }
      if (dropped.has(seen)) {
        req.socket.destroy();
        return true;
      }
      return false;
    });
    try {
      const db = await freshDatabase("sqlite");
      const run = await runCli(["mirror", ...proxy.mirrorArgs(db, "--retries", "3")]);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /status 503; retry 1 in/);
      assert.match(run.stdout, /status 503; retry 2 in/, "two failures in a row back off twice");
      assert.match(run.stdout, /ECONNRESET; retry 1 in/);
      assert.match(run.stdout, /, 5 retries, /);
      assertSameCopy(await snapshot(db), sourceSnapshot);
    } finally {
      proxy.close();
    }
  });

  it("--follow mirrors, schedules the next run after the next publication, and stops cleanly on SIGTERM", async () => {
    const db = await freshDatabase("sqlite");
    const run = spawnMirror(
      mirrorArgs(db, "--collection", "dnc", "--follow", "--follow-margin-minutes", "20"),
    );
    await run.waitFor(/next mirror at \S+/);
    run.child.kill("SIGTERM");
    assert.equal(await run.exited, 0, run.output());
    assert.match(run.output(), /SIGTERM: stopping/);
    const next = Date.parse(/next mirror at (\S+)/.exec(run.output())![1]!);
    const day = localDayNumber(next, "America/New_York");
    assert.ok(isBusinessDay(day), "on a business day");
    assert.equal(
      next,
      zonedInstant(day, 12, "America/New_York") + 20 * 60_000,
      "20 minutes after noon in New York",
    );
    assert.ok(next > Date.now());
    assertSameCopy(await snapshot(db), sourceSnapshot, "dnc");
  });

  it("refuses what it cannot do with a clear message", async () => {
    const db = await freshDatabase("sqlite");
    const unknown = await runCli(["mirror", ...mirrorArgs(db, "--collection", "complaints")]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /--collection must be dnc, notices or all; got 'complaints'/);

    const wrongKey = await runCli([
      "mirror",
      ...mirrorArgs(db).map((arg) => (arg === key ? "not-a-key" : arg)),
    ]);
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, /answered 403: API_KEY_INVALID/);

    const untrusted = await runCli(["mirror", "--upstream", source.httpsUrl, "--api-key", key, "--db", db]);
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /self-signed certificate|unable to verify/i);
  });

  // Last: it changes the source, which the tests above compare against.
  it("picks up notices changed upstream after they were copied: new content, revision and update time", async () => {
    const db = await freshDatabase("sqlite");
    const first = await runCli(["mirror", ...mirrorArgs(db, "--collection", "notices")]);
    assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
    assertSameCopy(await snapshot(db), sourceSnapshot, "notices");

    // Two old notices corrected at the source: an import gives them revision 2 and a new update time.
    const [header, ...rows] = parse(await readFile(noticesCsv, "utf8")) as string[][];
    const corrected = rows.slice(0, 2).map((row) => [row[0]!, `${row[1]} (corrected)`, ...row.slice(2)]);
    const changes = join(await makeTempDirectory(), "changes.csv");
    await writeFile(changes, stringify([header!, ...corrected]));
    const reimported = await runCli(["import", "notices", "--db", sourceDb, changes]);
    assert.equal(reimported.code, 0, reimported.stderr);
    assert.match(reimported.stdout, /0 added, 2 changed/);
    const changedSource = await snapshot(sourceDb);
    assert.equal(changedSource.notices.filter((notice) => Number(notice.revision) === 2).length, 2);

    const again = await runCli(["mirror", ...mirrorArgs(db, "--collection", "notices")]);
    assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
    assert.match(again.stdout, /mirrored notices: \d+ pages, \d+ fetched, 0 added, 2 changed/);
    assertSameCopy(await snapshot(db), changedSource, "notices");
  });
});
