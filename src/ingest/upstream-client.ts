import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { SECONDS_PER_HOUR } from "../domain/time.js";

export interface UpstreamOptions {
  /** The API's base address, such as https://api.ftc.gov (paths such as /v0/dnc-complaints are added). */
  baseUrl: string;
  apiKey: string;
  /** PEM certificate(s) to trust besides the system's, for an upstream with a self-signed certificate. */
  ca?: string;
  /** Accept any certificate (testing only). */
  insecure?: boolean;
  /** Attempts after the first for a 5xx answer or a network error. */
  retries?: number;
  /** First backoff, doubled at each retry (with jitter) up to `maxBackoffSeconds`. */
  backoffSeconds?: number;
  maxBackoffSeconds?: number;
  /** Per-request timeout. */
  timeoutSeconds?: number;
  log?: (line: string) => void;
  /** Stops waits and retries when aborted (SIGTERM). */
  signal?: AbortSignal;
}

/** What the client did besides fetching, for the run's summary. */
export interface UpstreamStats {
  requests: number;
  /** 429 answers waited out. */
  rateLimited: number;
  /** Seconds spent waiting on 429 or pacing. */
  waitedSeconds: number;
  retries: number;
}

/** An answer the mirror cannot continue past (a refused key, a parameter the upstream rejects). */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);
const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
]);

/** Node's codes for a certificate that does not verify: not retried, answered with what to do (`--ca`). */
const CERTIFICATE_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** When Retry-After is absent on a 429: the live gateway's window is an hour, so a minute is modest. */
const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 60;
/** The live gateway counts over an hour and sends no reset time. */
const ASSUMED_WINDOW_SECONDS = SECONDS_PER_HOUR;

/**
 * GETs JSON from an FTC-compatible API with the key in `X-Api-Key` (never in a URL, so it stays out
 * of logs). Waits out 429 for as long as `Retry-After` asks; paces requests once
 * `X-RateLimit-Remaining` runs low, spreading what is left over the time until the window frees
 * up; retries 5xx answers and network errors with exponential backoff and jitter.
 */
export class UpstreamClient {
  readonly stats: UpstreamStats = { requests: 0, rateLimited: 0, waitedSeconds: 0, retries: 0 };
  private readonly base: URL;
  private readonly agent: HttpAgent | HttpsAgent;
  private paceUntilMillis = 0;

  constructor(private readonly options: UpstreamOptions) {
    this.base = new URL(options.baseUrl.replace(/\/+$/, ""));
    if (!["https:", "http:"].includes(this.base.protocol)) {
      throw new UpstreamError(`--upstream must be an https:// URL; got '${options.baseUrl}'`);
    }
    this.agent =
      this.base.protocol === "https:"
        ? new HttpsAgent({ keepAlive: true, ca: options.ca, rejectUnauthorized: !options.insecure })
        : new HttpAgent({ keepAlive: true });
  }

  /** The upstream's address as recorded with mirror progress: no credentials, query or trailing slash. */
  get identity(): string {
    return `${this.base.protocol}//${this.base.host}${this.base.pathname.replace(/\/+$/, "")}`;
  }

  /** GETs `path` with `parameters` and returns the parsed JSON body of a 200 answer. */
  async getJson(path: string, parameters: Record<string, string>): Promise<unknown> {
    const url = new URL(`${this.base.pathname.replace(/\/+$/, "")}${path}`, this.base);
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    const retries = this.options.retries ?? 8;
    let failures = 0;
    for (;;) {
      await this.pace();
      let answer: { status: number; headers: IncomingHttpHeaders; body: string };
      try {
        answer = await this.send(url);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (this.options.signal?.aborted) throw err;
        if (code && CERTIFICATE_CODES.has(code)) throw this.untrusted(url, err as Error);
        if (!(code && NETWORK_CODES.has(code)) && !(err instanceof RequestTimeout)) throw err;
        failures++;
        if (failures > retries)
          throw new UpstreamError(`${describe(url)}: ${code ?? "timeout"} after ${retries} retries`);
        await this.backoff(failures, `${code ?? (err as Error).message}`, url);
        continue;
      }
      this.stats.requests++;
      this.notePacing(answer.headers);
      if (answer.status === 200) {
        try {
          return JSON.parse(answer.body);
        } catch {
          throw new UpstreamError(`${describe(url)}: the answer is not JSON`, 200);
        }
      }
      if (answer.status === 429) {
        const seconds = retryAfterSeconds(answer.headers["retry-after"]) ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS;
        this.stats.rateLimited++;
        this.log(`upstream rate limit reached (429); waiting ${seconds} s as Retry-After asks`);
        await this.wait(seconds);
        continue;
      }
      if (RETRYABLE_STATUS.has(answer.status)) {
        failures++;
        if (failures > retries) {
          throw new UpstreamError(
            `${describe(url)}: ${answer.status} after ${retries} retries`,
            answer.status,
          );
        }
        await this.backoff(
          failures,
          `status ${answer.status}`,
          url,
          retryAfterSeconds(answer.headers["retry-after"]),
        );
        continue;
      }
      throw new UpstreamError(
        `${describe(url)}: the upstream answered ${answer.status}: ${upstreamMessage(answer.body)}`,
        answer.status,
      );
    }
  }

  close(): void {
    this.agent.destroy();
  }

  /**
   * A certificate the client does not trust, in words that say what to do: give the upstream's
   * certificate (or its issuer's) with `--ca`, or, for a test, `--insecure`.
   */
  private untrusted(url: URL, err: Error): UpstreamError {
    const code = (err as NodeJS.ErrnoException).code!;
    const what = code.includes("SELF_SIGNED")
      ? "the upstream's certificate is self-signed"
      : code === "CERT_HAS_EXPIRED"
        ? "the upstream's certificate has expired"
        : code === "ERR_TLS_CERT_ALTNAME_INVALID"
          ? `the upstream's certificate is not for ${this.base.hostname}`
          : "the upstream's certificate is not signed by an authority this machine trusts";
    const todo =
      code === "CERT_HAS_EXPIRED" || code === "ERR_TLS_CERT_ALTNAME_INVALID"
        ? "fix the upstream's certificate, or only for a test pass --insecure"
        : this.options.ca === undefined
          ? "trust it with --ca FILE, a PEM file of the certificate or its issuer's (for another ftcapi, its tls-cert.pem, kept beside its database), or only for a test pass --insecure"
          : "the certificates given with --ca are not the upstream's nor its issuer's: check the file";
    return new UpstreamError(`${describe(url)}: ${what} (${err.message}); ${todo}`);
  }

  private send(url: URL): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const timeoutMillis = (this.options.timeoutSeconds ?? 60) * 1000;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          agent: this.agent,
          headers: {
            "X-Api-Key": this.options.apiKey,
            Accept: "application/json",
            "User-Agent": "ftcapi-mirror",
          },
          signal: this.options.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString("utf8"),
            }),
          );
        },
      );
      req.setTimeout(timeoutMillis, () => req.destroy(new RequestTimeout(timeoutMillis)));
      req.on("error", reject);
      req.end();
    });
  }

  /**
   * Keeps a reserve: once fewer than a tenth of the window's requests remain, each request waits
   * the time until the window frees up (X-RateLimit-Reset, else the gateway's hour) shared among
   * those that remain, so a long run slows down instead of running into 429.
   */
  private notePacing(headers: IncomingHttpHeaders): void {
    const limit = Number(headers["x-ratelimit-limit"]);
    const remaining = Number(headers["x-ratelimit-remaining"]);
    if (!Number.isFinite(limit) || !Number.isFinite(remaining) || limit <= 0) return;
    const reserve = Math.max(1, Math.ceil(limit / 10));
    if (remaining >= reserve) return;
    const reset = Number(headers["x-ratelimit-reset"]);
    const windowSeconds = Number.isFinite(reset) && reset > 0 ? reset : ASSUMED_WINDOW_SECONDS;
    this.paceUntilMillis = Date.now() + (windowSeconds / (remaining + 1)) * 1000;
  }

  private async pace(): Promise<void> {
    const millis = this.paceUntilMillis - Date.now();
    if (millis > 0) await this.wait(millis / 1000);
  }

  private async backoff(failures: number, reason: string, url: URL, retryAfter?: number): Promise<void> {
    this.stats.retries++;
    const base = this.options.backoffSeconds ?? 1;
    const ceiling = this.options.maxBackoffSeconds ?? 60;
    const exponential = Math.min(ceiling, base * 2 ** (failures - 1));
    const seconds = retryAfter ?? exponential * (0.5 + Math.random() / 2);
    this.log(`${describe(url)}: ${reason}; retry ${failures} in ${seconds.toFixed(1)} s`);
    await this.wait(seconds);
  }

  private async wait(seconds: number): Promise<void> {
    this.stats.waitedSeconds += seconds;
    await sleep(seconds * 1000, undefined, { signal: this.options.signal });
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

class RequestTimeout extends Error {
  constructor(millis: number) {
    super(`no answer within ${millis / 1000} s`);
    this.name = "RequestTimeout";
  }
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(
  header: string | string[] | undefined,
  nowMillis = Date.now(),
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMillis) / 1000));
}

/** The path and query of a request, for messages (the key is never in it). */
function describe(url: URL): string {
  return `GET ${url.pathname}${url.search}`;
}

/** The message of a gateway or JSON:API error body, else the body's start. */
function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as {
      error?: { code?: string; message?: string };
      errors?: Array<{ title?: string; detail?: string; code?: string }>;
    };
    if (parsed.error) return `${parsed.error.code ?? ""} ${parsed.error.message ?? ""}`.trim();
    const first = parsed.errors?.[0];
    if (first) return `${first.code ?? first.title ?? ""} ${first.detail ?? ""}`.trim();
  } catch {
    // not JSON: show the text
  }
  return body.slice(0, 200);
}
