import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { DEFAULT_STATEMENT_TIMEOUT_MS } from "../../src/config.js";
import { loadOrCreateCertificate } from "../../src/http/tls-certificate.js";
import { POSTGRES_REPLY_MARGIN_MS } from "../../src/store/database.js";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { unlessDialect } from "../support/dialects.js";
import { type Cluster, startThrowawayCluster } from "../support/postgres.js";
import { type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  elapsedMs: number;
}

/** GET with the key; rejects when no answer has come within `timeoutMs` (a hung server fails, not hangs, a test). */
function get(url: string, agent: Agent, key: string, timeoutMs = 60_000): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { "X-Api-Key": key }, timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("aborted", () => reject(new Error("response cut short")));
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          body,
          headers: res.headers,
          elapsedMs: performance.now() - started,
        }),
      );
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms: ${url}`)));
    req.on("error", reject);
    req.end();
  });
}

/**
 * Freezes the cluster as a hung host or a stalled disk would: SIGSTOP on the postmaster (first, so
 * that it forks nothing more), then on every process it started (backends, checkpointer, ...). The
 * kernel still accepts TCP connections and buffers queries, but nothing answers. Returns the pids
 * to pass to `thaw`.
 */
function freeze(cluster: Cluster): number[] {
  const postmaster = Number(
    readFileSync(join(cluster.directory, "data", "postmaster.pid"), "utf8").split("\n")[0],
  );
  process.kill(postmaster, "SIGSTOP");
  const children = execFileSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map(Number);
  for (const pid of children) process.kill(pid, "SIGSTOP");
  return [postmaster, ...children];
}

function thaw(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // gone already
    }
  }
}

/**
 * What a request needing a hung database may take at most: `serve`'s default statement budget
 * (`--statement-timeout-ms`, 2 s) plus the second the client waits past it for the server's own
 * cancel (3 s, docs/deployment.md), doubled for a loaded test machine.
 */
const HUNG_ANSWER_BOUND_MS = 2 * (DEFAULT_STATEMENT_TIMEOUT_MS + POSTGRES_REPLY_MARGIN_MS);

describe("PostgreSQL faults (a cluster of this test's own)", { skip: unlessDialect("postgres") }, () => {
  let cluster: Cluster;
  let db: string;
  let key: string;
  let tlsFlags: string[];
  let ca: string;

  before(async () => {
    cluster = await startThrowawayCluster();
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query("create database faults");
    await admin.end();
    db = cluster.url.replace(/\/postgres$/, "/faults");
    const directory = await makeTempDirectory();
    const csv = join(directory, "dnc.csv");
    assert.equal((await runCli(["generate", "dnc", "--rows", "2000", "--out", csv])).code, 0);
    assert.equal((await runCli(["import", "dnc", "--db", db, csv])).code, 0);
    key = await createKeyWithCli(db);
    const tls = await loadOrCreateCertificate(directory);
    tlsFlags = ["--tls-cert", tls.certPath, "--tls-key", tls.keyPath];
    ca = await readFile(tls.certPath, "utf8");
  });
  after(() => cluster?.stop());

  const serve = () =>
    startServeProcess([
      "--db",
      db,
      "--port",
      "0",
      "--http-port",
      "0",
      "--host",
      "127.0.0.1",
      "--log-level",
      "fatal",
      ...tlsFlags,
    ]);

  it("a stopped database gives 503 with a JSON body and Retry-After within a second, and service resumes by itself", async () => {
    const server: ServeProcess = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 10, ca });
    try {
      const list = `${server.httpsUrl}/v0/dnc-complaints?items_per_page=5`;
      assert.equal((await get(list, agent, key)).status, 200);
      const readyUrl = `${server.httpsUrl}/health/ready`;
      assert.equal((await get(readyUrl, agent, key)).status, 200);

      cluster.pause();
      // Pages not asked for before: an answer already kept in the answer cache can still be served
      // while the key's check is kept (two seconds), but anything that needs the database gets 503.
      const during: Answer[] = [];
      for (let index = 0; index < 20; index++) {
        during.push(
          ...(await Promise.all(
            Array.from({ length: 5 }, (_, part) => get(`${list}&offset=${index * 5 + part + 1}`, agent, key)),
          )),
        );
      }
      for (const answer of during) {
        assert.equal(answer.status, 503, answer.body);
        assert.ok(answer.elapsedMs < 1000, `answered in ${answer.elapsedMs} ms`);
        assert.equal(answer.headers["retry-after"], "1");
        assert.deepEqual(Object.keys(JSON.parse(answer.body)), ["error"]);
        assert.equal(JSON.parse(answer.body).error.code, "SERVICE_UNAVAILABLE");
      }
      const notReady = await get(readyUrl, agent, key);
      assert.equal(notReady.status, 503);
      assert.deepEqual(JSON.parse(notReady.body), { status: "not ready" });
      assert.equal((await get(`${server.httpsUrl}/health/live`, agent, key)).status, 200);

      cluster.resume();
      let recovered: Answer | undefined;
      for (let attempt = 0; attempt < 50; attempt++) {
        recovered = await get(list, agent, key);
        if (recovered.status === 200) break;
        await sleep(200);
      }
      assert.equal(recovered?.status, 200, "service resumes without a restart");
      assert.equal((await get(readyUrl, agent, key)).status, 200);
    } finally {
      agent.destroy();
      assert.equal(await server.stop(), 0);
    }
  });

  it("a frozen database (SIGSTOP) gives 503 with Retry-After within the query budget, live stays up, and service resumes on SIGCONT", async () => {
    const server: ServeProcess = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 20, ca });
    const list = `${server.httpsUrl}/v0/dnc-complaints?items_per_page=5`;
    const readyUrl = `${server.httpsUrl}/health/ready`;
    try {
      // Several requests at once, so that the pool holds several open connections when the
      // database freezes: their queries are the ones nothing will ever answer.
      const warm = await Promise.all(
        Array.from({ length: 8 }, (_, index) => get(`${list}&state=Ohio&offset=${index}`, agent, key)),
      );
      for (const answer of warm) assert.equal(answer.status, 200, answer.body);
      assert.equal((await get(readyUrl, agent, key)).status, 200);

      const frozen = freeze(cluster);
      try {
        // Two waves of pages not asked for before (the answer cache cannot serve them): the first
        // meets the pool's open connections, whose queries time out and which are then dropped;
        // the second needs new connections, which a frozen server never completes.
        for (const wave of [1, 2]) {
          const requests = Array.from({ length: 6 }, (_, index) =>
            get(`${list}&offset=${100 * wave + index}`, agent, key, 4 * HUNG_ANSWER_BOUND_MS),
          );
          // The process itself keeps answering while its database queries wait.
          const live = await get(`${server.httpsUrl}/health/live`, agent, key, 5000);
          assert.equal(live.status, 200);
          assert.ok(live.elapsedMs < 1000, `live answered in ${live.elapsedMs} ms`);
          const answers = await Promise.all(requests);
          process.stdout.write(
            `# frozen database, wave ${wave}: answered in ${answers.map((answer) => Math.round(answer.elapsedMs)).join(", ")} ms\n`,
          );
          for (const answer of answers) {
            assert.equal(answer.status, 503, answer.body);
            assert.ok(
              answer.elapsedMs < HUNG_ANSWER_BOUND_MS,
              `answered in ${answer.elapsedMs} ms; bound ${HUNG_ANSWER_BOUND_MS}`,
            );
            assert.equal(answer.headers["retry-after"], "1");
            assert.deepEqual(Object.keys(JSON.parse(answer.body)), ["error"]);
            assert.equal(JSON.parse(answer.body).error.code, "SERVICE_UNAVAILABLE");
          }
        }
        const notReady = await get(readyUrl, agent, key, 5000);
        assert.equal(notReady.status, 503);
        assert.equal(notReady.headers["retry-after"], "1");
      } finally {
        thaw(frozen);
      }

      const thawedAt = performance.now();
      let recovered: Answer | undefined;
      for (let attempt = 0; attempt < 50; attempt++) {
        recovered = await get(list, agent, key, 10_000);
        if (recovered.status === 200) break;
        await sleep(200);
      }
      assert.equal(recovered?.status, 200, "service resumes without a restart");
      const recoveryMs = performance.now() - thawedAt;
      process.stdout.write(`# frozen database: 200 again ${Math.round(recoveryMs)} ms after SIGCONT\n`);
      assert.ok(recoveryMs < 10_000, `recovered in ${recoveryMs} ms`);
      assert.equal((await get(readyUrl, agent, key)).status, 200);
      // Every connection that was stuck was dropped, not handed out again: a burst of new pages
      // all succeeds.
      const after = await Promise.all(
        Array.from({ length: 12 }, (_, index) => get(`${list}&offset=${300 + index}`, agent, key)),
      );
      for (const answer of after) assert.equal(answer.status, 200, answer.body);
    } finally {
      agent.destroy();
      assert.equal(await server.stop(), 0);
    }
  });

  it("a statement past the budget (a query waiting on a lock) is cancelled by the server: 503 with Retry-After, then 200 again", async () => {
    const server: ServeProcess = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 10, ca });
    const list = `${server.httpsUrl}/v0/dnc-complaints?items_per_page=5`;
    const admin = new pg.Client({ connectionString: db });
    await admin.connect();
    try {
      assert.equal((await get(list, agent, key)).status, 200);
      // A slow database as a long migration or a stuck writer makes it: the page's query waits
      // for a lock the budget does not wait out. Key checks and counters need no lock on complaints.
      await admin.query("begin");
      await admin.query("lock table complaints in access exclusive mode");
      let answers: Answer[];
      try {
        answers = await Promise.all(
          Array.from({ length: 3 }, (_, index) =>
            get(`${list}&offset=${500 + index}`, agent, key, 4 * HUNG_ANSWER_BOUND_MS),
          ),
        );
      } finally {
        await admin.query("rollback");
      }
      process.stdout.write(
        `# locked table: answered in ${answers.map((answer) => Math.round(answer.elapsedMs)).join(", ")} ms\n`,
      );
      for (const answer of answers) {
        assert.equal(answer.status, 503, answer.body);
        assert.equal(answer.headers["retry-after"], "1");
        assert.equal(JSON.parse(answer.body).error.code, "SERVICE_UNAVAILABLE");
        // Cancelled by the server at the budget, not given up on by the client a second later.
        assert.ok(
          answer.elapsedMs >= DEFAULT_STATEMENT_TIMEOUT_MS - 100,
          `answered in ${answer.elapsedMs} ms`,
        );
        assert.ok(
          answer.elapsedMs < DEFAULT_STATEMENT_TIMEOUT_MS + POSTGRES_REPLY_MARGIN_MS,
          `answered in ${answer.elapsedMs} ms`,
        );
      }
      assert.equal((await get(`${list}&offset=600`, agent, key)).status, 200);
    } finally {
      await admin.end();
      agent.destroy();
      assert.equal(await server.stop(), 0);
    }
  });

  it("SIGTERM lets every request in flight finish, then exits 0", async () => {
    const server = await serve();
    const agent = new Agent({ keepAlive: false, maxSockets: 40, ca });
    // Forty different pages: the same page repeated is answered from memory from its second
    // request on, and all forty could be done before the signal is sent.
    const url = (index: number) =>
      `${server.httpsUrl}/v0/dnc-complaints?items_per_page=50&state=California&offset=${index}`;
    const answers: Answer[] = [];
    const failures: string[] = [];
    const finishedAt: number[] = [];
    const inFlight = Array.from({ length: 40 }, (_, index) =>
      get(url(index), agent, key).then(
        (answer) => {
          answers.push(answer);
          finishedAt.push(performance.now());
        },
        (err: Error & { code?: string }) => {
          failures.push(err.code ?? err.message);
        },
      ),
    );
    while (answers.length < 2) await sleep(1);
    const stoppedAt = performance.now();
    const exit = server.stop();
    await Promise.all(inFlight);
    assert.equal(await exit, 0);
    assert.ok(
      finishedAt.some((at) => at > stoppedAt),
      "some requests were still in flight at SIGTERM and were answered",
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.body);
    // Requests the server never accepted are refused at connect; none is cut short.
    for (const failure of failures) assert.match(failure, /ECONNREFUSED|ECONNRESET/);
    assert.ok(!failures.includes("response cut short"));
  });
});
