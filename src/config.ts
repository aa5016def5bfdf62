import { parseDate } from "./domain/date-time.js";

/**
 * The one place that reads the environment. Each command turns its flags, then `FTCAPI_*`
 * variables, then defaults into a frozen, typed config, failing fast on a bad value.
 */

export const DEFAULT_DB_PATH = "data/ftcapi.db";

/**
 * `serve`'s default budget per PostgreSQL statement. ftcapi's queries take 1 to 20 ms, the slowest
 * shapes a few hundred at p99 on 20 million complaints (docs/performance.md): 2 s leaves them ten
 * times their worst while a hung database is answered 503 within 3 s (budget plus the 1 s reply
 * margin, store/database.ts), before clients and balancers (nginx's default 60 s) give up themselves.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 2000;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Environment = Readonly<Record<string, string | undefined>>;

export interface DatabaseConfig {
  readonly db: string;
}

export interface ServeConfig extends DatabaseConfig {
  /** A PostgreSQL read replica for the API's reads; writes (keys, counters) stay on `db`. */
  readonly dbReadUrl: string | undefined;
  readonly host: string;
  /** HTTPS port. */
  readonly port: number;
  /** Plain HTTP port, answering HTTPS_REQUIRED unless a trusted proxy says the client used HTTPS. */
  readonly httpPort: number;
  readonly tlsCert: string | undefined;
  readonly tlsKey: string | undefined;
  readonly trustProxy: boolean;
  /** Public address used in links, without a trailing slash; undefined: the request's own. */
  readonly baseUrl: string | undefined;
  /** Load the deterministic demo dataset on first run (npm start). */
  readonly demo: boolean;
  readonly logLevel: string;
  /** The key-hashing secret; undefined: the one made on first run and kept in the database. */
  readonly keySecret: string | undefined;
  /** Worker processes sharing the ports (node:cluster); 1 runs in this process. */
  readonly workers: number;
  /** Limit for keys without their own. */
  readonly rateLimitPerHour: number;
  /** The rolling window of keys' limits: 3600 (an hour); shorter only to test clients' handling of 429. */
  readonly rateLimitWindowSeconds: number;
  /** False switches API rate limits off (sign-up stays limited). */
  readonly rateLimits: boolean;
  readonly demoLimitPerHour: number;
  readonly demoLimitPerDay: number;
  readonly signupLimitPerHour: number;
  /**
   * The time budget of each PostgreSQL statement a request makes; a statement past it is cancelled
   * and the request answered 503 (store/database.ts). Not applied to migrations or the demo load.
   */
  readonly statementTimeoutMs: number;
}

export interface RawServeOptions {
  dbReadUrl?: string;
  keySecret?: string;
  workers?: string;
  rateLimitPerHour?: string;
  rateLimitWindowSeconds?: string;
  disableRateLimits?: boolean;
  demoLimitPerHour?: string;
  demoLimitPerDay?: string;
  signupLimitPerHour?: string;
  statementTimeoutMs?: string;
  db?: string;
  host?: string;
  port?: string;
  httpPort?: string;
  tlsCert?: string;
  tlsKey?: string;
  trustProxy?: boolean;
  baseUrl?: string;
  demo?: boolean;
  logLevel?: string;
}

/** `--db`, else `FTCAPI_DB`, else data/ftcapi.db: a SQLite file path or a `postgres://` URL. */
export function databaseConfig(flags: { db?: string }, env: Environment = process.env): DatabaseConfig {
  const db = flags.db ?? env.FTCAPI_DB ?? DEFAULT_DB_PATH;
  if (db.trim() === "") throw new ConfigError("--db must name a SQLite file or a postgres:// URL");
  return Object.freeze({ db });
}

export function serveConfig(flags: RawServeOptions, env: Environment = process.env): ServeConfig {
  const tlsCert = flags.tlsCert ?? env.FTCAPI_TLS_CERT;
  const tlsKey = flags.tlsKey ?? env.FTCAPI_TLS_KEY;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new ConfigError("--tls-cert and --tls-key go together: give both or neither");
  }
  const baseUrl = flags.baseUrl ?? env.FTCAPI_BASE_URL;
  if (baseUrl !== undefined && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(baseUrl)) {
    throw new ConfigError(`--base-url must be an absolute http(s) URL; got '${baseUrl}'`);
  }
  const database = databaseConfig(flags, env);
  const dbReadUrl = flags.dbReadUrl ?? env.FTCAPI_DB_READ_URL;
  if (dbReadUrl !== undefined && !(isPostgres(dbReadUrl) && isPostgres(database.db))) {
    throw new ConfigError("--db-read-url is a postgres:// URL of a replica of the PostgreSQL --db");
  }
  return Object.freeze({
    ...database,
    dbReadUrl,
    host: flags.host ?? env.FTCAPI_HOST ?? "0.0.0.0",
    port: port("--port", flags.port ?? env.FTCAPI_PORT ?? "8443"),
    httpPort: port("--http-port", flags.httpPort ?? env.FTCAPI_HTTP_PORT ?? "8080"),
    tlsCert,
    tlsKey,
    trustProxy: flags.trustProxy ?? booleanVariable("FTCAPI_TRUST_PROXY", env.FTCAPI_TRUST_PROXY),
    baseUrl: baseUrl?.replace(/\/+$/, ""),
    demo: flags.demo ?? booleanVariable("FTCAPI_DEMO", env.FTCAPI_DEMO),
    logLevel: flags.logLevel ?? env.FTCAPI_LOG_LEVEL ?? "info",
    keySecret: keySecretConfig(flags, env),
    workers: count("--workers", flags.workers ?? env.FTCAPI_WORKERS ?? "1", 1),
    rateLimitPerHour: count(
      "--rate-limit-per-hour",
      flags.rateLimitPerHour ?? env.FTCAPI_RATE_LIMIT_PER_HOUR ?? "1000",
      1,
    ),
    rateLimitWindowSeconds: count(
      "--rate-limit-window-seconds",
      flags.rateLimitWindowSeconds ?? env.FTCAPI_RATE_LIMIT_WINDOW_SECONDS ?? "3600",
      1,
    ),
    rateLimits: !(
      flags.disableRateLimits ?? booleanVariable("FTCAPI_DISABLE_RATE_LIMITS", env.FTCAPI_DISABLE_RATE_LIMITS)
    ),
    demoLimitPerHour: count(
      "--demo-limit-per-hour",
      flags.demoLimitPerHour ?? env.FTCAPI_DEMO_LIMIT_PER_HOUR ?? "30",
      1,
    ),
    demoLimitPerDay: count(
      "--demo-limit-per-day",
      flags.demoLimitPerDay ?? env.FTCAPI_DEMO_LIMIT_PER_DAY ?? "50",
      1,
    ),
    signupLimitPerHour: count(
      "--signup-limit-per-hour",
      flags.signupLimitPerHour ?? env.FTCAPI_SIGNUP_LIMIT_PER_HOUR ?? "5",
      1,
    ),
    // At least 100 ms: below that, ordinary queries on a busy server would be cancelled.
    statementTimeoutMs: count(
      "--statement-timeout-ms",
      flags.statementTimeoutMs ?? env.FTCAPI_STATEMENT_TIMEOUT_MS ?? String(DEFAULT_STATEMENT_TIMEOUT_MS),
      100,
    ),
  });
}

/** `--key-secret`, else `FTCAPI_KEY_SECRET`, else undefined (the database keeps one made on first run). */
export function keySecretConfig(
  flags: { keySecret?: string },
  env: Environment = process.env,
): string | undefined {
  const secret = flags.keySecret ?? env.FTCAPI_KEY_SECRET;
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError("--key-secret must be at least 32 characters (it keys the HMAC of every API key)");
  }
  return secret;
}

function count(name: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < minimum || !Number.isSafeInteger(value)) {
    throw new ConfigError(`${name} must be a whole number, at least ${minimum}; got '${text}'`);
  }
  return value;
}

function isPostgres(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

function port(name: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65535)
    throw new ConfigError(`${name} must be a port number 0-65535; got '${text}'`);
  return value;
}

function booleanVariable(name: string, text: string | undefined): boolean {
  if (text === undefined || text === "") return false;
  if (["1", "true", "yes"].includes(text.toLowerCase())) return true;
  if (["0", "false", "no"].includes(text.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false; got '${text}'`);
}

export type MirrorCollection = "dnc" | "notices" | "all";

export interface MirrorConfig extends DatabaseConfig {
  /** The upstream API's base address, such as https://api.ftc.gov. */
  readonly upstream: string;
  readonly apiKey: string;
  readonly collection: MirrorCollection;
  /** First created date to copy, `YYYY-MM-DD`, or undefined: from the upstream's oldest. */
  readonly since: string | undefined;
  readonly follow: boolean;
  /** Minutes after a scheduled publication before --follow mirrors it. */
  readonly followMarginMinutes: number;
  /** A PEM file of certificates to trust for the upstream. */
  readonly caFile: string | undefined;
  readonly insecure: boolean;
  readonly retries: number;
}

export interface RawMirrorOptions {
  db?: string;
  upstream?: string;
  apiKey?: string;
  collection?: string;
  since?: string;
  follow?: boolean;
  followMarginMinutes?: string;
  ca?: string;
  insecure?: boolean;
  retries?: string;
}

/** `ftcapi mirror`: the upstream and its key (`--api-key`, else FTCAPI_UPSTREAM_API_KEY, which keeps it out of process lists). */
export function mirrorConfig(flags: RawMirrorOptions, env: Environment = process.env): MirrorConfig {
  const upstream = flags.upstream ?? env.FTCAPI_UPSTREAM;
  if (upstream === undefined || !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(upstream)) {
    throw new ConfigError(
      `--upstream must be the API's https:// address, such as https://api.ftc.gov [env FTCAPI_UPSTREAM]; got '${upstream ?? ""}'`,
    );
  }
  const apiKey = flags.apiKey ?? env.FTCAPI_UPSTREAM_API_KEY;
  if (apiKey === undefined || apiKey.trim() === "") {
    throw new ConfigError("--api-key (or FTCAPI_UPSTREAM_API_KEY) must give a key for the upstream");
  }
  const collection = flags.collection ?? "all";
  if (!["dnc", "notices", "all"].includes(collection)) {
    throw new ConfigError(`--collection must be dnc, notices or all; got '${collection}'`);
  }
  const since = flags.since;
  if (since !== undefined && parseDate(since) === null) {
    throw new ConfigError(`--since must be a date as YYYY-MM-DD; got '${since}'`);
  }
  if (flags.ca !== undefined && flags.insecure) {
    throw new ConfigError("--ca and --insecure exclude each other: trust the upstream's certificate, or any");
  }
  return Object.freeze({
    ...databaseConfig(flags, env),
    upstream: upstream.replace(/\/+$/, ""),
    apiKey,
    collection: collection as MirrorCollection,
    since,
    follow: flags.follow ?? false,
    followMarginMinutes: count("--follow-margin-minutes", flags.followMarginMinutes ?? "30", 0),
    caFile: flags.ca,
    insecure: flags.insecure ?? false,
    retries: count("--retries", flags.retries ?? "8", 0),
  });
}
