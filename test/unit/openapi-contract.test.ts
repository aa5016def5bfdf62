import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openApiDocument } from "../../src/domain/openapi-document.js";
import { type ContractAnswer, OpenApiContract } from "../support/openapi-contract.js";

const contract = new OpenApiContract(openApiDocument("https://ftcapi.invalid"));

const complaintPage = {
  data: [
    {
      type: "dnc_complaint",
      id: "0123456789abcdef0123456789abcdef",
      attributes: {
        "company-phone-number": "2025550123",
        "created-date": "2026-11-02 08:00:00",
        "violation-date": "2026-11-01 09:00:00",
        "consumer-city": "Rochester",
        "consumer-state": "New York",
        "consumer-area-code": "585",
        subject: "Other",
        "recorded-message-or-robocall": "N",
      },
      relationships: [],
      meta: [],
      links: { self: "https://host/v0/dnc-complaints/0123456789abcdef0123456789abcdef" },
    },
  ],
  meta: { "records-this-page": 1, "record-total": 1, "records-total": 1 },
  links: { self: "https://host/v0/dnc-complaints" },
};

const goodPage: ContractAnswer = {
  method: "GET",
  path: "/v0/dnc-complaints?state=Ohio",
  status: 200,
  headers: { "content-type": "application/json; charset=utf-8", etag: '"abc"', "cache-control": "no-cache" },
  body: JSON.stringify(complaintPage),
};

const drupalNotFound = {
  jsonapi: { version: "1.0", meta: { links: { self: { href: "http://jsonapi.org/format/1.0/" } } } },
  errors: [
    {
      status: "404",
      code: "RECORD_NOT_FOUND",
      title: "Not Found",
      detail: "No early_termination_notice has the id 'x'.",
      links: { via: { href: "https://host/v0/hsr-early-termination-notices/x" } },
    },
  ],
};

describe("the OpenAPI contract check", () => {
  it("accepts a documented answer", () => {
    assert.equal(contract.violation(goodPage), undefined);
  });

  it("refuses a status the operation does not document", () => {
    assert.match(contract.violation({ ...goodPage, status: 201 }) ?? "", /undocumented status/);
  });

  it("refuses a Content-Type the status does not document", () => {
    const answer: ContractAnswer = {
      method: "GET",
      path: "/v0/hsr-early-termination-notices/00000000-0000-4000-8000-000000000000",
      status: 404,
      headers: { "content-type": "application/vnd.api+json" },
      body: JSON.stringify(drupalNotFound),
    };
    assert.equal(contract.violation(answer), undefined);
    assert.match(
      contract.violation({ ...answer, headers: { "content-type": "application/json" } }) ?? "",
      /Content-Type application\/json is not one of/,
    );
  });

  it("refuses a body the schema does not describe (a member too many, a null, a missing member)", () => {
    const extra = { ...complaintPage, meta: { ...complaintPage.meta, extra: 1 } };
    assert.match(
      contract.violation({ ...goodPage, body: JSON.stringify(extra) }) ?? "",
      /additional properties/,
    );
    const nulled = structuredClone(complaintPage) as { data: Array<{ attributes: Record<string, unknown> }> };
    nulled.data[0]!.attributes.subject = null;
    assert.match(contract.violation({ ...goodPage, body: JSON.stringify(nulled) }) ?? "", /must be string/);
    const { links: _links, ...missing } = complaintPage;
    assert.match(
      contract.violation({ ...goodPage, body: JSON.stringify(missing) }) ?? "",
      /required property 'links'/,
    );
    assert.match(contract.violation({ ...goodPage, body: "{" }) ?? "", /not JSON/);
  });

  it("refuses an answer without a required header, or with a header its schema refuses", () => {
    // One complaint always carries its ETag (a list's JSON page too, but its exports none, so the
    // list's ETag is described as optional).
    const goodRecord = { ...goodPage, path: "/v0/dnc-complaints/0123456789abcdef0123456789abcdef" };
    assert.equal(contract.violation(goodRecord), undefined);
    const { etag: _etag, ...withoutEtag } = goodPage.headers;
    assert.match(contract.violation({ ...goodRecord, headers: withoutEtag }) ?? "", /required header ETag/);
    assert.match(
      contract.violation({ ...goodPage, headers: { ...goodPage.headers, "cache-control": "max-age=60" } }) ??
        "",
      /header Cache-Control/,
    );
    assert.match(
      contract.violation({
        ...goodPage,
        headers: { ...goodPage.headers, "x-ratelimit-remaining": "many" },
      }) ?? "",
      /header X-RateLimit-Remaining/,
    );
  });

  it("refuses a body where none is documented (304)", () => {
    const notModified: ContractAnswer = {
      ...goodPage,
      status: 304,
      headers: { etag: '"abc"', "cache-control": "no-cache" },
      body: "",
    };
    assert.equal(contract.violation(notModified), undefined);
    assert.match(contract.violation({ ...notModified, body: "{}" }) ?? "", /a body where none is documented/);
  });

  it("lets an undocumented answer pass only as a 4xx or 5xx with a documented error body", () => {
    const notFound: ContractAnswer = {
      method: "GET",
      path: "/v0/nothing",
      status: 404,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ error: { code: "NOT_FOUND", message: "No such route." } }),
    };
    assert.equal(contract.violation(notFound), undefined);
    assert.match(contract.violation({ ...notFound, status: 200 }) ?? "", /only errors may be undocumented/);
    assert.match(
      contract.violation({ ...notFound, body: JSON.stringify({ error: "Not Found" }) }) ?? "",
      /without a documented error body/,
    );
    assert.match(
      contract.violation({
        ...goodPage,
        method: "DELETE",
        status: 405,
        body: "<html></html>",
        headers: { "content-type": "text/html" },
      }) ?? "",
      /without a documented error body/,
    );
  });

  it("skips, by its stated rule, only pages for people and CORS preflights", () => {
    const html: ContractAnswer = {
      method: "GET",
      path: "/signup",
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html>",
    };
    assert.equal(contract.violation(html), undefined);
    assert.equal(contract.violation({ ...html, path: "/signup/thanks?x=1" }), undefined);
    assert.equal(contract.violation({ ...goodPage, method: "OPTIONS", status: 204, body: "" }), undefined);
    assert.notEqual(contract.violation({ ...html, path: "/signups" }), undefined);
    for (const page of ["/", "/docs", "/docs/guide/api", "/explore?view=phone", "/assets/explore-X.js"]) {
      assert.equal(contract.violation({ ...html, path: page }), undefined, page);
    }
    assert.notEqual(contract.violation({ ...html, path: "/explorer" }), undefined);
    assert.notEqual(contract.violation({ ...html, path: "/v0/docs" }), undefined);
  });
});
