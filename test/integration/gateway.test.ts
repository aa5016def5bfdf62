import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw } from "../support/https-client.js";
import { createTestKey } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/*
 * What every keyed route answers (HTTPS first, then a missing, invalid or disabled key, the limit,
 * writes) is the shared contract in gateway-contract.test.ts; here, what is not one route's: paths
 * that reach no route, a key disabled while a server runs, and a trusted proxy.
 */

const NOTICES = "/v0/hsr-early-termination-notices";

for (const dialect of DIALECTS) {
  describe(`the gateway (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let key: string;

    before(async () => {
      db = await freshDatabase(dialect);
      key = await createTestKey(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

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

    it("unknown paths below the notices are 404 NOT_FOUND; undecodable ones 400 BAD_REQUEST", async () => {
      const get = (path: string) => server.get(path, { "X-Api-Key": key });
      const res = await get(`${NOTICES}/0254a428-d492-4d98-8bc6-e704bad804b7/feeds_item/extra`);
      assert.equal(res.status, 404);
      assert.equal(res.json().error.code, "NOT_FOUND");
      for (const path of [`${NOTICES}/%`, `${NOTICES}/%E0%A4%A`]) {
        const bad = await get(path);
        assert.equal(bad.status, 400);
        assert.match(String(bad.headers["content-type"]), /^application\/json/);
        assert.equal(
          bad.json().error.code,
          "BAD_REQUEST",
          "a path that cannot be decoded, in the catalog's body",
        );
      }
    });

    it("a disabled key is refused by a server that was already running, within seconds", async () => {
      const victim = await createTestKey(db, { email: "victim@example.com" });
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
