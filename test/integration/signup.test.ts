import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw } from "../support/https-client.js";
import { VALID_SIGNUP } from "../support/signup-fields.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const VALID = VALID_SIGNUP;

for (const dialect of DIALECTS) {
  describe(`sign-up (${dialect})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer({ db: await freshDatabase(dialect), trustProxy: true });
    });
    after(() => server?.stop());

    const post = (body: string, contentType: string, address = "192.0.2.10") =>
      fetchRaw(`${server.httpsUrl}/signup`, {
        method: "POST",
        ca: server.ca,
        body,
        headers: { "Content-Type": contentType, "X-Forwarded-For": address },
      });

    it("serves a plain, labelled HTML form", async () => {
      const res = await server.get("/signup");
      assert.equal(res.status, 200);
      assert.match(String(res.headers["content-type"]), /^text\/html/);
      for (const field of ["first_name", "last_name", "email", "use_description", "terms_and_conditions"]) {
        assert.match(res.body, new RegExp(`<label for="${field}">`));
        assert.match(res.body, new RegExp(`id="${field}" name="${field}"`));
      }
      assert.match(res.body, /<html lang="en">/);
    });

    it("issues a working key for a submitted form, shown once", async () => {
      const res = await post(new URLSearchParams(VALID).toString(), "application/x-www-form-urlencoded");
      assert.equal(res.status, 201);
      assert.equal(res.headers["cache-control"], "no-store");
      const key = /id="api-key" class="key">([A-Za-z0-9]{40})</.exec(res.body)?.[1];
      assert.ok(key, res.body);
      const api = await server.get("/v0/dnc-complaints?items_per_page=1", { "X-Api-Key": key });
      assert.equal(api.status, 200);
    });

    it("issues a key for JSON", async () => {
      const res = await post(
        JSON.stringify({ ...VALID, terms_and_conditions: true }),
        "application/json",
        "192.0.2.11",
      );
      assert.equal(res.status, 201);
      const body = res.json();
      assert.match(body.api_key, /^[A-Za-z0-9]{40}$/);
      assert.equal(body.email, "ada@example.org");
    });

    it("refuses bad input with a 400 naming the field", async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...VALID, email: "not-an-address" }, "/email"],
        [{ ...VALID, first_name: "" }, "/first_name"],
        [{ ...VALID, terms_and_conditions: "false" }, "/terms_and_conditions"],
        [{ ...VALID, admin: "yes" }, "/admin"],
      ];
      for (const [body, pointer] of cases) {
        const res = await post(JSON.stringify(body), "application/json", "192.0.2.12");
        assert.equal(res.status, 400, JSON.stringify(body));
        const [error] = res.json().errors;
        assert.equal(error.status, "400");
        assert.equal(error.code, "INVALID_FIELD");
        assert.equal(error.source.pointer, pointer);
      }
      const form = await post(
        new URLSearchParams({ ...VALID, email: "nope" }).toString(),
        "application/x-www-form-urlencoded",
        "192.0.2.13",
      );
      assert.equal(form.status, 400);
      assert.match(form.body, /role="alert">E-mail must be an address/);
      assert.match(form.body, /value="Ada"/, "the form keeps what was typed");
    });

    it("limits sign-ups per client address", async () => {
      const address = "192.0.2.50";
      for (let index = 0; index < 5; index++) {
        const res = await post(
          JSON.stringify({ ...VALID, terms_and_conditions: true }),
          "application/json",
          address,
        );
        assert.equal(res.status, 201);
      }
      const refused = await post(
        JSON.stringify({ ...VALID, terms_and_conditions: true }),
        "application/json",
        address,
      );
      assert.equal(refused.status, 429);
      assert.equal(refused.json().error.code, "OVER_RATE_LIMIT");
      assert.ok(Number(refused.headers["retry-after"]) > 0);
      const other = await post(
        JSON.stringify({ ...VALID, terms_and_conditions: true }),
        "application/json",
        "192.0.2.51",
      );
      assert.equal(other.status, 201);
    });

    it("requires HTTPS", async () => {
      const res = await fetchRaw(`${server.httpUrl}/signup`);
      assert.equal(res.status, 400);
      assert.equal(res.json().error.code, "HTTPS_REQUIRED");
    });
  });
}
