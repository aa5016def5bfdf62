import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { createKeyWithCli, REPO_ROOT, runCli } from "../support/cli.js";
import { fetchRaw } from "../support/https-client.js";
import { startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const exec = promisify(execFile);

describe("ftcapi serve (a real process)", () => {
  it("prints its addresses and a curl line that works as printed, keeps keys out of its logs, stops on SIGTERM", async () => {
    const directory = await makeTempDirectory();
    const db = join(directory, "ftcapi.db");
    const csv = join(directory, "dnc.csv");
    assert.equal((await runCli(["generate", "dnc", "--rows", "500", "--seed", "3", "--out", csv])).code, 0);
    assert.equal((await runCli(["import", "dnc", "--db", db, csv])).code, 0);
    const key = await createKeyWithCli(db);
    const server = await startServeProcess([
      "--db",
      db,
      "--port",
      "0",
      "--http-port",
      "0",
      "--host",
      "127.0.0.1",
    ]);
    try {
      assert.match(server.httpsUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.match(server.httpUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(server.output(), /DEMO_KEY/);

      const words = server.curlLine.match(/'[^']*'|\S+/g)!.map((word) => word.replace(/^'(.*)'$/, "$1"));
      assert.equal(words[0], "curl");
      const { stdout } = await exec(words[0]!, ["-s", ...words.slice(1)], { cwd: REPO_ROOT });
      const body = JSON.parse(stdout);
      assert.equal(body.meta["records-this-page"], 2);
      assert.equal(body.meta["record-total"], 500);

      const ca = await readFile(join(directory, "tls-cert.pem"), "utf8");
      const res = await fetchRaw(`${server.httpsUrl}/v0/dnc-complaints?api_key=${key}&items_per_page=1`, {
        ca,
      });
      assert.equal(res.status, 200);
      await fetchRaw(`${server.httpsUrl}/v0/dnc-complaints?items_per_page=1`, {
        ca,
        headers: { "X-Api-Key": key },
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.match(server.output(), /items_per_page=1/, "requests are logged");
      assert.ok(!server.output().includes(key), "the key never reaches the log");
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("reads every option from FTCAPI_* variables too", async () => {
    const directory = await makeTempDirectory();
    const result = await runCli(["serve"], {
      env: { FTCAPI_DB: join(directory, "x.db"), FTCAPI_HTTP_PORT: "eighty" },
    });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /--http-port must be a port number 0-65535; got 'eighty'/);
    const flagWins = await runCli(["serve", "--http-port", "99999"], { env: { FTCAPI_HTTP_PORT: "8080" } });
    assert.match(flagWins.stderr, /got '99999'/);
  });
});
