import { readFileSync } from "node:fs";
import {
  createServer as createPlainServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerOptions,
  type ServerResponse,
} from "node:http";
import { createServer as createTlsServer, type Server as HttpsServer } from "node:https";
import { Server as NetServer, type Socket } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { answerClientError, MAX_HEADER_BYTES, rawErrorAnswer } from "./error-handler.js";
import { READ_ONLY_ALLOW } from "./gateway-hooks.js";

/** The bounds `serve` puts on connections (config.ts has their defaults and why). */
export interface ConnectionLimits {
  /** Open connections this process accepts, over every listener; past it, new ones are closed at once. */
  readonly maxConnections: number;
  /** The time a TLS handshake, and then each request's headers, may take to arrive. */
  readonly headerTimeoutMs: number;
  /** The time an idle kept-alive connection stays open between requests. */
  readonly keepAliveTimeoutMs: number;
}

/**
 * The time a whole request, body included, may take to arrive (a sign-up's form is the only body
 * the API takes, a few hundred bytes), and so the longest a drain waits for a connection that is
 * still sending one: 30 s, or the header timeout when that is longer. (A request's own work is
 * bounded by the statement budget, --statement-timeout-ms, well within it.)
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Descriptors a process keeps for other than connections: its database files, pools, pipes, stdio. */
const DESCRIPTORS_KEPT = 64;

/** A limit that bites is logged at once, then at most once per this interval, with how often it bit. */
const LIMIT_LOG_INTERVAL_MS = 10_000;

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The connections of one process's listeners (the HTTPS one and the plain one), bounded and
 * drained together:
 *
 * - at most `maxConnections` open at once over both: a new connection past it is closed as soon
 *   as accepted, unanswered (for TLS, before the handshake);
 * - a TLS handshake must finish within `headerTimeoutMs`, and a request's headers must arrive
 *   within `headerTimeoutMs` of the connection or of the previous answer (else 408 REQUEST_TIMEOUT
 *   and closed), its body within REQUEST_TIMEOUT_MS; headers are at most MAX_HEADER_BYTES (else
 *   431); an idle kept-alive connection closes after `keepAliveTimeoutMs` (Node adds one second
 *   to the `Keep-Alive: timeout=N` it advertises, so that a client's next request does not race it);
 * - `drain()` stops accepting and answers every request on a connection already open, each with
 *   `Connection: close`, until every connection has closed.
 *
 * Each limit that bites is logged (warn), once at once and then at most every 10 s with a count,
 * never once per connection. Client errors on the plain listener are answered by
 * `answerClientError`, as Fastify's `clientErrorHandler` answers them on the HTTPS one; a request
 * with an unknown `Expect` is served as any other, and `CONNECT` is answered 405.
 */
export class ServerConnections {
  private readonly servers: NetServer[] = [];
  /** Answers begun before a drain and not yet sent: a drain adds `Connection: close` to them. */
  private readonly unanswered = new Set<ServerResponse>();
  private readonly limitLog: LimitLog;
  private openConnections = 0;
  private draining = false;

  constructor(
    private readonly limits: ConnectionLimits,
    logger: FastifyBaseLogger,
  ) {
    this.limitLog = new LimitLog(logger);
  }

  /** The HTTPS listener, with the bounds above, serving `listener`. */
  createHttpsServer(tls: { cert: string; key: string }, listener: RequestListener): HttpsServer {
    const server = createTlsServer(
      {
        ...this.serverOptions(),
        cert: tls.cert,
        key: tls.key,
        handshakeTimeout: this.limits.headerTimeoutMs,
      },
      this.whileDraining(listener),
    );
    server.on("tlsClientError", (err: NodeJS.ErrnoException) => {
      if (err.code === "ERR_TLS_HANDSHAKE_TIMEOUT")
        this.limitLog.note("handshakeTimeout", "TLS handshakes not finished in time: connections closed", {
          headerTimeoutMs: this.limits.headerTimeoutMs,
        });
    });
    this.watch(server, listener);
    return server;
  }

  /** The plain HTTP listener, with the bounds above, serving `listener`; its client errors answered as the HTTPS listener's. */
  createHttpServer(listener: RequestListener): HttpServer {
    const server = createPlainServer(this.serverOptions(), this.whileDraining(listener));
    server.on("clientError", answerClientError);
    this.watch(server, listener);
    return server;
  }

  /**
   * Stops accepting connections on every listener and resolves once every open connection has
   * closed: requests already on a connection, and those a client sends on one it holds open, are
   * answered with `Connection: close`; idle connections close at the keep-alive timeout, slow ones
   * at the header or request timeout. Past REQUEST_TIMEOUT_MS (or the header timeout, if longer)
   * whatever is still open is closed.
   */
  async drain(): Promise<void> {
    this.draining = true;
    for (const res of this.unanswered) if (!res.headersSent) res.setHeader("Connection", "close");
    const deadline = setTimeout(() => {
      for (const server of this.servers) (server as HttpServer).closeAllConnections();
    }, this.requestTimeoutMs());
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            // net.Server's close, not http's: http's destroys idle kept-alive connections at once,
            // racing requests their clients send in the same moment, and stops checking the header
            // timeout. This one only stops accepting, and calls back once every connection closed.
            NetServer.prototype.close.call(server, () => resolve());
          }),
      ),
    );
    clearTimeout(deadline);
    // Now http's close too, for what it stops besides (its timer checking the header timeout).
    for (const server of this.servers) (server as HttpServer).close();
  }

  private serverOptions(): ServerOptions {
    return {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: this.limits.headerTimeoutMs,
      requestTimeout: this.requestTimeoutMs(),
      keepAliveTimeout: this.limits.keepAliveTimeoutMs,
      // Late headers are found at this interval (Node's default, 30 s, would add up to that to the timeout).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(this.limits.headerTimeoutMs / 4)),
      // HTTP/1.1 without Host is answered 400 in the documented body (build-app.ts), not Node's empty one.
      requireHostHeader: false,
    };
  }

  /** REQUEST_TIMEOUT_MS, or the header timeout when that is longer (Node requires the request's to be the longer). */
  private requestTimeoutMs(): number {
    return Math.max(REQUEST_TIMEOUT_MS, this.limits.headerTimeoutMs);
  }

  /** `listener`, adding `Connection: close` to every answer once draining. */
  private whileDraining(listener: RequestListener): RequestListener {
    return (req, res) => {
      if (this.draining) {
        res.setHeader("Connection", "close");
      } else {
        this.unanswered.add(res);
        res.once("close", () => this.unanswered.delete(res));
      }
      listener(req, res);
    };
  }

  /** The connection limit over every watched listener, the log of timeouts, Expect and CONNECT. */
  private watch(server: HttpServer | HttpsServer, listener: RequestListener): void {
    this.servers.push(server);
    // Before the server's own listener: a connection past the limit is closed before TLS or HTTP sees it.
    server.prependListener("connection", (socket: Socket) => {
      if (this.openConnections >= this.limits.maxConnections) {
        socket.destroy();
        this.limitLog.note("maxConnections", "connection limit reached: new connections closed", {
          maxConnections: this.limits.maxConnections,
        });
        return;
      }
      this.openConnections++;
      socket.once("close", () => this.openConnections--);
    });
    server.on("clientError", (err: NodeJS.ErrnoException) => {
      if (err.code === "ERR_HTTP_REQUEST_TIMEOUT")
        this.limitLog.note("headerTimeout", "requests not received in time: answered 408 and closed", {
          headerTimeoutMs: this.limits.headerTimeoutMs,
        });
      else if (err.code === "HPE_HEADER_OVERFLOW")
        this.limitLog.note("headerSize", "request headers too large: answered 431 and closed", {
          maxHeaderBytes: MAX_HEADER_BYTES,
        });
    });
    // Without a listener Node answers any Expect but 100-continue with an empty 417; HTTP lets a
    // server ignore an expectation it does not know, so such a request is served as any other.
    server.on("checkExpectation", this.whileDraining(listener));
    // Without a listener Node closes a CONNECT unanswered; this API is read-only.
    server.on("connect", (_req: IncomingMessage, socket: Socket) => {
      const refusal = new ApiError("METHOD_NOT_ALLOWED", { vars: { method: "CONNECT" } });
      socket.write(rawErrorAnswer(refusal, { Allow: READ_ONLY_ALLOW }));
      socket.destroy();
    });
  }
}

/**
 * `maxConnections`, lowered when the process's open-file limit (Linux's `/proc/self/limits`;
 * elsewhere unknown, and then left alone) leaves no room for it besides DESCRIPTORS_KEPT, with the
 * warning to print when it was: a connection past the descriptors would fail to be accepted, and
 * every new request with it, instead of being closed by the limit.
 */
export function connectionsWithinFileLimit(
  maxConnections: number,
  openFileLimit: number | undefined = readOpenFileLimit(),
): { maxConnections: number; warning: string | undefined } {
  if (openFileLimit === undefined || maxConnections + DESCRIPTORS_KEPT <= openFileLimit)
    return { maxConnections, warning: undefined };
  const fitting = Math.max(1, openFileLimit - DESCRIPTORS_KEPT);
  return {
    maxConnections: fitting,
    warning: `Warning: the open-file limit (${openFileLimit}) leaves room for ${fitting} connections, not the ${maxConnections} of --max-connections; serving at most ${fitting}. Raise the limit (ulimit -n, systemd LimitNOFILE=) or lower --max-connections.`,
  };
}

/** The soft limit of open files of this process, or undefined where /proc does not say. */
function readOpenFileLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((text) => text.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    return soft === undefined || !/^\d+$/.test(soft) ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * Warnings about limits that bite, rate-limited per limit: the first is logged at once; those in
 * the following LIMIT_LOG_INTERVAL_MS are counted and logged as one line at its end (`count`), and
 * so on while they continue. A flood of refused connections costs a line every 10 s.
 */
class LimitLog {
  private readonly counts = new Map<string, number>();

  constructor(private readonly logger: FastifyBaseLogger) {}

  note(limit: string, message: string, fields: Record<string, number>): void {
    const counted = this.counts.get(limit);
    if (counted !== undefined) {
      this.counts.set(limit, counted + 1);
      return;
    }
    this.logger.warn({ ...fields, limit, count: 1 }, message);
    this.counts.set(limit, 0);
    const flush = () => {
      const count = this.counts.get(limit) ?? 0;
      if (count === 0) {
        this.counts.delete(limit);
        return;
      }
      this.logger.warn({ ...fields, limit, count, intervalMs: LIMIT_LOG_INTERVAL_MS }, message);
      this.counts.set(limit, 0);
      setTimeout(flush, LIMIT_LOG_INTERVAL_MS).unref();
    };
    setTimeout(flush, LIMIT_LOG_INTERVAL_MS).unref();
  }
}
