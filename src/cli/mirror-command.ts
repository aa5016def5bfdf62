import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { Command } from "commander";
import { DB_OPTION, type MirrorConfig, mirrorConfig, type RawMirrorOptions } from "../config.js";
import { COMPLAINTS, NOTICES } from "../domain/collections.js";
import { fileReadProblem } from "../domain/file-read-problem.js";
import { redactPasswords } from "../domain/redact-passwords.js";
import { dayOf, formatTimestamp, nowSeconds, parseDate, SECONDS_PER_DAY } from "../domain/time.js";
import { mirrorComplaints } from "../ingest/complaint-mirror.js";
import { type FollowedCollection, nextRunAt } from "../ingest/next-run-at.js";
import { mirrorNotices } from "../ingest/notice-mirror.js";
import { StoreNoticeSink } from "../ingest/notice-store-sink.js";
import { UpstreamClient } from "../ingest/upstream-client.js";
import type { Database } from "../store/database.js";
import { FreshnessStore } from "../store/freshness-store.js";
import { migrate } from "../store/migrate.js";
import { NoticeStore } from "../store/notice-store.js";
import { openCommandDatabase } from "./open-command-database.js";

/** `ftcapi mirror`: copy collections from an FTC-compatible API, once or on the publication schedule. */
export function mirrorCommand(): Command {
  return new Command("mirror")
    .description(
      "Copy collections from an FTC-compatible API (api.ftc.gov, or another ftcapi) into this store",
    )
    .option(
      "--upstream <url>",
      "the upstream API's base address, such as https://api.ftc.gov [env FTCAPI_UPSTREAM]",
    )
    .option("--api-key <key>", "a key for the upstream [env FTCAPI_UPSTREAM_API_KEY]")
    .option("--collection <name>", "dnc, notices or all (default: all)")
    .option("--since <date>", "on a first run, copy records created from this day, YYYY-MM-DD (default: all)")
    .option(...DB_OPTION)
    .option(
      "--follow",
      "keep running: mirror again after each scheduled publication (complaints: business days, about noon New York time; notices: daily)",
    )
    .option(
      "--follow-margin-minutes <n>",
      "with --follow, how long after a scheduled publication to mirror it (default: 30)",
    )
    .option(
      "--ca <file>",
      "PEM certificate(s) to trust for the upstream (such as a self-signed ftcapi's tls-cert.pem)",
    )
    .option("--insecure", "accept any certificate from the upstream (testing only)")
    .option("--retries <n>", "retries of a request on 5xx answers and network errors (default: 8)")
    .action(async (flags: RawMirrorOptions) => {
      await runMirror(mirrorConfig(flags));
    });
}

async function runMirror(config: MirrorConfig): Promise<void> {
  const log = (line: string) =>
    process.stdout.write(`${config.follow ? `${new Date().toISOString()} ` : ""}${line}\n`);
  const stopping = stopOnSignals(log);
  if (config.insecure) log("warning: --insecure: the upstream's certificate is not checked");
  if (config.upstream.startsWith("http:"))
    log("warning: the upstream is plain HTTP: the key travels unencrypted");

  const client = new UpstreamClient({
    baseUrl: config.upstream,
    apiKey: config.apiKey,
    ca: config.caFile ? await readCaFile(config.caFile) : undefined,
    insecure: config.insecure,
    retries: config.retries,
    log,
    signal: stopping.signal,
  });
  const database = openCommandDatabase(config.db);
  try {
    await migrate(database);
    await mirrorUntilDone({
      config,
      client,
      database,
      freshness: new FreshnessStore(database),
      since: config.since === undefined ? undefined : dayOf(parseDate(config.since)!),
      complaints: config.collection !== "notices",
      notices: config.collection !== "dnc",
      log,
      signal: stopping.signal,
    });
  } catch (err) {
    // Aborted by a signal: not a failure to report, only an unfinished run.
    if (!stopping.signal.aborted) throw err;
  } finally {
    client.close();
    await database.close();
  }
  if (stopping.signal.aborted) {
    log("stopped");
    if (!config.follow) process.exitCode = 1;
  }
}

/** The `--ca` file's certificates, or an error naming the option and the file and what is wrong. */
async function readCaFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`--ca ${path}: ${fileReadProblem(err, "PEM")}`);
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----"))
    throw new Error(`--ca ${path}: no PEM certificate in it (no '-----BEGIN CERTIFICATE-----' line)`);
  return text;
}

/** What one `ftcapi mirror` invocation works with. */
interface MirrorRun {
  config: MirrorConfig;
  client: UpstreamClient;
  database: Database;
  freshness: FreshnessStore;
  /** The first created day to copy on a first run (days since the epoch). */
  since: number | undefined;
  complaints: boolean;
  notices: boolean;
  log: (line: string) => void;
  signal: AbortSignal;
}

/** An AbortController that SIGTERM and SIGINT abort, saying so once. */
function stopOnSignals(log: (line: string) => void): AbortController {
  const stopping = new AbortController();
  const stop = (signal: string) => {
    if (stopping.signal.aborted) return;
    log(
      `${signal}: stopping; the window in hand is dropped, and the next run continues after the last one written`,
    );
    stopping.abort();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  return stopping;
}

/**
 * Mirrors once; with --follow, again at the time `nextRunAt` gives, until a signal. Without
 * --follow a failed run throws its first error; with it, errors are printed and retried.
 */
async function mirrorUntilDone(run: MirrorRun): Promise<void> {
  for (;;) {
    const errors = await mirrorOnce(run);
    if (run.signal.aborted) break;
    if (errors.length > 0) {
      if (!run.config.follow) {
        if (errors.length > 1) run.log(`error: ${messageOf(errors[1])}`);
        throw errors[0];
      }
      for (const err of errors) run.log(`error: ${messageOf(err)}`);
    }
    if (!run.config.follow || run.signal.aborted) break;
    const now = Date.now();
    const next = nextRunAt({
      collections: await followedCollections(run),
      lastRun: errors.length > 0 ? "failed" : "succeeded",
      nowMillis: now,
      marginMinutes: run.config.followMarginMinutes,
    });
    run.log(
      `next mirror at ${new Date(next.atMillis).toISOString()}${next.reason === "recheck" ? " (a publication is overdue: looking again)" : ""}`,
    );
    try {
      await sleep(next.atMillis - now, undefined, { signal: run.signal });
    } catch {
      break;
    }
  }
}

/**
 * One run over the chosen collections. Each collection is tried even when the other failed; the
 * errors are returned in order (none: the run succeeded).
 */
async function mirrorOnce(run: MirrorRun): Promise<unknown[]> {
  const errors: unknown[] = [];
  if (run.complaints) {
    try {
      await mirrorComplaintsOnce(run);
    } catch (err) {
      errors.push(err);
    }
  }
  if (run.notices && !run.signal.aborted) {
    try {
      await mirrorNoticesOnce(run);
    } catch (err) {
      errors.push(err);
    }
  }
  return errors;
}

async function mirrorComplaintsOnce(run: MirrorRun): Promise<void> {
  const started = performance.now();
  const before = { ...run.client.stats };
  const result = await mirrorComplaints(run.database, run.client, {
    sinceDay: run.since,
    log: run.log,
    signal: run.signal,
  });
  const seconds = (performance.now() - started) / 1000;
  run.log(
    `mirrored ${result.windows} day windows: ${result.fetched} complaints fetched, ${result.added} added, ${result.existing} already present, ${result.rejected} skipped; ${requestsSince(run.client, before)} (${seconds.toFixed(1)} s)`,
  );
}

async function mirrorNoticesOnce(run: MirrorRun): Promise<void> {
  const started = performance.now();
  const before = { ...run.client.stats };
  const result = await mirrorNotices(run.client, new StoreNoticeSink(run.database), {
    since: run.since === undefined ? undefined : formatTimestamp(run.since * SECONDS_PER_DAY),
    log: run.log,
    signal: run.signal,
  });
  if (result.added + result.changed > 0) await new NoticeStore(run.database).optimize();
  await run.freshness.markChecked(run.client.identity, NOTICES.name, nowSeconds());
  const seconds = (performance.now() - started) / 1000;
  run.log(`notices: ${requestsSince(run.client, before)} (${seconds.toFixed(1)} s)`);
}

/** The collections --follow waits for, with what `nextRunAt` needs of each. */
async function followedCollections(run: MirrorRun): Promise<FollowedCollection[]> {
  const collections: FollowedCollection[] = [];
  if (run.complaints) {
    const lastUpdatedSeconds = await run.freshness.lastUpdated(COMPLAINTS.name);
    collections.push({ schedule: COMPLAINTS.schedule, lastUpdatedSeconds });
  }
  if (run.notices) collections.push({ schedule: NOTICES.schedule });
  return collections;
}

/** The requests, retries and rate-limit waits the client made since `before`, in words. */
function requestsSince(client: UpstreamClient, before: UpstreamClient["stats"]): string {
  const now = client.stats;
  return `${now.requests - before.requests} requests, ${now.retries - before.retries} retries, ${now.rateLimited - before.rateLimited} rate-limit waits`;
}

/** An error's message as printed: no stack, and no password of a URL it may quote. */
function messageOf(err: unknown): string {
  return redactPasswords(err instanceof Error ? err.message : String(err));
}
