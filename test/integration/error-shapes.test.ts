/**
 * One error shape everywhere (issue 16, item 7): every error the server answers, for any input,
 * framework and socket level included (headers too large, a request that is not HTTP, a bare
 * OPTIONS, an unknown method, CONNECT, a body too large or of the wrong type), has the documented
 * body with a code from the one error catalog, on the HTTPS and the plain HTTP listener alike; and
 * the refusal of too many filter groups says groups.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertDocumentedError } from "../support/documented-error.js";
import { type RawAnswer, RawConnection } from "../support/raw-connection.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const KEY = { "X-Api-Key": "DEMO_KEY" };

describe("every error answer has the documented body", () => {
  let server: TestServer;
  /** Both listeners, each with a name for messages. */
  let origins: Array<[string, string]>;

  before(async () => {
    server = await startTestServer({ disableRateLimits: true });
    origins = [
      ["HTTPS", server.httpsUrl],
      ["plain HTTP", server.httpUrl],
    ];
  });
  after(() => server?.stop());

  const exchange = (origin: string, text: string): Promise<RawAnswer> =>
    RawConnection.exchange(origin, text, { ca: server.ca });
  const request = (method: string, target: string, headers: Record<string, string> = {}) =>
    `${method} ${target} HTTP/1.1\r\n${Object.entries({ Host: "localhost", Connection: "close", ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`;

  it("answers headers too large with 431 HEADERS_TOO_LARGE", async () => {
    for (const [name, origin] of origins) {
      const answer = await exchange(origin, request("GET", "/v0/status", { "X-Big": "a".repeat(20_000) }));
      assert.equal(answer.status, 431, name);
      assert.equal(assertDocumentedError(answer, name), "HEADERS_TOO_LARGE");
    }
  });

  it("answers what is not an HTTP/1.1 request with 400 BAD_REQUEST", async () => {
    const malformed = [
      "GE@T / HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "GET /v0/status HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n",
      "POST /signup HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n{}",
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
      "GET /v0/status HTTP/1.1\r\nConnection: close\r\n\r\n", // HTTP/1.1 requires Host
    ];
    for (const [name, origin] of origins) {
      for (const text of malformed) {
        const answer = await exchange(origin, text);
        const what = `${name} ${JSON.stringify(text.slice(0, 40))}`;
        assert.equal(answer.status, 400, what);
        assert.equal(assertDocumentedError(answer, what), "BAD_REQUEST");
      }
    }
  });

  it("answers a bare OPTIONS (not a CORS preflight) with 405, and still a preflight with 204", async () => {
    for (const [name, origin] of origins) {
      for (const target of [
        "/v0/dnc-complaints",
        "/v0/hsr-early-termination-notices",
        "/v0/status",
        "/",
        "*",
      ]) {
        const answer = await exchange(origin, request("OPTIONS", target));
        const what = `${name} OPTIONS ${target}`;
        assert.equal(answer.status, 405, `${what}: ${answer.body}`);
        assert.equal(assertDocumentedError(answer, what), "METHOD_NOT_ALLOWED");
        assert.equal(answer.headers.allow, "GET, HEAD, OPTIONS", what);
      }
      const preflight = await exchange(
        origin,
        request("OPTIONS", "/v0/dnc-complaints", {
          Origin: "https://example.org",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "X-Api-Key",
        }),
      );
      assert.equal(preflight.status, 204, name);
      assert.equal(preflight.headers["access-control-allow-origin"], "*", name);
    }
    // The sign-up form's own OPTIONS keeps answering which methods it takes, without CORS.
    const signup = await exchange(server.httpsUrl, request("OPTIONS", "/signup"));
    assert.equal(signup.status, 204);
    assert.equal(signup.headers.allow, "GET, HEAD, POST, OPTIONS");
  });

  it("answers methods the API does not take with 405 (unknown paths 404), CONNECT included", async () => {
    for (const method of ["PROPFIND", "TRACE", "DELETE", "PATCH"]) {
      for (const target of ["/v0/dnc-complaints", "/v0/hsr-early-termination-notices/x", "/v0/status"]) {
        const answer = await exchange(server.httpsUrl, request(method, target, KEY));
        const what = `${method} ${target}`;
        assert.equal(answer.status, 405, `${what}: ${answer.body}`);
        assert.equal(assertDocumentedError(answer, what), "METHOD_NOT_ALLOWED");
        assert.equal(answer.headers.allow, "GET, HEAD, OPTIONS", what);
      }
      const unknown = await exchange(server.httpsUrl, request(method, "/v0/nothing-here", KEY));
      assert.equal(assertDocumentedError(unknown, `${method} /v0/nothing-here`), "NOT_FOUND");
    }
    const signup = await exchange(server.httpsUrl, request("PUT", "/signup"));
    assert.equal(assertDocumentedError(signup, "PUT /signup"), "METHOD_NOT_ALLOWED");
    assert.equal(signup.headers.allow, "GET, HEAD, POST, OPTIONS");
    for (const [name, origin] of origins) {
      const answer = await exchange(
        origin,
        "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n",
      );
      assert.equal(answer.status, 405, name);
      assert.equal(assertDocumentedError(answer, `${name} CONNECT`), "METHOD_NOT_ALLOWED");
    }
  });

  it("answers a request with an expectation other than 100-continue, or asking to upgrade, as any other", async () => {
    const cases: Array<Record<string, string>> = [
      { Expect: "something-else" },
      { Connection: "Upgrade, close", Upgrade: "websocket" },
    ];
    for (const headers of cases) {
      const answer = await exchange(server.httpsUrl, request("GET", "/v0/status", { ...KEY, ...headers }));
      assert.equal(answer.status, 200, `${JSON.stringify(headers)}: ${answer.body}`);
    }
  });

  it("answers a body too large with 413 PAYLOAD_TOO_LARGE and one of another type with 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const large = JSON.stringify({ first_name: "a".repeat(20_000) });
    const tooLarge = await exchange(
      server.httpsUrl,
      request("POST", "/signup", {
        "Content-Type": "application/json",
        "Content-Length": String(large.length),
      }) + large,
    );
    assert.equal(tooLarge.status, 413);
    assert.equal(assertDocumentedError(tooLarge, "large body"), "PAYLOAD_TOO_LARGE");
    const wrongType = await exchange(
      server.httpsUrl,
      `${request("POST", "/signup", { "Content-Type": "text/x-nothing", "Content-Length": "2" })}ab`,
    );
    assert.equal(wrongType.status, 415);
    assert.equal(assertDocumentedError(wrongType, "wrong type"), "UNSUPPORTED_MEDIA_TYPE");
  });

  it("says groups, not conditions, when a filter has too many groups", async () => {
    const groups = Array.from({ length: 65 }, (_, index) => `filter[g${index}][group][conjunction]=AND`).join(
      "&",
    );
    const res = await server.get(`/v0/hsr-early-termination-notices?${groups}`, KEY);
    assert.equal(assertDocumentedError(res, "65 groups"), "INVALID_FILTER");
    const detail: string = res.json().errors[0].detail;
    assert.match(detail, /64 filter groups/, detail);
    const conditions = Array.from(
      { length: 65 },
      (_, index) => `filter[c${index}][path]=title&filter[c${index}][value]=x`,
    ).join("&");
    const tooMany = await server.get(`/v0/hsr-early-termination-notices?${conditions}`, KEY);
    assert.match(tooMany.json().errors[0].detail, /64 filter conditions/);
  });
});
