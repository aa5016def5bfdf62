import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw } from "../support/https-client.js";
import { createTestKey } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

interface Parameter {
  name: string;
  in: string;
}

for (const dialect of DIALECTS) {
  describe(`GET /openapi.json (${dialect})`, () => {
    let server: TestServer;
    let key: string;
    let document: {
      openapi: string;
      servers: Array<{ url: string }>;
      paths: Record<string, { get: { parameters?: Parameter[] } }>;
      components: {
        schemas: { Notice: { properties: { attributes: { properties: Record<string, unknown> } } } };
      };
    };

    before(async () => {
      const db = await freshDatabase(dialect);
      key = await createTestKey(db);
      server = await startTestServer({ db });
      const res = await server.get("/openapi.json");
      assert.equal(res.status, 200, res.body);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      document = res.json();
    });
    after(() => server?.stop());

    it("is public (no key) but needs HTTPS like every answer, and names this server", async () => {
      assert.equal(document.openapi, "3.1.0");
      assert.equal(document.servers[0]!.url, server.httpsUrl);
      const plain = await fetchRaw(`${server.httpUrl}/openapi.json`);
      assert.equal(plain.status, 400);
      assert.equal(plain.json().error.code, "HTTPS_REQUIRED");
    });

    it("documents only paths the server routes", async () => {
      for (const path of Object.keys(document.paths)) {
        const concrete = path
          .replace("/v0/dnc-complaints/{id}", "/v0/dnc-complaints/0123456789abcdef0123456789abcdef")
          .replace("{id}", "00000000-0000-4000-8000-000000000000")
          // Counts need what to count by.
          .replace(/^\/v0\/dnc-complaints\/counts$/, "/v0/dnc-complaints/counts?by=state")
          .replace(
            /^\/v0\/hsr-early-termination-notices\/counts$/,
            "/v0/hsr-early-termination-notices/counts?by=year",
          );
        const res = await server.get(concrete, { "X-Api-Key": key });
        if (path.includes("{id}")) {
          // An unknown record, answered by the route (a JSON:API document), not the gateway's NOT_FOUND.
          assert.equal(res.status, 404, path);
          assert.ok(Array.isArray(res.json().errors), `${path}: ${res.body}`);
        } else {
          assert.equal(res.status, 200, `${path}: ${res.body}`);
        }
      }
    });

    it("documents exactly the complaint parameters the server accepts", async () => {
      const documented = document.paths["/v0/dnc-complaints"]!.get.parameters!.map(
        (parameter) => parameter.name,
      );
      const refusal = await server.get("/v0/dnc-complaints?limit=5", { "X-Api-Key": key });
      assert.equal(refusal.status, 400);
      const detail: string = refusal.json().errors[0].detail;
      const accepted = detail
        .slice(detail.indexOf("Accepted parameters: ") + "Accepted parameters: ".length)
        .replace(/\.$/, "")
        .split(", ")
        .filter((name) => name !== "api_key");
      assert.deepEqual([...documented].sort(), [...accepted].sort());
    });

    it("documents notice filter parameters the server accepts, each plain name sendable alone", async () => {
      const parameters = document.paths["/v0/hsr-early-termination-notices"]!.get.parameters!;
      const filters = parameters
        .map((parameter) => parameter.name)
        .filter((name) => name.startsWith("filter["));
      assert.ok(filters.length > 0);
      for (const name of filters) {
        const field = /^filter\[([^\]]+)\]/.exec(name)![1]!;
        const value =
          field === "id"
            ? "00000000-0000-4000-8000-000000000000"
            : field === "date"
              ? "2020-01-01"
              : field === "created" || field === "updated"
                ? "2020-01-01T00:00:00+00:00"
                : "x";
        const query = name.endsWith("[operator]")
          ? `${encodeURIComponent(name)}=%3D&${encodeURIComponent(`filter[${field}][value]`)}=${encodeURIComponent(value)}`
          : name.endsWith("[value][]")
            ? `${encodeURIComponent(`filter[${field}][operator]`)}=IN&${encodeURIComponent(name)}=${encodeURIComponent(value)}`
            : name.endsWith("[value]")
              ? `${encodeURIComponent(name)}=${encodeURIComponent(value)}`
              : `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
        const res = await server.get(`/v0/hsr-early-termination-notices?${query}`, { "X-Api-Key": key });
        assert.equal(res.status, 200, `${name}: ${res.body}`);
      }
      const refused = await server.get("/v0/hsr-early-termination-notices?filter[nonsense]=x", {
        "X-Api-Key": key,
      });
      assert.equal(refused.status, 400, "an unknown field is refused, so the check above can fail");
    });

    it("gives every operation a distinct operationId", () => {
      const ids = Object.values(document.paths).map(
        (item) => (item.get as { operationId?: string }).operationId,
      );
      assert.ok(
        ids.every((id) => typeof id === "string" && id.length > 0),
        JSON.stringify(ids),
      );
      assert.equal(new Set(ids).size, ids.length);
    });

    it("documents notice attributes the server serves", async () => {
      const attributes = Object.keys(document.components.schemas.Notice.properties.attributes.properties);
      const res = await server.get(
        `/v0/hsr-early-termination-notices?fields[early_termination_notice]=${attributes.join(",")}`,
        { "X-Api-Key": key },
      );
      assert.equal(res.status, 200, res.body);
      const refused = await server.get(
        "/v0/hsr-early-termination-notices?fields[early_termination_notice]=nonsense",
        {
          "X-Api-Key": key,
        },
      );
      assert.equal(
        refused.status,
        400,
        "an attribute the server does not know is refused, so the check above can fail",
      );
    });
  });
}
