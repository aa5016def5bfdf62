import { Command } from "commander";
import { DEMO_KEY } from "../access/api-keys.js";
import { type RawServeOptions, serveConfig } from "../config.js";
import { serve } from "../main.js";
import { relativeToHere } from "./relative-to-here.js";

/** `ftcapi serve`: HTTPS on --port, a plain listener on --http-port, until SIGTERM or SIGINT. */
export function serveCommand(): Command {
  return new Command("serve")
    .description(
      "Serve the API over HTTPS (and a plain HTTP listener that refuses or, behind a proxy, serves)",
    )
    .option("--db <path>", "SQLite file or postgres:// URL [env FTCAPI_DB] (default: data/ftcapi.db)")
    .option("--db-read-url <url>", "PostgreSQL read replica for the API's reads [env FTCAPI_DB_READ_URL]")
    .option("--host <host>", "address to listen on [env FTCAPI_HOST] (default: 0.0.0.0)")
    .option("--port <n>", "HTTPS port [env FTCAPI_PORT] (default: 8443)")
    .option("--http-port <n>", "plain HTTP port [env FTCAPI_HTTP_PORT] (default: 8080)")
    .option(
      "--tls-cert <file>",
      "PEM certificate [env FTCAPI_TLS_CERT] (default: self-signed, kept beside the database)",
    )
    .option("--tls-key <file>", "PEM private key [env FTCAPI_TLS_KEY]")
    .option("--trust-proxy", "trust X-Forwarded-Proto/-For/-Host from a proxy [env FTCAPI_TRUST_PROXY]")
    .option(
      "--base-url <url>",
      "public address used in links [env FTCAPI_BASE_URL] (default: the request's own)",
    )
    .option("--demo", "on first run, load the deterministic demo dataset [env FTCAPI_DEMO]")
    .option(
      "--log-level <level>",
      "fatal, error, warn, info, debug, silent [env FTCAPI_LOG_LEVEL] (default: info)",
    )
    .option("--workers <n>", "worker processes sharing the ports [env FTCAPI_WORKERS] (default: 1)")
    .option(
      "--rate-limit-per-hour <n>",
      "hourly limit of keys without their own [env FTCAPI_RATE_LIMIT_PER_HOUR] (default: 1000)",
    )
    .option(
      "--rate-limit-window-seconds <n>",
      "rolling window of key limits; limits then count per window, for testing clients [env FTCAPI_RATE_LIMIT_WINDOW_SECONDS] (default: 3600)",
    )
    .option("--disable-rate-limits", "do not limit API requests [env FTCAPI_DISABLE_RATE_LIMITS]")
    .option(
      "--demo-limit-per-hour <n>",
      "DEMO_KEY requests an hour per address [env FTCAPI_DEMO_LIMIT_PER_HOUR] (default: 30)",
    )
    .option(
      "--demo-limit-per-day <n>",
      "DEMO_KEY requests a day per address [env FTCAPI_DEMO_LIMIT_PER_DAY] (default: 50)",
    )
    .option(
      "--signup-limit-per-hour <n>",
      "keys one address may sign up for an hour [env FTCAPI_SIGNUP_LIMIT_PER_HOUR] (default: 5)",
    )
    .option(
      "--statement-timeout-ms <n>",
      "PostgreSQL: budget of each statement a request makes; past it the request gets 503 [env FTCAPI_STATEMENT_TIMEOUT_MS] (default: 2000)",
    )
    .option(
      "--key-secret <secret>",
      "HMAC secret for key hashes [env FTCAPI_KEY_SECRET] (default: made on first run, kept in the database)",
    )
    .action(runServe);
}

/** Serves until SIGTERM or SIGINT; the primary process prints where and how to try it. */
async function runServe(flags: RawServeOptions): Promise<void> {
  const config = serveConfig(flags);
  const server = await serve(config, (line) => process.stdout.write(`${line}\n`));
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (server.isPrimary) process.stdout.write(`${signal}: finishing requests in flight, then stopping\n`);
    await server.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  if (!server.isPrimary) return;
  const cert = config.tlsCert ? "" : `--cacert ${relativeToHere(server.certPath)} `;
  process.stdout.write(
    [
      `ftcapi is serving ${config.db}${config.workers > 1 ? ` with ${config.workers} workers` : ""}`,
      `  HTTPS:    ${server.httpsUrl}`,
      `  HTTP:     ${server.httpUrl}  (answers HTTPS_REQUIRED unless --trust-proxy and X-Forwarded-Proto: https)`,
      `  Demo key: ${DEMO_KEY}`,
      `  Try:      curl ${cert}-H 'X-Api-Key: ${DEMO_KEY}' '${server.httpsUrl}/v0/dnc-complaints?items_per_page=2'`,
      `  Notices:  curl -g ${cert}-H 'X-Api-Key: ${DEMO_KEY}' '${server.httpsUrl}/v0/hsr-early-termination-notices?sort=-date&page[limit]=2'`,
      "",
    ].join("\n"),
  );
}
