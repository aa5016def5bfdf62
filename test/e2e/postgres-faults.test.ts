import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { loadOrCreateCertificate } from "../../src/http/tls-certificate.js";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { type Cluster, startThrowawayCluster } from "../support/postgres.js";
import { type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  elapsedMs: number;
}

function get(url: string, agent: Agent, key: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { "X-Api-Key": key } }, (res) => {
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
    req.on("error", reject);
    req.end();
  });
}

describe("PostgreSQL faults (a cluster of this test's own)", () => {
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

  it("SIGTERM lets every request in flight finish, then exits 0", async () => {
    const server = await serve();
    const agent = new Agent({ keepAlive: false, maxSockets: 40, ca });
    const url = `${server.httpsUrl}/v0/dnc-complaints?items_per_page=50&state=California`;
    const answers: Answer[] = [];
    const failures: string[] = [];
    const finishedAt: number[] = [];
    const inFlight = Array.from({ length: 40 }, () =>
      get(url, agent, key).then(
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
