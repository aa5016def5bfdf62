import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createKey, loadKeySecret } from "../../src/access/api-keys.js";
import { KeyStore } from "../../src/store/key-store.js";
import { migrate } from "../../src/store/migrate.js";
import { openDatabase } from "../../src/store/open-database.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw, type TestResponse } from "../support/https-client.js";
import { createTestKey } from "../support/seed.js";
import { VALID_SIGNUP } from "../support/signup-fields.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const VALID = VALID_SIGNUP;
const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";
const ELSEWHERE = "https://attacker.example";

/** The keys `ftcapi keys list` shows (one line each, after the header). */
async function listedKeys(db: string): Promise<string[]> {
  const listed = await runCli(["keys", "list", "--db", db]);
  assert.equal(listed.code, 0, listed.stderr);
  return listed.stdout.trimEnd().split("\n").slice(1);
}

/** Whether `text` holds a C0 control other than a line feed, DEL, or a C1 control. */
function hasControlCharacter(text: string): boolean {
  return [...text].some((character) => {
    const code = character.codePointAt(0)!;
    return (code < 0x20 && character !== "\n") || (code >= 0x7f && code <= 0x9f);
  });
}

for (const dialect of DIALECTS) {
  describe(`sign-up is same-origin only (${dialect})`, () => {
    let server: TestServer;
    let key: string;

    before(async () => {
      const db = await freshDatabase(dialect);
      server = await startTestServer({ db, trustProxy: true });
      key = await createTestKey(db);
    });
    after(() => server?.stop());

    const post = (
      body: string,
      contentType: string,
      address: string,
      headers: Record<string, string> = {},
    ): Promise<TestResponse> =>
      fetchRaw(`${server.httpsUrl}/signup`, {
        method: "POST",
        ca: server.ca,
        body,
        headers: { "Content-Type": contentType, "X-Forwarded-For": address, ...headers },
      });

    it("refuses cross-site POSTs with 403 CROSS_SITE_SIGNUP, issuing no key and spending no sign-up", async () => {
      const address = "198.51.100.1";
      const before = await listedKeys(server.db);
      const form = new URLSearchParams(VALID).toString();
      const json = JSON.stringify(VALID);
      // More refusals than the address's five sign-ups an hour: none of them may count.
      const attempts: Array<[string, string, Record<string, string>]> = [
        [form, FORM, { Origin: ELSEWHERE }],
        [form, FORM, { Origin: ELSEWHERE, "Sec-Fetch-Site": "cross-site" }],
        [form, FORM, { "Sec-Fetch-Site": "cross-site" }],
        [form, FORM, { Origin: "null" }],
        [form, FORM, { Origin: `${server.httpsUrl}.attacker.example` }],
        [json, JSON_TYPE, { Origin: ELSEWHERE }],
        [json, JSON_TYPE, { "Sec-Fetch-Site": "cross-site" }],
      ];
      for (const [body, contentType, headers] of attempts) {
        const res = await post(body, contentType, address, headers);
        assert.equal(res.status, 403, JSON.stringify(headers));
        assert.equal(res.headers["access-control-allow-origin"], undefined);
        assert.doesNotMatch(res.body, /id="api-key"|api_key/);
        if (contentType === JSON_TYPE) {
          assert.equal(res.json().error.code, "CROSS_SITE_SIGNUP");
        } else {
          assert.match(String(res.headers["content-type"]), /^text\/html/);
          assert.match(res.body, /role="alert">[^<]*own sign-up form/);
        }
      }
      assert.deepEqual(await listedKeys(server.db), before, "no key was issued");
      const allowed = await post(form, FORM, address);
      assert.equal(allowed.status, 201);
      assert.equal(allowed.headers["x-ratelimit-remaining"], "4", "refused sign-ups were not counted");
    });

    it("issues keys for same-origin POSTs and POSTs without Origin, without CORS headers", async () => {
      const cases: Array<[string, Record<string, string>]> = [
        ["198.51.100.2", { Origin: server.httpsUrl, "Sec-Fetch-Site": "same-origin" }],
        ["198.51.100.3", { Origin: server.httpsUrl }],
        ["198.51.100.4", {}],
      ];
      for (const [address, headers] of cases) {
        const res = await post(new URLSearchParams(VALID).toString(), FORM, address, headers);
        assert.equal(res.status, 201, JSON.stringify(headers));
        assert.match(res.body, /id="api-key" class="key">[A-Za-z0-9]{40}</);
        assert.equal(res.headers["access-control-allow-origin"], undefined);
      }
      const json = await post(JSON.stringify(VALID), JSON_TYPE, "198.51.100.5", { Origin: server.httpsUrl });
      assert.equal(json.status, 201);
      assert.match(json.json().api_key, /^[A-Za-z0-9]{40}$/);
      assert.equal(json.headers["access-control-allow-origin"], undefined);
    });

    it("answers /signup without CORS headers while the API keeps them", async () => {
      const origin = { Origin: ELSEWHERE };
      const preflight = {
        ...origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      };
      const answers: Array<[string, TestResponse]> = [
        ["GET", await server.get("/signup", origin)],
        ["HEAD", await server.get("/signup", origin, "HEAD")],
        ["OPTIONS", await server.get("/signup", preflight, "OPTIONS")],
        ["OPTIONS (encoded path)", await server.get("/%73ignup", preflight, "OPTIONS")],
        ["POST", await post(new URLSearchParams(VALID).toString(), FORM, "198.51.100.6", origin)],
      ];
      for (const [what, res] of answers) {
        for (const header of Object.keys(res.headers)) {
          assert.ok(!header.startsWith("access-control-"), `${what} /signup answered ${header}`);
        }
      }
      const apiPreflight = await server.get(
        "/v0/dnc-complaints",
        { ...origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-api-key" },
        "OPTIONS",
      );
      assert.ok(apiPreflight.status === 204 || apiPreflight.status === 200);
      assert.equal(apiPreflight.headers["access-control-allow-origin"], "*");
      const api = await server.get("/v0/dnc-complaints?items_per_page=1", { ...origin, "X-Api-Key": key });
      assert.equal(api.status, 200);
      assert.equal(api.headers["access-control-allow-origin"], "*");
      assert.match(String(api.headers["access-control-expose-headers"]), /X-RateLimit-Remaining/);
    });

    it("refuses duplicated fields, prototype names and unprintable characters with 400, spending no sign-up", async () => {
      const address = "198.51.100.7";
      const formCases: Array<[string, string]> = [
        [
          "first_name=Ada&first_name=Bob&last_name=L&email=a%40b.org&terms_and_conditions=true",
          "/first_name",
        ],
        ["first_name=Ada&last_name=L&email=a%40b.org&email=c%40d.org&terms_and_conditions=true", "/email"],
        [
          "first_name=Ada&last_name=L&email=a%40b.org&use_description=x&use_description=y&terms_and_conditions=true",
          "/use_description",
        ],
        [
          "first_name=Ada&last_name=L&email=a%40b.org&terms_and_conditions=true&terms_and_conditions=on",
          "/terms_and_conditions",
        ],
        [`${new URLSearchParams(VALID)}&constructor=x`, "/constructor"],
        [`${new URLSearchParams(VALID)}&toString=x`, "/toString"],
        [`${new URLSearchParams(VALID)}&__proto__=x`, "/__proto__"],
        [`${new URLSearchParams(VALID)}&hasOwnProperty=x`, "/hasOwnProperty"],
      ];
      for (const [control, field] of [
        ["\u001b[2J", "first_name"],
        ["\u0000", "last_name"],
        ["\u0085", "first_name"],
        ["\u009b31m", "last_name"],
        ["\u202e", "first_name"],
        ["\u007f", "use_description"],
        ["\u001b]0;owned\u0007", "use_description"],
      ] as const) {
        formCases.push([
          new URLSearchParams({ ...VALID, [field]: `Ada${control}x` }).toString(),
          `/${field}`,
        ]);
      }
      formCases.push([
        new URLSearchParams({ ...VALID, email: "ada\u001b[2J@example.org" }).toString(),
        "/email",
      ]);
      for (const [body, pointer] of formCases) {
        const res = await post(body, FORM, address);
        assert.equal(res.status, 400, `${body}: ${res.body}`);
        assert.match(String(res.headers["content-type"]), /^text\/html/);
        const field = pointer.slice(1);
        if (Object.hasOwn(VALID, field)) {
          assert.match(res.body, new RegExp(`id="${field}"[^>]*aria-invalid="true"`), body);
        } else {
          assert.match(res.body, /role="alert">Unknown field/, body);
        }
        assert.doesNotMatch(res.body, /id="api-key"/);
      }
      const jsonCases: Array<[Record<string, unknown>, string]> = [
        [{ ...VALID, first_name: ["Ada", "Bob"] }, "/first_name"],
        [{ ...VALID, last_name: { given: "L" } }, "/last_name"],
        [{ ...VALID, email: 42 }, "/email"],
        [{ ...VALID, use_description: false }, "/use_description"],
        [{ ...VALID, terms_and_conditions: ["true"] }, "/terms_and_conditions"],
        [{ ...VALID, terms_and_conditions: 1 }, "/terms_and_conditions"],
        [{ ...VALID, constructor: "x" }, "/constructor"],
        [{ ...VALID, toString: "x" }, "/toString"],
        [{ ...VALID, valueOf: "x" }, "/valueOf"],
        [{ ...VALID, first_name: "Ada\u001b[2J" }, "/first_name"],
        [{ ...VALID, last_name: "L\u0000" }, "/last_name"],
        [{ ...VALID, email: "ada\u0007@example.org" }, "/email"],
        [{ ...VALID, use_description: "x\u009b2J" }, "/use_description"],
        [{ ...VALID, terms_and_conditions: "true\u0000" }, "/terms_and_conditions"],
        [{ ...VALID, first_name: "Ada\u2028" }, "/first_name"],
        [{ ...VALID, last_name: "L\ud800" }, "/last_name"],
      ];
      for (const [body, pointer] of jsonCases) {
        const res = await post(JSON.stringify(body), JSON_TYPE, address);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.body}`);
        const [error] = res.json().errors;
        assert.equal(error.code, "INVALID_FIELD");
        assert.equal(error.source.pointer, pointer, JSON.stringify(body));
      }
      // Text from a textarea keeps its line breaks; names written in other scripts are welcome.
      const fine = await post(
        JSON.stringify({
          ...VALID,
          first_name: "Zoë",
          last_name: "\u0645\u06cc\u200c\u0631\u0632\u0627",
          use_description: "Line one\r\nLine two\n",
        }),
        JSON_TYPE,
        address,
      );
      assert.equal(fine.status, 201, fine.body);
      assert.equal(fine.headers["x-ratelimit-remaining"], "4", "refused sign-ups were not counted");
    });
  });

  describe(`sign-up behind a configured base URL (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer({
        db: await freshDatabase(dialect),
        trustProxy: true,
        baseUrl: "https://ftc.example.gov",
      });
    });
    after(() => server?.stop());

    it("accepts the base URL's origin only", async () => {
      const send = (origin: string, address: string) =>
        fetchRaw(`${server.httpsUrl}/signup`, {
          method: "POST",
          ca: server.ca,
          body: JSON.stringify(VALID),
          headers: { "Content-Type": JSON_TYPE, "X-Forwarded-For": address, Origin: origin },
        });
      const own = await send("https://ftc.example.gov", "198.51.100.20");
      assert.equal(own.status, 201, own.body);
      const direct = await send(server.httpsUrl, "198.51.100.21");
      assert.equal(direct.status, 403);
      assert.equal(direct.json().error.code, "CROSS_SITE_SIGNUP");
      assert.match(direct.json().error.message, /https:\/\/ftc\.example\.gov\/signup/);
    });
  });

  describe(`keys list prints stored text safely (${dialect})`, () => {
    it("escapes control characters stored before sign-up refused them", async () => {
      const db = await freshDatabase(dialect);
      const database = openDatabase(db);
      try {
        await migrate(database);
        const secret = await loadKeySecret(new SettingsStore(database), undefined);
        await createKey(new KeyStore(database), secret, {
          email: "mallory\u001b[2J\u001b]0;pwned\u0007@example.org",
          firstName: "M\u009bal",
        });
      } finally {
        await database.close();
      }
      const listed = await runCli(["keys", "list", "--db", db]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(
        !hasControlCharacter(listed.stdout),
        `raw control character in ${JSON.stringify(listed.stdout)}`,
      );
      assert.match(listed.stdout, /mallory\\x1b\[2J\\x1b\]0;pwned\\x07@example\.org/);

      const refused = await runCli(["keys", "create", "--db", db, "--email", "eve\u001b[2J@example.org"]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /--email.*U\+001B/);
      assert.ok(!hasControlCharacter(refused.stderr), refused.stderr);
    });
  });
}
