import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { loadOrCreateCertificate } from "../../src/http/tls-certificate.js";
import { createKeyWithCli, REPO_ROOT, runCli } from "../support/cli.js";
import { freshDatabase, unlessDialect } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import { fetchRaw } from "../support/https-client.js";
import { type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const NGINX = "/usr/sbin/nginx";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("nginx in front of two ftcapi replicas on PostgreSQL (docs/nginx/ftcapi.conf)", {
  skip: unlessDialect("postgres"),
}, () => {
  const available = spawnSync(NGINX, ["-v"]).status === 0;
  let nginx: ChildProcess | undefined;
  const replicas: ServeProcess[] = [];
  let httpsUrl: string;
  let httpUrl: string;
  let ca: string;
  let key: string;
  let accessLog: string;

  before(async () => {
    if (!available) return;
    const directory = await makeTempDirectory("ftcapi-nginx-");
    const db = await freshDatabase("postgres");
    const csv = join(directory, "dnc.csv");
    assert.equal((await runCli(["generate", "dnc", "--rows", "1000", "--out", csv])).code, 0);
    assert.equal((await runCli(["import", "dnc", "--db", db, csv])).code, 0);
    key = await createKeyWithCli(db);
    const tls = await loadOrCreateCertificate(directory);
    ca = await readFile(tls.certPath, "utf8");
    const [httpsPort, httpPort, replicaOne, replicaTwo] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    httpsUrl = `https://127.0.0.1:${httpsPort}`;
    httpUrl = `http://127.0.0.1:${httpPort}`;
    for (const port of [replicaOne, replicaTwo]) {
      replicas.push(
        await startServeProcess([
          "--db",
          db,
          "--host",
          "127.0.0.1",
          "--port",
          "0",
          "--http-port",
          String(port),
          "--trust-proxy",
          "--base-url",
          httpsUrl,
          "--tls-cert",
          tls.certPath,
          "--tls-key",
          tls.keyPath,
          "--log-level",
          "warn",
        ]),
      );
    }
    accessLog = join(directory, "ftcapi-access.log");
    const site = (await readFile(join(REPO_ROOT, "docs", "nginx", "ftcapi.conf"), "utf8"))
      .replace("127.0.0.1:8080", `127.0.0.1:${replicaOne}`)
      .replace("127.0.0.1:8081", `127.0.0.1:${replicaTwo}`)
      .replace("listen 80;", `listen 127.0.0.1:${httpPort};`)
      .replace("listen 443 ssl;", `listen 127.0.0.1:${httpsPort} ssl;`)
      .replace("/etc/ssl/ftcapi/fullchain.pem", tls.certPath)
      .replace("/etc/ssl/ftcapi/privkey.pem", tls.keyPath)
      .replaceAll("/var/log/nginx/ftcapi-access.log", accessLog);
    await writeFile(join(directory, "ftcapi.conf"), site);
    await writeFile(
      join(directory, "nginx.conf"),
      [
        `pid ${directory}/nginx.pid;`,
        `error_log ${directory}/error.log warn;`,
        "events {}",
        "http {",
        "  access_log off;",
        `  client_body_temp_path ${directory}/body;`,
        `  proxy_temp_path ${directory}/proxy;`,
        `  fastcgi_temp_path ${directory}/fastcgi;`,
        `  uwsgi_temp_path ${directory}/uwsgi;`,
        `  scgi_temp_path ${directory}/scgi;`,
        `  include ${directory}/ftcapi.conf;`,
        "}",
      ].join("\n"),
    );
    nginx = spawn(NGINX, ["-p", directory, "-c", join(directory, "nginx.conf"), "-g", "daemon off;"], {
      stdio: "inherit",
    });
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await fetchRaw(`${httpsUrl}/health/live`, { ca });
        return;
      } catch {
        await sleep(100);
      }
    }
    throw new Error("nginx did not start");
  });
  after(async () => {
    nginx?.kill("SIGQUIT");
    for (const replica of replicas) await replica.stop();
  });

  it("serves over TLS ended at nginx, links on the public address", async (t) => {
    if (!available) return t.skip(`${NGINX} not found (apt-get install nginx-light): nginx test skipped`);
    for (let index = 0; index < 6; index++) {
      const res = await fetchRaw(`${httpsUrl}/v0/dnc-complaints?items_per_page=2`, {
        ca,
        headers: { "X-Api-Key": key },
      });
      assert.equal(res.status, 200, res.body);
      const body = res.json();
      assert.equal(body.meta["record-total"], 1000);
      assert.equal(body.links.self, `${httpsUrl}/v0/dnc-complaints?items_per_page=2`);
      assert.ok(body.data[0].links.self.startsWith(`${httpsUrl}/v0/dnc-complaints/`));
    }
  });

  it("plain HTTP through the proxy is refused with HTTPS_REQUIRED naming the HTTPS address", async (t) => {
    if (!available) return t.skip(`${NGINX} not found: nginx test skipped`);
    const res = await fetchRaw(`${httpUrl}/v0/dnc-complaints?state=Ohio&api_key=${key}`);
    assert.equal(res.status, 400);
    assert.equal(
      res.json().error.message,
      `Requests must be made over HTTPS. Try accessing the API at: ${httpsUrl}/v0/dnc-complaints?state=Ohio`,
    );
  });

  it("leaves no api_key value in its access log (the ftcapi_masked format), only the rest of each request", async (t) => {
    if (!available) return t.skip(`${NGINX} not found: nginx test skipped`);
    const queries = [
      `state=Ohio&api_key=${key}`,
      `api_key=${key}&items_per_page=1`,
      `api_key=${key}&items_per_page=1&api_key=${key}`,
      `API_KEY=${key}`,
      `api%5Fkey=${key}`,
      `%61pi_key=${key}`,
      `a=1&api_key=${key}&api_key=${key}&api_key=${key}&api_key=${key}`,
    ];
    for (const query of queries) {
      await fetchRaw(`${httpsUrl}/v0/dnc-complaints?${query}`, { ca });
      await fetchRaw(`${httpUrl}/v0/dnc-complaints?${query}`);
    }
    // A request without a key in its query keeps its query in the log.
    await fetchRaw(`${httpsUrl}/v0/dnc-complaints?state=Texas&items_per_page=1`, {
      ca,
      headers: { "X-Api-Key": key },
    });
    // nginx writes a request's line after sending its answer: wait for the last one.
    const log = await eventually(
      async () => {
        const text = await readFile(accessLog, "utf8");
        assert.match(text, /state=Texas&items_per_page=1 /);
        return text;
      },
      5_000,
      50,
    );
    assert.ok(log.split("\n").length > queries.length * 2, `a line per request:\n${log}`);
    assert.ok(!log.includes(key), `no key in the access log:\n${log}`);
    assert.ok(!log.includes(key.slice(0, 12)), "nor a part of one");
    assert.match(log, /"GET \/v0\/dnc-complaints\?state=Ohio&api_key=-masked- HTTP\/1\.1" 200 /);
    assert.match(log, /"GET \/v0\/dnc-complaints\?-query-withheld- HTTP\/1\.1"/);
    assert.match(log, /"GET \/v0\/dnc-complaints\?state=Texas&items_per_page=1 HTTP\/1\.1" 200 /);
  });

  it("takes the client address from nginx, not from what the client claims", async (t) => {
    if (!available) return t.skip(`${NGINX} not found: nginx test skipped`);
    const statuses: number[] = [];
    for (let index = 0; index < 31; index++) {
      const res = await fetchRaw(`${httpsUrl}/v0/dnc-complaints?items_per_page=1`, {
        ca,
        headers: { "X-Api-Key": "DEMO_KEY", "X-Forwarded-For": `198.51.100.${index}` },
      });
      statuses.push(res.status);
    }
    assert.deepEqual(
      statuses.slice(0, 30),
      Array(30).fill(200),
      "DEMO_KEY's 30 an hour, shared by both replicas",
    );
    assert.equal(statuses[30], 429);
  });

  it("keeps serving when one replica stops", async (t) => {
    if (!available) return t.skip(`${NGINX} not found: nginx test skipped`);
    await replicas.shift()!.stop();
    for (let index = 0; index < 6; index++) {
      const res = await fetchRaw(`${httpsUrl}/v0/dnc-complaints?items_per_page=1`, {
        ca,
        headers: { "X-Api-Key": key },
      });
      assert.equal(res.status, 200);
    }
  });
});
