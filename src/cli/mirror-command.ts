import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { Command } from "commander";
import { type MirrorConfig, mirrorConfig, type RawMirrorOptions } from "../config.js";
import { COMPLAINTS_COLLECTION } from "../domain/complaint.js";
import { dayOf, parseDate, SECONDS_PER_DAY } from "../domain/date-time.js";
import { formatTimestamp, NOTICES_COLLECTION } from "../domain/notice.js";
import {
  COMPLAINT_SCHEDULE,
  NOTICE_SCHEDULE,
  nextPublicationAfter,
  type PublicationSchedule,
} from "../domain/publication-calendar.js";
import { mirrorComplaints } from "../ingest/complaint-mirror.js";
import { mirrorNotices } from "../ingest/notice-mirror.js";
import { StoreNoticeSink } from "../ingest/notice-store-sink.js";
import { UpstreamClient } from "../ingest/upstream-client.js";
import { openDatabase } from "../store/database.js";
import { FreshnessStore } from "../store/freshness-store.js";
import { migrate } from "../store/migrate.js";
import { NoticeStore } from "../store/notice-store.js";

/** After a run that found nothing new although a publication was due: look again this much later. */
const RECHECK_MINUTES = 60;
/** After a failed run in --follow: try again this much later. */
const RETRY_MINUTES = 15;

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
    .option("--db <path>", "SQLite file or postgres:// URL [env FTCAPI_DB] (default: data/ftcapi.db)")
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
  const stamp = config.follow;
  const log = (line: string) =>
    process.stdout.write(`${stamp ? `${new Date().toISOString()} ` : ""}${line}\n`);
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
  if (config.insecure) log("warning: --insecure: the upstream's certificate is not checked");
  if (config.upstream.startsWith("http:"))
    log("warning: the upstream is plain HTTP: the key travels unencrypted");

  const client = new UpstreamClient({
    baseUrl: config.upstream,
    apiKey: config.apiKey,
    ca: config.caFile ? await readFile(config.caFile, "utf8") : undefined,
    insecure: config.insecure,
    retries: config.retries,
    log,
    signal: stopping.signal,
  });
  const database = openDatabase(config.db);
  const since = config.since === undefined ? undefined : dayOf(parseDate(config.since)!);
  const complaints = config.collection !== "notices";
  const notices = config.collection !== "dnc";
  const schedules: PublicationSchedule[] = [
    ...(complaints ? [COMPLAINT_SCHEDULE] : []),
    ...(notices ? [NOTICE_SCHEDULE] : []),
  ];
  try {
    await migrate(database);
    const freshness = new FreshnessStore(database);
    for (;;) {
      let failed = false;
      // Each collection is tried even when the other failed; the run then fails with the first error.
      const errors: unknown[] = [];
      if (complaints) {
        try {
          const started = performance.now();
          const before = { ...client.stats };
          const result = await mirrorComplaints(database, client, {
            sinceDay: since,
            log,
            signal: stopping.signal,
          });
          const seconds = (performance.now() - started) / 1000;
          log(
            `mirrored ${result.windows} day windows: ${result.fetched} complaints fetched, ${result.added} added, ${result.existing} already present, ${result.rejected} skipped; ${requestsSince(client, before)} (${seconds.toFixed(1)} s)`,
          );
        } catch (err) {
          errors.push(err);
        }
      }
      if (notices && !stopping.signal.aborted) {
        try {
          const started = performance.now();
          const before = { ...client.stats };
          const result = await mirrorNotices(client, new StoreNoticeSink(database), {
            since: since === undefined ? undefined : formatTimestamp(since * SECONDS_PER_DAY),
            log,
            signal: stopping.signal,
          });
          if (result.added + result.changed > 0) await new NoticeStore(database).optimize();
          await freshness.markChecked(client.identity, NOTICES_COLLECTION, Math.floor(Date.now() / 1000));
          const seconds = (performance.now() - started) / 1000;
          log(`notices: ${requestsSince(client, before)} (${seconds.toFixed(1)} s)`);
        } catch (err) {
          errors.push(err);
        }
      }
      if (stopping.signal.aborted) break;
      if (errors.length > 0) {
        if (!config.follow) {
          if (errors.length > 1) log(`error: ${messageOf(errors[1])}`);
          throw errors[0];
        }
        failed = true;
        for (const err of errors) log(`error: ${messageOf(err)}`);
      }
      if (!config.follow || stopping.signal.aborted) break;
      const now = Date.now();
      const due =
        Math.min(...schedules.map((schedule) => nextPublicationAfter(now, schedule))) +
        config.followMarginMinutes * 60_000;
      // A complaints copy that missed a publication (the upstream was late) looks again within the
      // hour; notices may rightly not change for days, so they are not rechecked.
      const lastUpdated = complaints ? await freshness.lastUpdated(COMPLAINTS_COLLECTION) : undefined;
      const behind = lastUpdated !== undefined && nextPublicationAfter(lastUpdated * 1000) < now;
      const next = failed
        ? Math.min(due, now + RETRY_MINUTES * 60_000)
        : behind
          ? Math.min(due, now + RECHECK_MINUTES * 60_000)
          : due;
      log(
        `next mirror at ${new Date(next).toISOString()}${behind && !failed ? " (a publication is overdue: looking again)" : ""}`,
      );
      try {
        await sleep(next - now, undefined, { signal: stopping.signal });
      } catch {
        break;
      }
    }
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

/** The requests, retries and rate-limit waits the client made since `before`, in words. */
function requestsSince(client: UpstreamClient, before: UpstreamClient["stats"]): string {
  const now = client.stats;
  return `${now.requests - before.requests} requests, ${now.retries - before.retries} retries, ${now.rateLimited - before.rateLimited} rate-limit waits`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
