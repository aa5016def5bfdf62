import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw } from "../support/https-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const ENDPOINTS = ["/v0/dnc-complaints", "/v0/dnc-complaints/0123456789abcdef0123456789abcdef", "/v0/status"];

for (const dialect of DIALECTS) {
  describe(`the gateway (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let key: string;

    before(async () => {
      db = await freshDatabase(dialect);
      key = await createKeyWithCli(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    for (const path of ENDPOINTS) {
      it(`${path}: a missing key is 403 API_KEY_MISSING naming the sign-up address`, async () => {
        for (const res of [
          await server.get(path),
          await server.get(`${path}?api_key=`),
          await server.get(path, { "X-Api-Key": "" }),
        ]) {
          assert.equal(res.status, 403);
          assert.deepEqual(res.json(), {
            error: {
              code: "API_KEY_MISSING",
              message: `No api_key was supplied. Get one at ${server.httpsUrl}/signup`,
            },
          });
          assert.equal(res.headers["x-ratelimit-limit"], undefined);
        }
      });

      it(`${path}: an unknown key is 403 API_KEY_INVALID`, async () => {
        for (const res of [
          await server.get(`${path}?api_key=nope`),
          await server.get(path, { "X-Api-Key": `${key}x` }),
        ]) {
          assert.equal(res.status, 403);
          assert.deepEqual(res.json(), {
            error: {
              code: "API_KEY_INVALID",
              message: `An invalid api_key was supplied. Get one at ${server.httpsUrl}/signup`,
            },
          });
        }
      });

      it(`${path}: HTTPS comes before the key`, async () => {
        const res = await fetchRaw(`${server.httpUrl}${path}`);
        assert.equal(res.status, 400);
        assert.equal(res.json().error.code, "HTTPS_REQUIRED");
      });

      it(`${path}: the header wins over the parameter; DEMO_KEY always works`, async () => {
        const res = await server.get(`${path}?api_key=wrong`, { "X-Api-Key": key });
        assert.notEqual(res.status, 403);
        const demo = await server.get(path, { "X-Api-Key": "DEMO_KEY" });
        assert.notEqual(demo.status, 403);
      });

      it(`${path}: writes are 405 with a JSON body`, async () => {
        for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
          const res = await server.get(path, { "X-Api-Key": key }, method);
          assert.equal(res.status, 405);
          assert.equal(res.json().error.code, "METHOD_NOT_ALLOWED");
          assert.match(String(res.headers.allow), /GET/);
        }
      });
    }

    it("an unknown path is 404 NOT_FOUND in the gateway's body", async () => {
      for (const res of [
        await server.get("/v1/nothing"),
        await server.get("/v0/nothing", { "X-Api-Key": key }),
      ]) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.json(), {
          error: { code: "NOT_FOUND", message: "The requested URL was not found on this server." },
        });
      }
    });

    it("a disabled key is refused by a server that was already running, within seconds", async () => {
      const victim = await createKeyWithCli(db, "victim@example.com");
      assert.equal((await server.get("/v0/dnc-complaints", { "X-Api-Key": victim })).status, 200);
      const disabled = await runCli(["keys", "disable", victim.slice(0, 6), "--db", db]);
      assert.equal(disabled.code, 0, disabled.stderr);
      let res = await server.get("/v0/dnc-complaints", { "X-Api-Key": victim });
      for (let attempt = 0; attempt < 20 && res.status === 200; attempt++) {
        await sleep(250);
        res = await server.get("/v0/dnc-complaints", { "X-Api-Key": victim });
      }
      assert.equal(res.status, 403);
      assert.equal(res.json().error.code, "API_KEY_DISABLED");
      assert.match(res.json().error.message, /has been disabled/);
      const enabled = await runCli(["keys", "enable", victim.slice(0, 6), "--db", db]);
      assert.equal(enabled.code, 0, enabled.stderr);
    });

    it("with --trust-proxy, X-Forwarded-Proto from the proxy decides", async () => {
      const proxied = await startTestServer({ db, trustProxy: true });
      try {
        const viaProxy = await fetchRaw(`${proxied.httpUrl}/v0/dnc-complaints?items_per_page=1`, {
          headers: { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example.gov", "X-Api-Key": key },
        });
        assert.equal(viaProxy.status, 200, viaProxy.body);
        assert.equal(
          viaProxy.json().links.self,
          "https://api.example.gov/v0/dnc-complaints?items_per_page=1",
        );
        const plain = await fetchRaw(`${proxied.httpUrl}/v0/dnc-complaints`, {
          headers: { "X-Forwarded-Proto": "http" },
        });
        assert.equal(plain.status, 400);
        assert.equal(plain.json().error.code, "HTTPS_REQUIRED");
      } finally {
        await proxied.stop();
      }
    });
  });
}
