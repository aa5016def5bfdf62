/**
 * Fuzzes every route of a real server with generated requests (paths in every request-target
 * form, query strings and sign-up bodies built from hostile tokens: control characters, prototype
 * names, tiny years, repeated sort keys, bracket soup) on both dialects and over four workers, and
 * asserts the server never answers 5xx, never echoes the key it was given, and answers every error
 * (over HTTPS and plain HTTP) with the documented error body (test/support/documented-error.ts);
 * the sign-up form's HTML pages excepted, which answer the form's own posts.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { COMPLAINT_PARAMETERS } from "../../src/domain/complaint-query.js";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { createKeyWithCli } from "../support/cli.js";
import { DIALECTS, type Dialect, freshDatabase } from "../support/dialects.js";
import { assertDocumentedError } from "../support/documented-error.js";
import type { TestResponse } from "../support/https-client.js";
import { rawRequest } from "../support/raw-request.js";
import { importFiles } from "../support/seed.js";
import { localServeFlags, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const ROUTES = [
  "/v0/dnc-complaints",
  "/v0/dnc-complaints/0123456789abcdef0123456789abcdef",
  "/v0/hsr-early-termination-notices",
  "/v0/hsr-early-termination-notices/0123abcd-0000-4000-8000-000000000000",
  "/v0/hsr-early-termination-notices/x/relationships/node_type",
  "/v0/status",
  "/signup",
  "/openapi.json",
  "/health/live",
  "/health/ready",
  "/",
];

const HOSTILE = [
  // control characters, raw and encoded
  "%00",
  "%01",
  "%1B%5B2J",
  "%7F",
  "%C2%85",
  "%0D%0A",
  "%E2%80%AE",
  // prototype names
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  // tiny and huge years, impossible dates
  "0000-01-01",
  "0021-07-08",
  "0099-12-31",
  "9999-12-31",
  "2021-02-29",
  "%220021-07-08%2000:00:00%22",
  // numbers
  "-1",
  "0",
  "1e3",
  "99999999999999999999",
  "NaN",
  // bad encodings
  "%",
  "%ZZ",
  "%FF",
  "%F0%9F%98%80",
];

const NAMES = [
  ...COMPLAINT_PARAMETERS,
  "sort",
  "filter[title]",
  "filter[date][value]",
  "filter[a][condition][path]",
  "filter[a][condition][value]",
  "filter[a][condition][operator]",
  "filter[g][group][conjunction]",
  "page[limit]",
  "page[offset]",
  "fields[early_termination_notice]",
  "title",
  "keywords",
  "api_key",
  "resourceVersion",
  ...HOSTILE.slice(7, 13),
];

const VALUES = [
  ...HOSTILE,
  "Ohio",
  "Texas",
  "2021-07-08",
  "true",
  "ASC",
  "-created,title",
  Array(30).fill("created").join(","),
  "title,date,created,updated,id",
  "CONTAINS",
  "IN",
  "OR",
  "capital",
  "50",
];

const token = (values: readonly string[]) =>
  fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 5 }).map(encodeURIComponent));

const queryString = fc
  .array(fc.tuple(token(NAMES), token(VALUES)), { maxLength: 8 })
  .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join("&"));

const target = fc
  .tuple(
    fc.constantFrom(...ROUTES),
    fc.constantFrom("", "https://h", "//", "/x/..", "/."),
    fc.option(token(HOSTILE), { nil: undefined }),
    queryString,
  )
  .map(([route, prefix, suffix, query]) => {
    const path =
      prefix === "//" ? `/${route}` : `${prefix}${route}${suffix === undefined ? "" : `/${suffix}`}`;
    return query === "" ? path : `${path}?${query}`;
  });

const SIGNUP_FIELDS = ["first_name", "last_name", "email", "use_description", "terms_and_conditions"];
const signupBody = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...SIGNUP_FIELDS, ...HOSTILE.slice(7, 13)), token(VALUES)), {
      maxLength: 8,
    }),
    fc.boolean(),
  )
  .map(([pairs, json]) =>
    json
      ? {
          type: "application/json",
          body: `{${pairs.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(safeDecode(value))}`).join(",")}}`,
        }
      : { type: "application/x-www-form-urlencoded", body: pairs.map(([n, v]) => `${n}=${v}`).join("&") },
  );

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A database with a few thousand complaints and notices, written through the ingest layer. */
async function seeded(dialect: Dialect): Promise<string> {
  const db = await freshDatabase(dialect);
  const directory = await makeTempDirectory();
  const complaints = join(directory, "complaints.csv");
  const notices = join(directory, "notices.csv");
  await writeComplaintCsv(
    { rows: 3000, days: 10, seed: 3, endSeconds: Date.UTC(2021, 6, 9) / 1000 },
    complaints,
  );
  await writeNoticeCsv({ rows: 500, seed: 3 }, notices);
  await importFiles(db, { complaints: [complaints], notices: [notices] });
  return db;
}

const CONFIGURATIONS: Array<{ dialect: Dialect; workers: number }> = [
  ...DIALECTS.map((dialect) => ({ dialect, workers: 1 })),
  ...DIALECTS.map((dialect) => ({ dialect, workers: 4 })),
];

for (const { dialect, workers } of CONFIGURATIONS) {
  describe(`fuzzing a real server (${dialect}, ${workers} worker${workers > 1 ? "s" : ""})`, () => {
    let server: Awaited<ReturnType<typeof startServeProcess>>;
    let key: string;
    let ca: string;

    before(async () => {
      const db = await seeded(dialect);
      key = await createKeyWithCli(db, "fuzz@example.com", "--unlimited");
      server = await startServeProcess(
        localServeFlags(db, "--workers", String(workers), "--signup-limit-per-hour", "100000"),
      );
      ca = await readFile(server.certPath!, "utf8");
    });
    after(async () => {
      if (server) assert.equal(await server.stop(), 0, server.output());
    });

    const check = (what: string, res: TestResponse, method = "GET") => {
      assert.ok(res.status > 0 && res.status < 500, `${what}: ${res.status} ${res.body.slice(0, 300)}`);
      assert.ok(!res.body.includes(key), `${what}: the key was echoed`);
      if (res.status >= 400 && method !== "HEAD") assertDocumentedError(res, what);
    };

    it("answers every generated API request with less than 500, never echoing the key, errors in the documented body", async () => {
      await fc.assert(
        fc.asyncProperty(
          target,
          fc.constantFrom("GET", "HEAD", "OPTIONS", "DELETE"),
          async (path, method) => {
            const res = await rawRequest(server.httpsUrl, path, {
              ca,
              method,
              headers: { "X-Api-Key": key },
            });
            check(`${method} ${path}`, res, method);
            const withQueryKey = await rawRequest(
              server.httpsUrl,
              `${path}${path.includes("?") ? "&" : "?"}api_key=${key}`,
              { ca },
            );
            check(`${path} with api_key`, withQueryKey);
            const plain = await rawRequest(server.httpUrl, path, { method, headers: { "X-Api-Key": key } });
            check(`${method} ${path} over plain HTTP`, plain, method);
          },
        ),
        // With the 150 sign-ups below, 1,250 cases a configuration: 5,000 a run over the four.
        { numRuns: 1100, seed: 18 },
      );
    });

    it("answers every generated sign-up with less than 500, errors in the documented body", async () => {
      await fc.assert(
        fc.asyncProperty(signupBody, async ({ type, body }) => {
          const res = await rawRequest(server.httpsUrl, "/signup", {
            ca,
            method: "POST",
            headers: { "Content-Type": type, "Content-Length": String(Buffer.byteLength(body)) },
            body,
          });
          const what = `POST /signup ${type} ${body}`;
          assert.ok(res.status < 500, `${what}: ${res.status} ${res.body.slice(0, 300)}`);
          // A form's post is answered with the form again, its error shown (docs/keys-and-limits.md).
          const formPage =
            type !== "application/json" && String(res.headers["content-type"]).startsWith("text/html");
          if (res.status >= 400 && !formPage) assertDocumentedError(res, what);
        }),
        { numRuns: 150, seed: 18 },
      );
    });
  });
}
