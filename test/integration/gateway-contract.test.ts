/**
 * One contract for every keyed route of both collections, as api.data.gov's gateway keeps it in
 * front of the live service: a valid request succeeds with the limit headers; a bad parameter is
 * refused in the collection's own error format, but only after the key; a missing, invalid or
 * disabled key is 403 in the gateway's body; a key over its limit is 429 with Retry-After;
 * plain HTTP is 400 HTTPS_REQUIRED before anything else; writes are 405. Data and keys are
 * written through the store; the routes are answered by a real server over real sockets.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import { fetchRaw, type TestResponse } from "../support/https-client.js";
import { createTestKey, importFiles, keyUsage } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const COMPLAINTS = "/v0/dnc-complaints";
const NOTICES = "/v0/hsr-early-termination-notices";
const COMPLAINT_ROWS = 200;
const NOTICE_ROWS = 30;
const JSON_TYPE = /^application\/json/;
const JSON_API_TYPE = /^application\/vnd\.api\+json/;

/** The seeded records the single-record routes name. */
interface Ids {
  complaint: string;
  notice: string;
}

interface Route {
  /** The route as the API documents it. */
  name: string;
  path(ids: Ids): string;
  /** Parameters of a valid request (kept in the HTTPS_REQUIRED address), if any. */
  query: string;
  /** Parameters every request to the route carries (the counts' `by`), if any. */
  required?: string;
  /** What the answer to the valid request holds. */
  holds(body: any, ids: Ids): void;
  /** A parameter the route refuses, and its name in the error. */
  bad: { query: string; parameter: string };
  /** The content type of the route's answers and of its own errors. */
  type: RegExp;
  /** The content type of its own errors, when it is not that of its answers. */
  errorType?: RegExp;
  /** Errors in Drupal's form: a `jsonapi` member and `links.via` (the notices), else plain JSON:API errors. */
  drupal: boolean;
}

const ROUTES: Route[] = [
  {
    name: COMPLAINTS,
    path: () => COMPLAINTS,
    query: "state=Ohio",
    holds: (body) => assert.equal(typeof body.meta["record-total"], "number"),
    bad: { query: "items_per_page=51", parameter: "items_per_page" },
    type: JSON_TYPE,
    drupal: false,
  },
  {
    name: `${COMPLAINTS}/{id}`,
    path: (ids) => `${COMPLAINTS}/${ids.complaint}`,
    query: "",
    holds: (body, ids) =>
      assert.deepEqual(
        body.data.map((record: any) => record.id),
        [ids.complaint],
      ),
    bad: { query: "state=Ohio", parameter: "state" },
    type: JSON_TYPE,
    drupal: false,
  },
  {
    name: NOTICES,
    path: () => NOTICES,
    query: "sort=-date&page[limit]=2",
    holds: (body) => {
      assert.equal(body.meta.count, NOTICE_ROWS);
      assert.equal(body.data.length, 2);
    },
    bad: { query: "page[limit]=51", parameter: "page[limit]" },
    type: JSON_API_TYPE,
    drupal: true,
  },
  {
    name: `${NOTICES}/{id}`,
    path: (ids) => `${NOTICES}/${ids.notice}`,
    query: "fields[early_termination_notice]=title",
    holds: (body, ids) => {
      assert.deepEqual(
        body.data.map((record: any) => record.id),
        [ids.notice],
      );
      assert.deepEqual(Object.keys(body.data[0].attributes), ["title"]);
    },
    bad: { query: "page[limit]=1", parameter: "page[limit]" },
    type: JSON_API_TYPE,
    drupal: true,
  },
  {
    name: `${NOTICES}/{id}/relationships/node_type`,
    path: (ids) => `${NOTICES}/${ids.notice}/relationships/node_type`,
    query: "",
    holds: (body) => assert.equal(body.data, null),
    bad: { query: "sort=title", parameter: "sort" },
    type: JSON_API_TYPE,
    drupal: true,
  },
  {
    name: `${COMPLAINTS}/counts`,
    path: () => `${COMPLAINTS}/counts`,
    required: "by=state",
    query: "created_date_from=2024-02-25&created_date_to=2024-02-29",
    holds: (body) => {
      assert.deepEqual(body.meta.by, ["state"]);
      assert.equal(body.meta["record-total"], COMPLAINT_ROWS);
      assert.equal(
        body.data.reduce((sum: number, group: any) => sum + group.count, 0),
        COMPLAINT_ROWS,
      );
    },
    bad: { query: "min_count=0", parameter: "min_count" },
    type: JSON_TYPE,
    drupal: false,
  },
  {
    name: `${NOTICES}/counts`,
    path: () => `${NOTICES}/counts`,
    required: "by=year",
    query: "filter[title][operator]=CONTAINS&filter[title][value]=a",
    holds: (body) => {
      assert.deepEqual(body.meta.by, ["year"]);
      assert.ok(body.meta["record-total"] > 0 && body.meta["record-total"] <= NOTICE_ROWS);
    },
    bad: { query: "page[limit]=1", parameter: "page[limit]" },
    type: JSON_TYPE,
    errorType: JSON_API_TYPE,
    drupal: true,
  },
  {
    name: "/v0/status",
    path: () => "/v0/status",
    query: "",
    holds: (body) => {
      const counts = Object.fromEntries(
        body.data.map((entry: any) => [entry.id, entry.attributes["record-count"]]),
      );
      assert.deepEqual(counts, {
        "dnc-complaints": COMPLAINT_ROWS,
        "hsr-early-termination-notices": NOTICE_ROWS,
      });
    },
    bad: { query: "state=Ohio", parameter: "state" },
    type: JSON_TYPE,
    drupal: false,
  },
];

/** Small files of both collections, written once for every dialect. */
let files: Promise<{ complaints: string; notices: string }> | undefined;
function seedFiles() {
  files ??= (async () => {
    const directory = await makeTempDirectory();
    const complaints = join(directory, "complaints.csv");
    const notices = join(directory, "notices.csv");
    const endSeconds = Date.UTC(2024, 2, 1) / 1000;
    await writeComplaintCsv({ rows: COMPLAINT_ROWS, days: 5, seed: 4, endSeconds }, complaints);
    await writeNoticeCsv({ rows: NOTICE_ROWS, seed: 4 }, notices);
    return { complaints, notices };
  })();
  return files;
}

/** The gateway's own body: exactly `{"error":{"code","message"}}`, as JSON. */
function assertGatewayError(
  res: TestResponse,
  status: number,
  code: string,
  message?: string | RegExp,
): void {
  assert.equal(res.status, status, res.body);
  assert.match(String(res.headers["content-type"]), JSON_TYPE);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.deepEqual(Object.keys(body.error), ["code", "message"]);
  assert.equal(body.error.code, code);
  if (typeof message === "string") assert.equal(body.error.message, message);
  else if (message) assert.match(body.error.message, message);
}

for (const dialect of DIALECTS) {
  describe(`the gateway contract over every keyed route (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let key: string;
    let disabled: string;
    let ids: Ids;

    before(async () => {
      db = await freshDatabase(dialect);
      const { complaints, notices } = await seedFiles();
      const imported = await importFiles(db, { complaints: [complaints], notices: [notices] });
      assert.equal(imported.complaints[0]!.added, COMPLAINT_ROWS);
      assert.equal(imported.notices[0]!.added, NOTICE_ROWS);
      key = await createTestKey(db);
      // Disabled before the server starts: what a disabled key meets, not how soon (gateway.test.ts).
      disabled = await createTestKey(db, { email: "disabled@example.com" }, { disabled: true });
      server = await startTestServer({ db });
      const first = async (path: string) => {
        const res = await server.get(path, { "X-Api-Key": key });
        assert.equal(res.status, 200, res.body);
        return res.json().data[0].id as string;
      };
      ids = {
        complaint: await first(`${COMPLAINTS}?items_per_page=1`),
        notice: await first(`${NOTICES}?page[limit]=1`),
      };
    });
    after(() => server?.stop());

    const signup = () => `${server.httpsUrl}/signup`;
    /** The route's path with its required parameters and `query`. */
    const request = (route: Route, query = "") => {
      const parameters = [route.required ?? "", query].filter((part) => part !== "").join("&");
      return parameters === "" ? route.path(ids) : `${route.path(ids)}?${parameters}`;
    };
    /** `url` with one more parameter. */
    const adding = (url: string, parameter: string) => `${url}${url.includes("?") ? "&" : "?"}${parameter}`;

    for (const route of ROUTES) {
      it(`${route.name}: a valid request is 200 with the limit headers; the header wins over api_key; DEMO_KEY works`, async () => {
        const path = request(route, route.query);
        for (const res of [
          await server.get(path, { "X-Api-Key": key }),
          await server.get(adding(path, "api_key=wrong"), { "X-Api-Key": key }),
        ]) {
          assert.equal(res.status, 200, res.body);
          assert.match(String(res.headers["content-type"]), route.type);
          assert.equal(res.headers["x-ratelimit-limit"], "1000");
          assert.match(String(res.headers["x-ratelimit-remaining"]), /^\d+$/);
          assert.match(String(res.headers["x-ratelimit-reset"]), /^\d+$/);
          route.holds(res.json(), ids);
        }
        const demo = await server.get(path, { "X-Api-Key": "DEMO_KEY" });
        assert.equal(demo.status, 200, demo.body);
      });

      it(`${route.name}: a bad parameter is 400 in the collection's error format, naming it, after the key`, async () => {
        const path = route.path(ids);
        const res = await server.get(`${request(route, route.bad.query)}&api_key=${key}`);
        assert.equal(res.status, 400, res.body);
        assert.match(String(res.headers["content-type"]), route.errorType ?? route.type);
        assert.ok(!res.body.includes(key), "the key is never echoed");
        const body = res.json();
        assert.deepEqual(Object.keys(body), route.drupal ? ["jsonapi", "errors"] : ["errors"]);
        assert.equal(body.errors.length, 1);
        const [error] = body.errors;
        assert.equal(error.status, "400");
        assert.equal(error.title, "Bad Request");
        assert.equal(error.source.parameter, route.bad.parameter);
        assert.equal(typeof error.code, "string");
        assert.equal(typeof error.detail, "string");
        if (route.drupal) {
          assert.equal(body.jsonapi.version, "1.0");
          assert.ok(error.links.via.href.startsWith(`${server.httpsUrl}${path}?`), error.links.via.href);
        } else {
          assert.equal(error.links, undefined);
        }
        const unkeyed = await server.get(request(route, route.bad.query));
        assertGatewayError(unkeyed, 403, "API_KEY_MISSING");
      });

      it(`${route.name}: a missing key is 403 API_KEY_MISSING naming the sign-up address`, async () => {
        const path = request(route);
        for (const res of [
          await server.get(path),
          await server.get(adding(path, "api_key=")),
          await server.get(path, { "X-Api-Key": "" }),
        ]) {
          assertGatewayError(res, 403, "API_KEY_MISSING", `No api_key was supplied. Get one at ${signup()}`);
          assert.equal(res.headers["x-ratelimit-limit"], undefined);
        }
      });

      it(`${route.name}: an unknown key is 403 API_KEY_INVALID`, async () => {
        const path = request(route);
        for (const res of [
          await server.get(adding(path, "api_key=nope")),
          await server.get(path, { "X-Api-Key": `${key}x` }),
        ]) {
          assertGatewayError(
            res,
            403,
            "API_KEY_INVALID",
            `An invalid api_key was supplied. Get one at ${signup()}`,
          );
          assert.equal(res.headers["x-ratelimit-limit"], undefined);
        }
      });

      it(`${route.name}: a disabled key is 403 API_KEY_DISABLED`, async () => {
        const res = await server.get(request(route), { "X-Api-Key": disabled });
        assertGatewayError(
          res,
          403,
          "API_KEY_DISABLED",
          `The api_key supplied has been disabled. Please contact us at ${signup()} for assistance`,
        );
        assert.equal(res.headers["x-ratelimit-limit"], undefined);
      });

      it(`${route.name}: a key's hourly limit, with headers, 429 and Retry-After, refused requests not counted`, async () => {
        const path = request(route);
        const limited = await createTestKey(db, { email: "limits@example.com", limitPerHour: 5 });
        for (let index = 0; index < 5; index++) {
          const res = await server.get(path, { "X-Api-Key": limited });
          assert.equal(res.status, 200, res.body);
          assert.equal(res.headers["x-ratelimit-limit"], "5");
          assert.equal(res.headers["x-ratelimit-remaining"], String(4 - index));
          const reset = Number(res.headers["x-ratelimit-reset"]);
          assert.ok(reset > 0 && reset <= 3600, `reset ${reset}`);
        }
        for (let index = 0; index < 3; index++) {
          const res = await server.get(path, { "X-Api-Key": limited });
          assertGatewayError(res, 429, "OVER_RATE_LIMIT", /exceeded your rate limit/);
          assert.equal(res.headers["x-ratelimit-limit"], "5");
          assert.equal(res.headers["x-ratelimit-remaining"], "0");
          const reset = Number(res.headers["x-ratelimit-reset"]);
          assert.ok(reset > 0 && reset <= 3600, `reset ${reset}`);
          const retryAfter = Number(res.headers["retry-after"]);
          assert.ok(retryAfter > 0 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
        }
        // HTTPS comes before the limit: the spent key over plain HTTP is told to use HTTPS.
        const plain = await fetchRaw(`${server.httpUrl}${path}`, { headers: { "X-Api-Key": limited } });
        assertGatewayError(plain, 400, "HTTPS_REQUIRED");
        // Usage is written in batches, at least every second.
        await eventually(async () => {
          assert.equal(await keyUsage(db, limited), 5, "refused requests are not counted");
        });
      });

      it(`${route.name}: plain HTTP is 400 HTTPS_REQUIRED naming the HTTPS address, before the key`, async () => {
        const path = request(route, route.query);
        const httpsPort = new URL(server.httpsUrl).port;
        const keyed = await fetchRaw(`${server.httpUrl}${adding(path, `api_key=${key}`)}`);
        assertGatewayError(
          keyed,
          400,
          "HTTPS_REQUIRED",
          `Requests must be made over HTTPS. Try accessing the API at: https://127.0.0.1:${httpsPort}${path}`,
        );
        assert.ok(!keyed.body.includes(key), "the key is never echoed");
        assertGatewayError(await fetchRaw(`${server.httpUrl}${request(route)}`), 400, "HTTPS_REQUIRED");
        const spoofed = await fetchRaw(`${server.httpUrl}${path}`, {
          headers: { "X-Forwarded-Proto": "https", "X-Api-Key": key },
        });
        assert.equal(spoofed.status, 400, "X-Forwarded-Proto is ignored without --trust-proxy");
      });

      it(`${route.name}: writes are 405 with a JSON body`, async () => {
        for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
          const res = await server.get(request(route), { "X-Api-Key": key }, method);
          assert.equal(res.status, 405);
          assert.equal(res.json().error.code, "METHOD_NOT_ALLOWED");
          assert.match(String(res.headers.allow), /GET/);
        }
      });
    }

    it("a key's limit counts every route of both collections together", async () => {
      const limited = await createTestKey(db, { email: "shared@example.com", limitPerHour: ROUTES.length });
      for (const [index, route] of ROUTES.entries()) {
        const res = await server.get(request(route), { "X-Api-Key": limited });
        assert.equal(res.status, 200, `${route.name}: ${res.body}`);
        assert.equal(res.headers["x-ratelimit-limit"], String(ROUTES.length));
        assert.equal(res.headers["x-ratelimit-remaining"], String(ROUTES.length - 1 - index));
      }
      for (const route of ROUTES) {
        const res = await server.get(request(route), { "X-Api-Key": limited });
        assertGatewayError(res, 429, "OVER_RATE_LIMIT");
        assert.ok(Number(res.headers["retry-after"]) > 0);
      }
    });
  });
}
