import { parseDate } from "./domain/time.js";

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

/**
 * `serve`'s default limit of open connections per process (over the HTTPS and plain listeners
 * together; each worker has its own). Idle kept-alive connections cost a descriptor and some
 * memory each (a TLS one a few tens of KB), and the timeouts below free a slot within seconds, so
 * 1,000 is far more than one process serves at once while it bounds what idle or slow clients can
 * hold. The server lowers it, warning, when the open-file limit leaves no room for it (see
 * http/server-connections.ts).
 */
export const DEFAULT_MAX_CONNECTIONS = 1000;

/**
 * `serve`'s default time for a TLS handshake, and then for a request's headers, to arrive: 10 s.
 * A client on a poor mobile link completes both in well under two seconds; what takes longer is
 * a connection held open on purpose (Node's own defaults, 120 s for a handshake and 60 s for
 * headers, let idle sockets pile up; nginx waits 60 s, HAProxy's usual `timeout http-request` is 10 s).
 */
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;

/**
 * `serve`'s default time an idle kept-alive connection stays open between requests: 5 s, Node's and
 * Apache's default. A client paging through a collection sends its next request within
 * milliseconds and keeps its connection; an idle one frees its slot soon. A proxy in front that keeps
 * connections to ftcapi must close idle ones sooner (docs/deployment.md).
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5000;

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
  /**
   * Ignore query parameters the API does not take (as the live service does), naming them in the
   * answer's `Ignored-Parameters` header, instead of refusing them with 400 UNKNOWN_PARAMETER.
   */
  readonly ignoreUnknownParameters: boolean;
  /** Public address used in links, without a trailing slash; undefined: the request's own. */
  readonly baseUrl: string | undefined;
  /** Load the deterministic demo dataset on first run (npm start). */
  readonly demo: boolean;
  readonly logLevel: string;
  /** The key-hashing secret; undefined: the one made on first run and kept in the database. */
  readonly keySecret: string | undefined;
  /** Worker processes sharing the ports (node:cluster); 1 runs in this process. */
  readonly workers: number;
  /**
   * The C allocator's arena limit this process was started with (`MALLOC_ARENA_MAX`), which
   * workers inherit; undefined: not set, and workers get the serving default (`SERVE_ENVIRONMENT`).
   */
  readonly mallocArenaMax: string | undefined;
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
  /**
   * SQLite: threads that run the selects of each process off its event loop, one of them kept for
   * statements that outrun the quick lane's budget (store/sqlite/open-sqlite.ts); 0 runs them on the
   * event loop. Not used with PostgreSQL.
   */
  readonly readThreads: number;
  /** The quick lane's budget per statement; a statement past it is run again in the long lane. */
  readonly quickReadBudgetMs: number;
  /** SQLite: the page cache of each quick-lane read thread's connection (and the idle loop's; the long lane's at most 1 MB), in MB. */
  readonly readThreadCacheMb: number;
  /**
   * Hold the notices in memory on a worker thread of each process (store/notice-thread.ts) instead
   * of on its event loop, by default: filtering and writing notice pages never hold the loop
   * (docs/deployment.md, Operations).
   */
  readonly noticeThread: boolean;
  /**
   * SQLite: read the database file once at start, in the background, so that the first requests
   * find it in the operating system's file cache instead of waiting for the disk (skipped when the
   * file is larger than half the memory available).
   */
  readonly warmFileCache: boolean;
  /**
   * The port of the Prometheus `/metrics` listener (plain HTTP, apart from the API's ports; with
   * `workers` > 1 the primary's, aggregating every worker); undefined: no metrics are kept or served.
   */
  readonly metricsPort: number | undefined;
  /** The address the metrics listener binds: loopback unless told otherwise. */
  readonly metricsHost: string;
  /** Open connections this process accepts, over both listeners; past it, new ones are closed at once. */
  readonly maxConnections: number;
  /** The time a TLS handshake, and then a request's headers, may take to arrive. */
  readonly headerTimeoutMs: number;
  /** The time an idle kept-alive connection stays open between requests. */
  readonly keepAliveTimeoutMs: number;
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
  readThreads?: string;
  quickReadBudgetMs?: string;
  readThreadCacheMb?: string;
  metricsPort?: string;
  metricsHost?: string;
  maxConnections?: string;
  headerTimeoutMs?: string;
  keepAliveTimeoutMs?: string;
  db?: string;
  host?: string;
  port?: string;
  httpPort?: string;
  tlsCert?: string;
  tlsKey?: string;
  trustProxy?: boolean;
  noticeThread?: boolean;
  warmFileCache?: boolean;
  ignoreUnknownParameters?: boolean;
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

/** One `serve` option: its flag, environment variable, default (as text) and help. */
export interface ServeOption {
  readonly flag: string;
  /** A boolean option's flag that turns it off (`--no-...`), where it is on by default. */
  readonly negatedFlag?: string;
  readonly variable: string;
  /** The default, as the help and docs show it; undefined: none, or described in `help`. */
  readonly defaultText?: string;
  readonly help: string;
}

/**
 * Every `serve` option, said once: the command line's help (cli/serve-command.ts), `serveConfig`'s
 * defaults and the README's table (checked by test/unit/serve-options.test.ts) read it.
 */
export const SERVE_OPTIONS = {
  db: {
    flag: "--db <path>",
    variable: "FTCAPI_DB",
    defaultText: DEFAULT_DB_PATH,
    help: "SQLite file or postgres:// URL",
  },
  dbReadUrl: {
    flag: "--db-read-url <url>",
    variable: "FTCAPI_DB_READ_URL",
    help: "PostgreSQL read replica for the API's reads",
  },
  host: {
    flag: "--host <host>",
    variable: "FTCAPI_HOST",
    defaultText: "0.0.0.0",
    help: "address to listen on",
  },
  port: { flag: "--port <n>", variable: "FTCAPI_PORT", defaultText: "8443", help: "HTTPS port" },
  httpPort: {
    flag: "--http-port <n>",
    variable: "FTCAPI_HTTP_PORT",
    defaultText: "8080",
    help: "plain HTTP port",
  },
  tlsCert: {
    flag: "--tls-cert <file>",
    variable: "FTCAPI_TLS_CERT",
    help: "PEM certificate (default: self-signed, kept beside the database)",
  },
  tlsKey: { flag: "--tls-key <file>", variable: "FTCAPI_TLS_KEY", help: "PEM private key" },
  trustProxy: {
    flag: "--trust-proxy",
    variable: "FTCAPI_TRUST_PROXY",
    help: "trust X-Forwarded-Proto/-For/-Host from a proxy",
  },
  noticeThread: {
    flag: "--notice-thread",
    negatedFlag: "--no-notice-thread",
    variable: "FTCAPI_NOTICE_THREAD",
    help: "hold the notices on a thread of their own, off the event loop (the default; --no-notice-thread: on the event loop)",
  },
  warmFileCache: {
    flag: "--warm-file-cache",
    negatedFlag: "--no-warm-file-cache",
    variable: "FTCAPI_WARM_FILE_CACHE",
    help: "SQLite: read the database file once at start, in the background, so that first requests do not wait for the disk (the default; skipped when the file is larger than half the memory available)",
  },
  ignoreUnknownParameters: {
    flag: "--ignore-unknown-parameters",
    variable: "FTCAPI_IGNORE_UNKNOWN_PARAMETERS",
    help: "ignore query parameters the API does not take, as api.ftc.gov does, naming them in an Ignored-Parameters header (default: refuse them with 400)",
  },
  baseUrl: {
    flag: "--base-url <url>",
    variable: "FTCAPI_BASE_URL",
    help: "public address used in links (default: the request's own)",
  },
  demo: {
    flag: "--demo",
    variable: "FTCAPI_DEMO",
    help: "on first run, load the deterministic demo dataset",
  },
  logLevel: {
    flag: "--log-level <level>",
    variable: "FTCAPI_LOG_LEVEL",
    defaultText: "info",
    help: "fatal, error, warn, info, debug, silent",
  },
  workers: {
    flag: "--workers <n>",
    variable: "FTCAPI_WORKERS",
    defaultText: "1",
    help: "worker processes sharing the ports",
  },
  rateLimitPerHour: {
    flag: "--rate-limit-per-hour <n>",
    variable: "FTCAPI_RATE_LIMIT_PER_HOUR",
    defaultText: "1000",
    help: "hourly limit of keys without their own",
  },
  rateLimitWindowSeconds: {
    flag: "--rate-limit-window-seconds <n>",
    variable: "FTCAPI_RATE_LIMIT_WINDOW_SECONDS",
    defaultText: "3600",
    help: "rolling window of key limits; limits then count per window, for testing clients",
  },
  disableRateLimits: {
    flag: "--disable-rate-limits",
    variable: "FTCAPI_DISABLE_RATE_LIMITS",
    help: "do not limit API requests",
  },
  demoLimitPerHour: {
    flag: "--demo-limit-per-hour <n>",
    variable: "FTCAPI_DEMO_LIMIT_PER_HOUR",
    defaultText: "30",
    help: "DEMO_KEY requests an hour per address",
  },
  demoLimitPerDay: {
    flag: "--demo-limit-per-day <n>",
    variable: "FTCAPI_DEMO_LIMIT_PER_DAY",
    defaultText: "50",
    help: "DEMO_KEY requests a day per address",
  },
  signupLimitPerHour: {
    flag: "--signup-limit-per-hour <n>",
    variable: "FTCAPI_SIGNUP_LIMIT_PER_HOUR",
    defaultText: "5",
    help: "keys one address may sign up for an hour",
  },
  statementTimeoutMs: {
    flag: "--statement-timeout-ms <n>",
    variable: "FTCAPI_STATEMENT_TIMEOUT_MS",
    defaultText: String(DEFAULT_STATEMENT_TIMEOUT_MS),
    help: "budget of each statement a request makes; past it the request gets 503",
  },
  readThreads: {
    flag: "--read-threads <n>",
    variable: "FTCAPI_READ_THREADS",
    defaultText: "2",
    help: "SQLite: threads running reads off the event loop (at least 2: one takes the costly statements); 0 runs them on it",
  },
  quickReadBudgetMs: {
    flag: "--quick-read-budget-ms <n>",
    variable: "FTCAPI_QUICK_READ_BUDGET_MS",
    defaultText: "25",
    help: "SQLite: a read that takes longer in the quick lane is stopped and run again in the long lane",
  },
  readThreadCacheMb: {
    flag: "--read-thread-cache-mb <n>",
    variable: "FTCAPI_READ_THREAD_CACHE_MB",
    defaultText: "4",
    help: "SQLite: page cache of each quick-lane read thread and the idle loop, in MB (the long lane keeps at most 1; more makes rows of a large file cheaper to read, at that memory per thread)",
  },
  metricsPort: {
    flag: "--metrics-port <n>",
    variable: "FTCAPI_METRICS_PORT",
    help: "port of the Prometheus /metrics listener, apart from the API's ports (default: none, no metrics)",
  },
  metricsHost: {
    flag: "--metrics-host <host>",
    variable: "FTCAPI_METRICS_HOST",
    defaultText: "127.0.0.1",
    help: "address the metrics listener binds (loopback: metrics are not public)",
  },
  maxConnections: {
    flag: "--max-connections <n>",
    variable: "FTCAPI_MAX_CONNECTIONS",
    defaultText: String(DEFAULT_MAX_CONNECTIONS),
    help: "open connections per process, both listeners together; past it new ones are closed",
  },
  headerTimeoutMs: {
    flag: "--header-timeout-ms <n>",
    variable: "FTCAPI_HEADER_TIMEOUT_MS",
    defaultText: String(DEFAULT_HEADER_TIMEOUT_MS),
    help: "time for a TLS handshake, then for a request's headers; past it 408 and closed",
  },
  keepAliveTimeoutMs: {
    flag: "--keep-alive-timeout-ms <n>",
    variable: "FTCAPI_KEEP_ALIVE_TIMEOUT_MS",
    defaultText: String(DEFAULT_KEEP_ALIVE_TIMEOUT_MS),
    help: "time an idle kept-alive connection stays open",
  },
  keySecret: {
    flag: "--key-secret <secret>",
    variable: "FTCAPI_KEY_SECRET",
    help: "HMAC secret for key hashes (default: made on first run, kept in the database)",
  },
} as const satisfies Record<keyof RawServeOptions, ServeOption>;

/** The help text of an option: what it does, its variable and its default. */
export function optionHelp(option: ServeOption): string {
  const fallback = option.defaultText === undefined ? "" : ` (default: ${option.defaultText})`;
  return `${option.help} [env ${option.variable}]${fallback}`;
}

/** The `--db` option every command takes, as `serve` describes it. */
export const DB_OPTION = [SERVE_OPTIONS.db.flag, optionHelp(SERVE_OPTIONS.db)] as const;

/** `--name` from flags, else its variable, else the table's default. */
function raw(
  flags: RawServeOptions,
  env: Environment,
  name: Exclude<
    keyof RawServeOptions,
    "trustProxy" | "noticeThread" | "warmFileCache" | "ignoreUnknownParameters" | "demo" | "disableRateLimits"
  >,
): string | undefined {
  const option: ServeOption = SERVE_OPTIONS[name];
  return flags[name] ?? env[option.variable] ?? option.defaultText;
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
    host: raw(flags, env, "host") as string,
    port: port("--port", raw(flags, env, "port") as string),
    httpPort: port("--http-port", raw(flags, env, "httpPort") as string),
    tlsCert,
    tlsKey,
    trustProxy: flags.trustProxy ?? booleanVariable("FTCAPI_TRUST_PROXY", env.FTCAPI_TRUST_PROXY),
    noticeThread:
      flags.noticeThread ?? booleanVariable("FTCAPI_NOTICE_THREAD", env.FTCAPI_NOTICE_THREAD, true),
    warmFileCache:
      flags.warmFileCache ?? booleanVariable("FTCAPI_WARM_FILE_CACHE", env.FTCAPI_WARM_FILE_CACHE, true),
    ignoreUnknownParameters:
      flags.ignoreUnknownParameters ??
      booleanVariable("FTCAPI_IGNORE_UNKNOWN_PARAMETERS", env.FTCAPI_IGNORE_UNKNOWN_PARAMETERS),
    baseUrl: baseUrl?.replace(/\/+$/, ""),
    demo: flags.demo ?? booleanVariable("FTCAPI_DEMO", env.FTCAPI_DEMO),
    logLevel: raw(flags, env, "logLevel") as string,
    keySecret: keySecretConfig(flags, env),
    workers: count("--workers", raw(flags, env, "workers") as string, 1),
    mallocArenaMax: env.MALLOC_ARENA_MAX,
    rateLimitPerHour: count("--rate-limit-per-hour", raw(flags, env, "rateLimitPerHour") as string, 1),
    rateLimitWindowSeconds: count(
      "--rate-limit-window-seconds",
      raw(flags, env, "rateLimitWindowSeconds") as string,
      1,
    ),
    rateLimits: !(
      flags.disableRateLimits ?? booleanVariable("FTCAPI_DISABLE_RATE_LIMITS", env.FTCAPI_DISABLE_RATE_LIMITS)
    ),
    demoLimitPerHour: count("--demo-limit-per-hour", raw(flags, env, "demoLimitPerHour") as string, 1),
    demoLimitPerDay: count("--demo-limit-per-day", raw(flags, env, "demoLimitPerDay") as string, 1),
    signupLimitPerHour: count("--signup-limit-per-hour", raw(flags, env, "signupLimitPerHour") as string, 1),
    // At least 100 ms: below that, ordinary queries on a busy server would be cancelled.
    statementTimeoutMs: count("--statement-timeout-ms", raw(flags, env, "statementTimeoutMs") as string, 100),
    readThreads: readThreads(raw(flags, env, "readThreads") as string),
    quickReadBudgetMs: count("--quick-read-budget-ms", raw(flags, env, "quickReadBudgetMs") as string, 1),
    readThreadCacheMb: count("--read-thread-cache-mb", raw(flags, env, "readThreadCacheMb") as string, 1),
    metricsPort: optionalPort("--metrics-port", raw(flags, env, "metricsPort")),
    metricsHost: raw(flags, env, "metricsHost") as string,
    maxConnections: count("--max-connections", raw(flags, env, "maxConnections") as string, 1),
    // At least 100 ms: the server checks for late headers at a fraction of the timeout.
    headerTimeoutMs: count("--header-timeout-ms", raw(flags, env, "headerTimeoutMs") as string, 100),
    // At least 1 s: Node advertises it in whole seconds (`Keep-Alive: timeout=5`).
    keepAliveTimeoutMs: count(
      "--keep-alive-timeout-ms",
      raw(flags, env, "keepAliveTimeoutMs") as string,
      1000,
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

/** `--read-threads`: 0, or 2 and more (a quick lane needs a long one beside it). */
function readThreads(text: string): number {
  const value = count("--read-threads", text, 0);
  if (value === 1)
    throw new ConfigError("--read-threads must be 0 (reads on the event loop) or at least 2; got '1'");
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

/** A port that may be left out (empty counts as left out): undefined, or `port`'s. */
function optionalPort(name: string, text: string | undefined): number | undefined {
  return text === undefined || text === "" ? undefined : port(name, text);
}

function booleanVariable(name: string, text: string | undefined, unset = false): boolean {
  if (text === undefined || text === "") return unset;
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
