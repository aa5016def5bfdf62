/**
 * Mistakes a new API user meets (issue 17, item 5): the sign-up page's example request works as
 * copied (the server's absolute address, `--cacert` with the self-signed certificate; run here with
 * the real curl), and a 429 says what the limit is and when it resets, in the live gateway's body
 * and code, instead of sending people to /signup "to contact us".
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { fetchRaw, type TestResponse } from "../support/https-client.js";
import { VALID_SIGNUP } from "../support/signup-fields.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const HTML_ESCAPES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

/** The sign-up page's example request, as the browser shows it. */
function exampleRequest(res: TestResponse): string {
  const html = /<pre id="example-request">([^<]*)<\/pre>/.exec(res.body)?.[1];
  assert.ok(html, `an example request on the page:\n${res.body}`);
  return html.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => HTML_ESCAPES[entity]!);
}

const curlAvailable = spawnSync("curl", ["--version"]).status === 0;

describe("the sign-up page's example request and the 429 message", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      trustProxy: true,
      demoLimitPerHour: "2",
      demoLimitPerDay: "10",
      signupLimitPerHour: "2",
    });
  });
  after(() => server?.stop());

  const signup = (base: string, headers: Record<string, string>, json = false) =>
    fetchRaw(`${base}/signup`, {
      method: "POST",
      ca: server.ca,
      body: json
        ? JSON.stringify({ ...VALID_SIGNUP, terms_and_conditions: true })
        : new URLSearchParams(VALID_SIGNUP).toString(),
      headers: {
        "Content-Type": json ? "application/json" : "application/x-www-form-urlencoded",
        ...headers,
      },
    });

  it("over the self-signed HTTPS listener: an absolute address and --cacert, and the command works as copied", {
    skip: curlAvailable ? false : "curl is not installed: the command is checked but not run",
  }, async () => {
    const res = await signup(server.httpsUrl, { "X-Forwarded-For": "192.0.2.30" });
    assert.equal(res.status, 201, res.body);
    const command = exampleRequest(res);
    const key = /id="api-key" class="key">([A-Za-z0-9]{40})</.exec(res.body)?.[1];
    const cert = `${server.directory}/tls-cert.pem`;
    assert.equal(
      command,
      `curl --cacert ${cert} -H 'X-Api-Key: ${key}' '${server.httpsUrl}/v0/dnc-complaints?items_per_page=5'`,
    );
    // Asynchronously: the server runs in this process.
    const { stdout } = await promisify(execFile)("sh", ["-c", `${command} --silent --show-error --fail`]);
    const answer = JSON.parse(stdout);
    assert.ok(Array.isArray(answer.data), "the copied command gets the complaints");
  });

  it("behind a proxy with its own certificate (plain listener, X-Forwarded-Proto: https): the proxy's address, no --cacert", async () => {
    const res = await signup(server.httpUrl, {
      "X-Forwarded-Proto": "https",
      "X-Forwarded-Host": "api.example.gov",
      "X-Forwarded-For": "192.0.2.31",
    });
    assert.equal(res.status, 201, res.body);
    const command = exampleRequest(res);
    assert.match(
      command,
      /^curl -H 'X-Api-Key: [A-Za-z0-9]{40}' 'https:\/\/api\.example\.gov\/v0\/dnc-complaints\?items_per_page=5'$/,
    );
  });

  /** The gateway body of a 429: its code as the live gateway sends it, a message with the limit and the reset. */
  function assertOverLimit(res: TestResponse, limit: string, window: string): void {
    assert.equal(res.status, 429, res.body);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ["error"]);
    assert.deepEqual(Object.keys(body.error), ["code", "message"]);
    assert.equal(body.error.code, "OVER_RATE_LIMIT");
    const retryAfter = Number(res.headers["retry-after"]);
    assert.ok(retryAfter > 0, "Retry-After in seconds");
    assert.match(
      body.error.message,
      new RegExp(`^You have exceeded your rate limit of ${limit} per ${window}\\. `),
    );
    assert.ok(body.error.message.includes(`resets in ${retryAfter} seconds`), body.error.message);
    assert.doesNotMatch(body.error.message, /contact us|\/signup/);
  }

  it("an API key over its limit: 429 OVER_RATE_LIMIT saying the limit and when it resets", async () => {
    const headers = { "X-Api-Key": "DEMO_KEY" };
    for (let index = 0; index < 2; index++)
      assert.equal((await server.get("/v0/dnc-complaints?items_per_page=1", headers)).status, 200);
    assertOverLimit(await server.get("/v0/dnc-complaints?items_per_page=1", headers), "2 requests", "hour");
  });

  it("sign-up (JSON) over its limit: the same body, with the sign-up limit", async () => {
    const address = { "X-Forwarded-For": "192.0.2.32" };
    for (let index = 0; index < 2; index++)
      assert.equal((await signup(server.httpsUrl, address, true)).status, 201);
    assertOverLimit(await signup(server.httpsUrl, address, true), "2 requests", "hour");
  });
});
