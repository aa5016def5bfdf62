/**
 * Connections are bounded (issue 16, item 5): a process holds at most `--max-connections` open
 * connections over both listeners and closes new ones at once past it; the TLS handshake and each
 * request's headers must arrive within `--header-timeout-ms` (else 408 in the documented error
 * body, or for a handshake, closed); an idle kept-alive connection closes after
 * `--keep-alive-timeout-ms`. Each limit, when it bites, is logged, and not once per connection.
 * Run on a real `ftcapi serve` with small limits, over real sockets.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { eventually } from "../support/eventually.js";
import { fetchRaw } from "../support/https-client.js";
import { RawConnection } from "../support/raw-connection.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const MAX_CONNECTIONS = 4;
/** Long enough that four connections open and ten more are refused well within it on a loaded machine. */
const HEADER_TIMEOUT_MS = 2000;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
/** Node closes a kept-alive connection one second after the timeout it advertises. */
const KEEP_ALIVE_MARGIN_MS = 1000;
/** What a loaded test machine may add to a timer; far below the defaults Node would apply (60 s to 120 s). */
const SLACK_MS = 2500;

/** The JSON log lines (pino) the server wrote whose message matches `pattern`. */
function logLines(server: ServeProcess, pattern: RegExp): Array<Record<string, unknown>> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => pattern.test(String(line.msg)));
}

/** True when a new connection to `origin` is closed at once, before it could carry a request. */
async function refused(origin: string, ca: string): Promise<boolean> {
  let connection: RawConnection;
  try {
    connection = await RawConnection.open(origin, { ca });
  } catch {
    return true; // TLS: closed before the handshake finished
  }
  // Plain TCP connects before the server accepts; a refused one is closed right after, unanswered.
  const ending = await Promise.race([connection.closed, sleep(1000).then(() => undefined)]);
  connection.destroy();
  return ending !== undefined && ending.text === "";
}

/** The documented gateway error body, `{"error":{"code","message"}}`, of a raw answer's text. */
function gatewayError(text: string): { status: number; code: string } {
  const status = Number(text.slice(0, text.indexOf("\r\n")).split(" ")[1]);
  const head = text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase();
  assert.match(head, /content-type: application\/json/, text);
  const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
  assert.deepEqual(Object.keys(body), ["error"], text);
  assert.deepEqual(Object.keys(body.error), ["code", "message"], text);
  return { status, code: body.error.code };
}

describe("connection limits and timeouts (a real process, real sockets)", () => {
  let server: ServeProcess;
  let ca: string;

  before(async () => {
    const db = join(await makeTempDirectory(), "ftcapi.db");
    server = await startServeProcess(
      localServeFlags(
        db,
        "--max-connections",
        String(MAX_CONNECTIONS),
        "--header-timeout-ms",
        String(HEADER_TIMEOUT_MS),
        "--keep-alive-timeout-ms",
        String(KEEP_ALIVE_TIMEOUT_MS),
        "--disable-rate-limits",
      ),
    );
    ca = await readFile(server.certPath!, "utf8");
  });
  after(async () => {
    if (server) assert.equal(await server.stop(), 0, server.output());
  });

  it("refuses connections past --max-connections on both listeners, logs it once, and serves again once idle ones time out", async () => {
    // The limit is the process's, over both listeners: two idle TLS and two idle plain connections fill it.
    const openedAt = performance.now();
    const idle = await Promise.all([
      RawConnection.open(server.httpsUrl, { ca }),
      RawConnection.open(server.httpsUrl, { ca }),
      RawConnection.open(server.httpUrl),
      RawConnection.open(server.httpUrl),
    ]);
    for (let attempt = 0; attempt < 5; attempt++) {
      assert.ok(await refused(server.httpsUrl, ca), `HTTPS connection ${attempt} past the limit was kept`);
      assert.ok(await refused(server.httpUrl, ca), `plain connection ${attempt} past the limit was kept`);
    }
    // Refused by the limit, not let in because an idle one had already timed out.
    const refusingMs = performance.now() - openedAt;
    assert.ok(refusingMs < HEADER_TIMEOUT_MS, `the machine took ${refusingMs} ms to open and refuse`);
    // Ten refusals, one line at once (the rest are counted into a later summary, not logged each).
    const limitLines = await eventually(async () => {
      const lines = logLines(server, /connection limit/i);
      assert.ok(lines.length > 0, `no log line about the connection limit:\n${server.output()}`);
      return lines;
    }, 5000);
    assert.equal(limitLines.length, 1, JSON.stringify(limitLines));
    assert.equal(limitLines[0]!.maxConnections, MAX_CONNECTIONS);

    // Idle connections that never send a request are answered 408 and closed by the header timeout.
    for (const connection of idle) {
      const ending = await connection.closed;
      assert.ok(ending.elapsedMs >= HEADER_TIMEOUT_MS - 100, `closed after ${ending.elapsedMs} ms`);
      assert.ok(ending.elapsedMs < HEADER_TIMEOUT_MS + SLACK_MS, `closed after ${ending.elapsedMs} ms`);
      assert.deepEqual(gatewayError(ending.text), { status: 408, code: "REQUEST_TIMEOUT" });
    }
    // Their slots are free again: a new client is served. The server counts a slot free on its own
    // socket's close, which can follow this side's by a turn of its loop: a connection opened in
    // between is still refused, so the check is retried for a moment rather than run once.
    const res = await eventually(
      () => fetchRaw(`${server.httpsUrl}/v0/status`, { ca, headers: { "X-Api-Key": "DEMO_KEY" } }),
      3000,
      100,
    );
    assert.equal(res.status, 200, res.body);
    assert.ok(logLines(server, /in time/i).length > 0, "the header timeout biting is logged");
  });

  it("closes a raw TCP connection that never starts TLS within the header timeout, and logs it", async () => {
    const connection = await RawConnection.open(server.httpsUrl, { tls: false });
    const ending = await connection.closed;
    assert.ok(ending.elapsedMs < HEADER_TIMEOUT_MS + SLACK_MS, `closed after ${ending.elapsedMs} ms`);
    assert.equal(ending.text, "");
    await eventually(
      async () => assert.ok(logLines(server, /TLS handshake/i).length > 0, server.output()),
      5000,
    );
  });

  it("answers 408 to headers trickled past the header timeout, on either listener", async () => {
    for (const origin of [server.httpsUrl, server.httpUrl]) {
      const connection = await RawConnection.open(origin, { ca });
      connection.write("GET /v0/status HTTP/1.1\r\nHost: localhost\r\n");
      const trickle = setInterval(() => connection.write("X-Slow: 1\r\n"), 100);
      const ending = await connection.closed;
      clearInterval(trickle);
      assert.ok(
        ending.elapsedMs < HEADER_TIMEOUT_MS + SLACK_MS,
        `${origin}: closed after ${ending.elapsedMs} ms`,
      );
      assert.deepEqual(gatewayError(ending.text), { status: 408, code: "REQUEST_TIMEOUT" });
    }
  });

  it("closes a kept-alive connection idle past the keep-alive timeout, and advertises it", async () => {
    const connection = await RawConnection.open(server.httpsUrl, { ca });
    const answer = await connection.request(server.httpsUrl, "/health/live");
    const answeredAt = performance.now();
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["keep-alive"], `timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
    // A second request within the timeout uses the same connection.
    await sleep(KEEP_ALIVE_TIMEOUT_MS / 4);
    assert.equal((await connection.request(server.httpsUrl, "/health/live")).status, 200);
    const secondAt = performance.now();
    await connection.closed;
    const idleMs = performance.now() - secondAt;
    assert.ok(secondAt > answeredAt);
    assert.ok(idleMs >= KEEP_ALIVE_TIMEOUT_MS - 100, `closed after ${idleMs} ms idle`);
    assert.ok(
      idleMs < KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_MARGIN_MS + SLACK_MS,
      `closed after ${idleMs} ms idle`,
    );
  });
});
