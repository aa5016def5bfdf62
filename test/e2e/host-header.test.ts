/**
 * The Host header (issue 16, item 8). Without `--base-url`, links name the Host each request sends,
 * so `serve` warns at start that production needs `--base-url`; a Host that is not a host name
 * (or port) is refused with 400 BAD_REQUEST, as HTTP asks, instead of being echoed into links; an
 * HTTP/1.0 request without Host gets links on the address it reached, never `https:///`. With
 * `--base-url`, no Host ever reaches an answer.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { assertDocumentedError } from "../support/documented-error.js";
import { RawConnection } from "../support/raw-connection.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const KEY_HEADER = "X-Api-Key: DEMO_KEY\r\n";

/** A GET of `/v0/status` with exactly the header lines given (no Host unless among them). */
function statusRequest(version: "1.0" | "1.1", lines: string): string {
  return `GET /v0/status HTTP/${version}\r\n${KEY_HEADER}${lines}Connection: close\r\n\r\n`;
}

async function startServe(...extra: string[]): Promise<{ server: ServeProcess; ca: string }> {
  const db = join(await makeTempDirectory(), "ftcapi.db");
  const server = await startServeProcess(localServeFlags(db, "--disable-rate-limits", ...extra));
  return { server, ca: await readFile(server.certPath!, "utf8") };
}

describe("the Host header, without --base-url", () => {
  let server: ServeProcess;
  let ca: string;
  before(async () => {
    ({ server, ca } = await startServe());
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0);
  });

  it("warns at start that production needs --base-url", () => {
    assert.match(server.output(), /Warning: no --base-url/);
  });

  it("answers HTTP/1.0 without Host with links on the address the request reached", async () => {
    const answer = await RawConnection.exchange(server.httpsUrl, statusRequest("1.0", ""), { ca });
    assert.equal(answer.status, 200, answer.body);
    assert.equal(JSON.parse(answer.body).links.self, `${server.httpsUrl}/v0/status`);
    const plain = await RawConnection.exchange(server.httpUrl, statusRequest("1.0", ""));
    assert.equal(assertDocumentedError(plain, "plain HTTP/1.0"), "HTTPS_REQUIRED");
    assert.match(JSON.parse(plain.body).error.message, new RegExp(`${server.httpsUrl}/v0/status$`));
  });

  it("names a valid Host in links, as documented", async () => {
    const answer = await RawConnection.exchange(
      server.httpsUrl,
      statusRequest("1.1", "Host: api.example.org:8443\r\n"),
      { ca },
    );
    assert.equal(JSON.parse(answer.body).links.self, "https://api.example.org:8443/v0/status");
  });

  it("refuses a Host that is not a host name, or two of them, with 400 BAD_REQUEST", async () => {
    const hosts = [
      "Host: evil.example/phish?x=\r\n",
      "Host: a b\r\n",
      'Host: a"b\r\n',
      "Host: user@evil.example\r\n",
      "Host: evil.example:port\r\n",
      "Host: one.example\r\nHost: two.example\r\n",
    ];
    for (const [name, origin] of [
      ["HTTPS", server.httpsUrl],
      ["plain HTTP", server.httpUrl],
    ] as const) {
      for (const host of hosts) {
        const answer = await RawConnection.exchange(origin, statusRequest("1.1", host), { ca });
        const what = `${name} ${JSON.stringify(host)}`;
        assert.equal(answer.status, 400, what);
        assert.equal(assertDocumentedError(answer, what), "BAD_REQUEST");
        assert.ok(!answer.body.includes("evil.example"), `${what}: echoed ${answer.body}`);
      }
    }
  });
});

describe("the Host header, with --base-url", () => {
  let server: ServeProcess;
  let ca: string;
  before(async () => {
    ({ server, ca } = await startServe("--base-url", "https://api.example.gov"));
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0);
  });

  it("does not warn, and links name the base URL whatever the Host, or without one", async () => {
    assert.doesNotMatch(server.output(), /--base-url/);
    for (const [version, host] of [
      ["1.1", "Host: evil.example\r\n"],
      ["1.0", ""],
    ] as const) {
      const answer = await RawConnection.exchange(server.httpsUrl, statusRequest(version, host), { ca });
      assert.equal(JSON.parse(answer.body).links.self, "https://api.example.gov/v0/status", answer.body);
    }
  });
});
