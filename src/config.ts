/**
 * The one place that reads the environment. Each command turns its flags, then `FTCAPI_*`
 * variables, then defaults into a frozen, typed config, failing fast on a bad value.
 */

export const DEFAULT_DB_PATH = "data/ftcapi.db";

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
}

export interface RawServeOptions {
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

/** `--db`, else `FTCAPI_DB`, else data/ftcapi.db. */
export function databaseConfig(flags: { db?: string }, env: Environment = process.env): DatabaseConfig {
  const db = flags.db ?? env.FTCAPI_DB ?? DEFAULT_DB_PATH;
  if (/^postgres(ql)?:\/\//.test(db)) {
    throw new ConfigError("--db: this release stores data in SQLite; give a file path such as data/ftcapi.db");
  }
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
  return Object.freeze({
    ...databaseConfig(flags, env),
    host: flags.host ?? env.FTCAPI_HOST ?? "0.0.0.0",
    port: port("--port", flags.port ?? env.FTCAPI_PORT ?? "8443"),
    httpPort: port("--http-port", flags.httpPort ?? env.FTCAPI_HTTP_PORT ?? "8080"),
    tlsCert,
    tlsKey,
    trustProxy: flags.trustProxy ?? booleanVariable("FTCAPI_TRUST_PROXY", env.FTCAPI_TRUST_PROXY),
    baseUrl: baseUrl?.replace(/\/+$/, ""),
    demo: flags.demo ?? booleanVariable("FTCAPI_DEMO", env.FTCAPI_DEMO),
    logLevel: flags.logLevel ?? env.FTCAPI_LOG_LEVEL ?? "info",
  });
}

function port(name: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65535) throw new ConfigError(`${name} must be a port number 0-65535; got '${text}'`);
  return value;
}

function booleanVariable(name: string, text: string | undefined): boolean {
  if (text === undefined || text === "") return false;
  if (["1", "true", "yes"].includes(text.toLowerCase())) return true;
  if (["0", "false", "no"].includes(text.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false; got '${text}'`);
}
