import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DEMO_KEY } from "../../src/access/api-keys.js";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import { parseMetrics, sampleValue } from "../support/parse-metrics.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

/** An answer as it came over the socket: its headers in order, as sent. */
interface RawAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Headers whose values differ from one request to the next by design. */
const PER_REQUEST = new Set(["date", "x-ratelimit-remaining", "x-ratelimit-reset"]);

/** The answer without the values that change per request: what two answers to one request share. */
function comparable(answer: RawAnswer) {
  return {
    status: answer.status,
    headers: answer.headers.map(([name, value]) => (PER_REQUEST.has(name) ? [name] : [name, value])),
    body: answer.body,
  };
}

function header(answer: RawAnswer, name: string): string | undefined {
  return answer.headers.find(([key]) => key === name)?.[1];
}

/**
 * The repeated-request lane (`KeptAnswerLane`) in a real `serve` process: the answers it gives are
 * the framework's, byte for byte but the per-request headers, and the gateway holds on it (HTTPS,
 * key missing, invalid and disabled, DEMO_KEY, the limit), and a new version of the data is never
 * answered from an older one. `ftcapi_kept_answers_total` shows which requests it answered.
 */
for (const dialect of DIALECTS) {
  describe(`the kept-answer lane (${dialect})`, () => {
    let server: ServeProcess;
    let ca: string;
    let db: string;
    let directory: string;
    let key: string;

    async function get(
      path: string,
      headers: Record<string, string> = {},
      plain = false,
      method = "GET",
    ): Promise<RawAnswer> {
      const base = plain ? server.httpUrl : server.httpsUrl;
      const target = new URL(`${base.replace("localhost", "127.0.0.1")}${path}`);
      const send = plain ? httpRequest : httpsRequest;
      return new Promise((resolve, reject) => {
        const req = send(target, { method, headers, ca, agent: false }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () => {
            const pairs: Array<[string, string]> = [];
            for (let index = 0; index < res.rawHeaders.length; index += 2)
              pairs.push([res.rawHeaders[index]!.toLowerCase(), res.rawHeaders[index + 1]!]);
            resolve({ status: res.statusCode ?? 0, headers: pairs, body });
          });
        });
        req.on("error", reject);
        req.end();
      });
    }

    /** Imports `rows` generated complaints (or notices) of `seed` into the database served. */
    async function importGenerated(rows: number, seed: number, collection = "dnc"): Promise<void> {
      const csv = join(directory, `${collection}-${seed}.csv`);
      for (const command of [
        ["generate", collection, "--rows", String(rows), "--seed", String(seed), "--out", csv],
        ["import", collection, "--quiet", "--db", db, csv],
      ]) {
        const result = await runCli(command);
        assert.equal(result.code, 0, result.stderr);
      }
    }

    async function keptAnswers(): Promise<number> {
      const res = await fetch(server.metricsUrl!);
      return sampleValue(parseMetrics(await res.text()), "ftcapi_kept_answers_total", {}) ?? 0;
    }

    /**
     * `path` answered by the lane: asked until the lane answers it (a request that finds the key's
     * lease in this process used up takes the framework's path while the lease is renewed).
     */
    async function fromLane(path: string, headers: Record<string, string>): Promise<RawAnswer> {
      for (let attempt = 0; attempt < 4; attempt++) {
        const before = await keptAnswers();
        const answer = await get(path, headers);
        if ((await keptAnswers()) === before + 1) return answer;
      }
      assert.fail(`${path}: the lane did not answer`);
    }

    before(async () => {
      directory = await makeTempDirectory();
      db = dialect === "sqlite" ? join(directory, "ftcapi.db") : await freshDatabase(dialect);
      await importGenerated(300, 3);
      await importGenerated(30, 5, "notices");
      key = await createKeyWithCli(db, "lane@example.com");
      server = await startServeProcess(localServeFlags(db, "--metrics-port", "0"));
      ca = await readFile(server.certPath!, "utf8");
    });

    after(async () => {
      await server?.stop();
    });

    it("answers a repeated request as the framework did, 200 and 304 alike", async () => {
      const first = await get("/v0/dnc-complaints?items_per_page=3", { "X-Api-Key": key });
      assert.equal(first.status, 200, first.body);
      const id = (JSON.parse(first.body) as { data: Array<{ id: string }> }).data[0]!.id;
      for (const path of [
        "/v0/dnc-complaints?items_per_page=3&offset=7",
        "/v0/dnc-complaints?is_robocall=true&sort_order=ASC",
        `/v0/dnc-complaints/${id}`,
        "/v0/dnc-complaints/counts?by=state",
        "/v0/hsr-early-termination-notices?page[limit]=2",
      ]) {
        const before = await keptAnswers();
        // The first two asks take the framework's path (an answer is kept from its second ask).
        const framework = await get(path, { "X-Api-Key": key });
        assert.equal(framework.status, 200, `${path}: ${framework.body}`);
        const etag = header(framework, "etag")!;
        const frameworkNotModified = await get(path, { "X-Api-Key": key, "If-None-Match": etag });
        assert.equal(frameworkNotModified.status, 304);
        assert.equal(await keptAnswers(), before, `${path}: no kept answer before the second ask`);
        const laneNotModified = await fromLane(path, { "X-Api-Key": key, "If-None-Match": etag });
        const lane = await fromLane(path, { "X-Api-Key": key });
        assert.deepEqual(comparable(lane), comparable(framework), path);
        assert.deepEqual(comparable(laneNotModified), comparable(frameworkNotModified), path);
        assert.ok(
          Number(header(lane, "x-ratelimit-remaining")) < Number(header(framework, "x-ratelimit-remaining")),
          `${path}: the lane's answers are counted against the key`,
        );
      }
    });

    it("answers a repeated notice record as the framework did: no ETag, If-None-Match ignored", async () => {
      const list = await get("/v0/hsr-early-termination-notices?page[limit]=1", { "X-Api-Key": key });
      assert.equal(list.status, 200, list.body);
      const id = (JSON.parse(list.body) as { data: Array<{ id: string }> }).data[0]!.id;
      const path = `/v0/hsr-early-termination-notices/${id}`;
      const before = await keptAnswers();
      const framework = await get(path, { "X-Api-Key": key });
      assert.equal(framework.status, 200, framework.body);
      assert.equal(header(framework, "etag"), undefined, "a notice record carries no ETag (spec 4.2)");
      const frameworkConditional = await get(path, { "X-Api-Key": key, "If-None-Match": "*" });
      assert.equal(frameworkConditional.status, 200);
      assert.equal(await keptAnswers(), before, "no kept answer before the second ask");
      const lane = await fromLane(path, { "X-Api-Key": key });
      const laneConditional = await fromLane(path, { "X-Api-Key": key, "If-None-Match": "*" });
      assert.deepEqual(comparable(lane), comparable(framework));
      assert.deepEqual(comparable(laneConditional), comparable(frameworkConditional));
    });

    it("keeps the gateway: HTTPS, the key missing, invalid or disabled, DEMO_KEY, HEAD", async () => {
      const path = "/v0/dnc-complaints?state=Ohio";
      for (let ask = 0; ask < 3; ask++) assert.equal((await get(path, { "X-Api-Key": key })).status, 200);
      const before = await keptAnswers();
      assert.equal((await get(path, { "X-Api-Key": key })).status, 200);
      assert.equal(await keptAnswers(), before + 1);

      // This server trusts no proxy: its X-Forwarded-Proto says nothing.
      const variants: Array<Record<string, string>> = [
        { "X-Api-Key": key },
        { "X-Api-Key": key, "X-Forwarded-Proto": "https" },
      ];
      for (const headers of variants) {
        const plain = await get(path, headers, true);
        assert.equal(plain.status, 400);
        assert.match(plain.body, /HTTPS_REQUIRED/);
      }
      assert.match((await get(path)).body, /API_KEY_MISSING/);
      // Its last character changed (a key may end in "x" already).
      const wrong = `${key.slice(0, -1)}${key.endsWith("x") ? "y" : "x"}`;
      assert.match((await get(path, { "X-Api-Key": wrong })).body, /API_KEY_INVALID/);
      assert.equal((await get(path, { "X-Api-Key": DEMO_KEY })).status, 200);
      assert.equal((await get(path, { "X-Api-Key": key }, false, "HEAD")).status, 200);
      assert.equal(await keptAnswers(), before + 1, "none of these was answered by the lane");

      const disabled = await runCli(["keys", "disable", key.slice(0, 6), "--db", db]);
      assert.equal(disabled.code, 0, disabled.stderr);
      await eventually(async () => {
        assert.match((await get(path, { "X-Api-Key": key })).body, /API_KEY_DISABLED/);
      });
      const enabled = await runCli(["keys", "enable", key.slice(0, 6), "--db", db]);
      assert.equal(enabled.code, 0, enabled.stderr);
    });

    it("counts every answer against the key's limit", async () => {
      const limited = await createKeyWithCli(db, "limited@example.com", "--limit-per-hour", "6");
      const path = "/v0/dnc-complaints?items_per_page=2";
      const statuses: number[] = [];
      for (let ask = 0; ask < 10; ask++) statuses.push((await get(path, { "X-Api-Key": limited })).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    });

    it("never answers from an older version of the data", async () => {
      const path = "/v0/dnc-complaints?items_per_page=1";
      const fresh = await createKeyWithCli(db, "fresh@example.com");
      for (let ask = 0; ask < 3; ask++) await get(path, { "X-Api-Key": fresh });
      const kept = await keptAnswers();
      const before = JSON.parse((await get(path, { "X-Api-Key": fresh })).body).meta["record-total"];
      assert.equal(await keptAnswers(), kept + 1);
      await importGenerated(40, 4);
      // Within the documented bound: at once on SQLite, within a second on PostgreSQL.
      await eventually(async () => {
        const total = JSON.parse((await get(path, { "X-Api-Key": fresh })).body).meta["record-total"];
        assert.equal(total, before + 40);
      });
    });
  });
}
