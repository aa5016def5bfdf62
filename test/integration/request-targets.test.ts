import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import type { TestResponse } from "../support/https-client.js";
import { rawRequest } from "../support/raw-request.js";
import { createTestKey } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const NOTICE_ID = "0123abcd-0000-4000-8000-000000000000";
/** Every keyed route, as a client would spell it. */
const ROUTES = [
  "/v0/dnc-complaints?items_per_page=1",
  "/v0/dnc-complaints/0123456789abcdef0123456789abcdef",
  "/v0/hsr-early-termination-notices?page[limit]=1",
  `/v0/hsr-early-termination-notices/${NOTICE_ID}`,
  `/v0/hsr-early-termination-notices/${NOTICE_ID}/relationships/node_type`,
  "/v0/status",
];

/** Every request-target form an HTTP/1.1 client can send for an origin-form `path`. */
function targetForms(path: string, host: string): Array<[string, string]> {
  const tail = path.slice("/v0/".length);
  return [
    ["origin", path],
    ["absolute, this host", `https://${host}${path}`],
    ["absolute, another host", `https://h${path}`],
    ["absolute, plain scheme", `http://h${path}`],
    ["absolute, upper-case scheme", `HTTPS://H${path}`],
    ["absolute, no path", `https://h?${path.split("?")[1] ?? ""}`],
    ["doubled leading slash", `/${path}`],
    ["doubled inner slash", `/v0//${tail}`],
    ["dot segment", `/v0/./${tail}`],
    ["dot-dot segment", `/x/../v0/${tail}`],
    ["dot-dot out of the health probes", `/health/../v0/${tail}`],
    ["percent-encoded prefix", `/%76%30/${tail}`],
    ["percent-encoded slash", `/v0%2F${tail}`],
    ["percent-encoded letter", `/v0/${tail.replace("-", "%2D")}`],
    ["upper case", `/V0/${tail.toUpperCase()}`],
    ["mixed case", `/v0/${tail.charAt(0).toUpperCase()}${tail.slice(1)}`],
    ["trailing slash", path.includes("?") ? path.replace("?", "/?") : `${path}/`],
  ];
}

/** The gateway's own refusals, and 404 for a target that routes nowhere; never data. */
function assertRefused(res: TestResponse, allowed: string[], what: string): void {
  assert.ok(res.status >= 400, `${what}: ${res.status} ${res.body.slice(0, 200)}`);
  const code = res.json().error?.code ?? res.json().errors?.[0]?.code;
  assert.ok(
    [...allowed, "NOT_FOUND"].includes(code) || res.status === 404,
    `${what}: ${res.status} ${res.body.slice(0, 200)}`,
  );
}

for (const dialect of DIALECTS) {
  describe(`the gateway judges the routed path, in every request-target form (${dialect})`, () => {
    let server: TestServer;
    let key: string;
    let disabled: string;

    before(async () => {
      const db = await freshDatabase(dialect);
      key = await createTestKey(db);
      disabled = await createTestKey(db, { email: "disabled@example.com" }, { disabled: true });
      server = await startTestServer({ db, demoLimitPerHour: "1" });
      // DEMO_KEY spends its one request of the hour.
      assert.equal((await server.get("/v0/status", { "X-Api-Key": "DEMO_KEY" })).status, 200);
    });
    after(() => server?.stop());

    for (const route of ROUTES) {
      it(`${route}: no form gets past HTTPS, a missing, disabled or spent key`, async () => {
        const host = new URL(server.httpsUrl).host;
        for (const [form, target] of targetForms(route, host)) {
          const send = (origin: string, headers: Record<string, string> = {}) =>
            rawRequest(origin, target, { ca: server.ca, headers });
          if (form === "absolute, no path") {
            // `https://h?q` is `/?q`: the public landing page (no key, no record), never the route.
            const page = await send(server.httpsUrl);
            assert.equal(page.status, 200, `${target}: ${page.body.slice(0, 200)}`);
            assert.match(String(page.headers["content-type"]), /^text\/html/, target);
            assert.equal((await send(server.httpUrl, { "X-Api-Key": key })).status, 301, target);
            continue;
          }
          assertRefused(await send(server.httpsUrl), ["API_KEY_MISSING"], `${form} ${target}, no key`);
          assertRefused(
            await send(server.httpsUrl, { "X-Api-Key": disabled }),
            ["API_KEY_DISABLED"],
            `${form} ${target}, disabled key`,
          );
          assertRefused(
            await send(server.httpsUrl, { "X-Api-Key": "DEMO_KEY" }),
            ["OVER_RATE_LIMIT"],
            `${form} ${target}, DEMO_KEY over its limit`,
          );
          assertRefused(
            await send(server.httpUrl, { "X-Api-Key": key }),
            ["HTTPS_REQUIRED"],
            `${form} ${target}, plain HTTP`,
          );
        }
      });

      it(`${route}: with a valid key, absolute-form is served as origin-form is`, async () => {
        const host = new URL(server.httpsUrl).host;
        const origin = await rawRequest(server.httpsUrl, route, {
          ca: server.ca,
          headers: { "X-Api-Key": key },
        });
        for (const target of [`https://${host}${route}`, `https://h${route}`, `HTTPS://H${route}`]) {
          const res = await rawRequest(server.httpsUrl, target, {
            ca: server.ca,
            headers: { "X-Api-Key": key },
          });
          assert.equal(res.status, origin.status, `${target}: ${res.body.slice(0, 200)}`);
          assert.equal(res.headers["x-ratelimit-limit"], origin.headers["x-ratelimit-limit"]);
        }
      });
    }

    it("health probes stay open in every form, and only they do", async () => {
      for (const target of ["/health/live", "https://h/health/live", "/health/ready"]) {
        const res = await rawRequest(server.httpUrl, target);
        assert.equal(res.status, 200, `${target}: ${res.body}`);
      }
      const escaped = await rawRequest(server.httpsUrl, "/health/../v0/status", { ca: server.ca });
      assert.equal(escaped.status, 404);
    });

    it("a path that cannot be decoded is refused without echoing the target, HTTPS first", async () => {
      const target = "/v0/hsr-early-termination-notices/%?api_key=SECRET-IN-THE-PATH";
      const plain = await rawRequest(server.httpUrl, target);
      assert.equal(plain.status, 400);
      assert.equal(plain.json().error.code, "HTTPS_REQUIRED");
      assert.doesNotMatch(plain.body, /SECRET-IN-THE-PATH/);
      const secure = await rawRequest(server.httpsUrl, target, { ca: server.ca });
      assert.equal(secure.status, 400);
      assert.equal(secure.json().error.code, "BAD_REQUEST");
      assert.doesNotMatch(secure.body, /SECRET-IN-THE-PATH/);
    });
  });
}
