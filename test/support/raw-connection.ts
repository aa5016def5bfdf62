import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { assertAnswerMatchesContract, pathOfTarget } from "./openapi-contract.js";

/** One HTTP/1.1 answer read off a connection. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** How a connection ended: what it had received, and when. */
export interface RawEnding {
  /** Everything the server sent, as text. */
  text: string;
  /** Milliseconds from the moment the connection was opened (TLS: handshake done) until it closed. */
  elapsedMs: number;
}

/**
 * One client connection over a real socket, for tests of what the server does with connections
 * themselves: idle ones, trickled headers, raw TCP that never starts TLS, several requests kept
 * alive on one connection. Nothing is retried and nothing reconnects: a request on a connection the
 * server closed fails, as it would for any client.
 */
export class RawConnection {
  private received = "";
  private openedAt = performance.now();
  private waiting: (() => void) | undefined;
  /** Set once the server closed the connection (or it failed). */
  private ended = false;
  /** Resolves when the connection closes, with what it received. */
  readonly closed: Promise<RawEnding>;

  private constructor(readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.received += chunk;
      this.waiting?.();
    });
    socket.on("error", () => {});
    this.closed = new Promise((resolve) => {
      socket.on("close", () => {
        this.ended = true;
        this.waiting?.();
        resolve({ text: this.received, elapsedMs: performance.now() - this.openedAt });
      });
    });
  }

  /**
   * Opens a connection to `origin` (`https://` or `http://`). `tls: false` opens plain TCP to an
   * `https://` port and never starts TLS. Resolves once connected (TLS: once the handshake is done);
   * rejects when the server closes the connection first.
   */
  static open(origin: string, options: { ca?: string; tls?: boolean } = {}): Promise<RawConnection> {
    const url = new URL(origin);
    const port = Number(url.port);
    const useTls = url.protocol === "https:" && options.tls !== false;
    const socket = useTls
      ? tlsConnect({ host: url.hostname, port, ca: options.ca })
      : netConnect({ host: url.hostname, port });
    const connection = new RawConnection(socket);
    return new Promise((resolve, reject) => {
      socket.once(useTls ? "secureConnect" : "connect", () => {
        connection.openedAt = performance.now();
        resolve(connection);
      });
      socket.once("close", () => reject(new Error(`${origin}: the connection closed before it opened`)));
    });
  }

  /**
   * Sends `text` exactly as given (any bytes, well-formed HTTP or not) on a new connection and
   * reads the first answer once the server closes it, which it must: send `Connection: close` or
   * HTTP/1.0 when the request itself is well-formed. Rejects when nothing came back in 10 s.
   */
  static async exchange(origin: string, text: string, options: { ca?: string } = {}): Promise<RawAnswer> {
    const connection = await RawConnection.open(origin, options);
    connection.write(text);
    const timer = setTimeout(() => connection.destroy(), 10_000);
    const ending = await connection.closed;
    clearTimeout(timer);
    return parseAnswer(ending.text, text);
  }

  /** Writes text as it is (part of a request, for trickling). */
  write(text: string): void {
    this.socket.write(text);
  }

  /**
   * Sends a GET for `path` (Host from `origin`, `headers` added) and reads its answer, which must
   * carry a Content-Length. Rejects when the connection closes before the whole answer arrived.
   */
  async request(origin: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
    if (this.ended) throw new Error(`GET ${path}: the connection was already closed`);
    const lines = Object.entries({ Host: new URL(origin).host, ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    this.socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`);
    for (;;) {
      const answer = this.takeAnswer();
      if (answer) {
        // Checked against the OpenAPI document when `origin` is a server from startTestServer.
        assertAnswerMatchesContract(origin, { method: "GET", path: pathOfTarget(path), ...answer });
        return answer;
      }
      if (this.ended)
        throw new Error(
          `GET ${path}: the connection closed before the answer (${this.received.length} bytes)`,
        );
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = undefined;
    }
  }

  /** Closes the connection from this side. */
  destroy(): void {
    this.socket.destroy();
  }

  /** The first complete answer received, removed from what is kept; undefined while incomplete. */
  private takeAnswer(): RawAnswer | undefined {
    const split = this.received.indexOf("\r\n\r\n");
    if (split === -1) return undefined;
    const [statusLine, ...lines] = this.received.slice(0, split).split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    const bodyStart = split + 4;
    if (Buffer.byteLength(this.received.slice(bodyStart)) < length) return undefined;
    const rest = Buffer.from(this.received.slice(bodyStart));
    const body = rest.subarray(0, length).toString("utf8");
    this.received = rest.subarray(length).toString("utf8");
    return { status: Number(statusLine!.split(" ")[1]), headers, body };
  }
}

/** The first answer in `text`, whose body runs to its Content-Length, through its chunks, or to the end. */
function parseAnswer(text: string, sent: string): RawAnswer {
  const split = text.indexOf("\r\n\r\n");
  if (split === -1)
    throw new Error(`no answer to ${JSON.stringify(sent.slice(0, 120))}: ${JSON.stringify(text)}`);
  const [statusLine, ...lines] = text.slice(0, split).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = Buffer.from(text.slice(split + 4));
  let body: string;
  if (headers["content-length"] !== undefined) {
    body = rest.subarray(0, Number(headers["content-length"])).toString("utf8");
  } else if (headers["transfer-encoding"] === "chunked") {
    body = "";
    let chunks = rest.toString("utf8");
    for (;;) {
      const lineEnd = chunks.indexOf("\r\n");
      const size = Number.parseInt(chunks.slice(0, lineEnd), 16);
      if (!size) break;
      body += chunks.slice(lineEnd + 2, lineEnd + 2 + size);
      chunks = chunks.slice(lineEnd + 2 + size + 2);
    }
  } else {
    body = rest.toString("utf8");
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, body };
}
