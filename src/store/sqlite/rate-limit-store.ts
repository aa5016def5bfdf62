import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase } from "../database.js";
import {
  bucketOf,
  grantedHits,
  type LeaseResult,
  type LeaseSize,
  mergeReturned,
  mergeUsage,
  type RateLimitStore,
  type RateWindow,
  type ReturnedHits,
  type UsageCount,
  type WindowState,
} from "../rate-limit-store.js";

/**
 * SQLite counters: one IMMEDIATE transaction per lease takes the write lock of the counter file
 * (`<database>-counters`, src/store/sqlite/counter-file.ts), which serialises leases from every worker
 * and process on the database. The counter file is not the main file, so a lease never waits for
 * an import, which holds the main file's write lock for a whole extract.
 */
export class SqliteRateLimitStore implements RateLimitStore {
  private readonly sumStatement: BetterSqlite3.Statement<
    [string, number, number],
    { used: number | null; oldest: number | null }
  >;
  private readonly addStatement: BetterSqlite3.Statement;
  private readonly returnStatement: BetterSqlite3.Statement;
  private readonly usageStatement: BetterSqlite3.Statement;
  private readonly purgeStatement: BetterSqlite3.Statement;
  private readonly leaseTransaction: (
    windows: readonly RateWindow[],
    size: LeaseSize,
    nowSeconds: number,
    returned: readonly ReturnedHits[],
  ) => LeaseResult;
  private readonly settleTransaction: (
    returned: readonly ReturnedHits[],
    usage: readonly UsageCount[],
  ) => void;

  constructor(database: SqliteDatabase) {
    const sqlite = database.counters().sqlite;
    this.sumStatement = sqlite.prepare(
      "select sum(count) as used, min(bucket) as oldest from rate_buckets where subject = ? and bucket > ? and bucket <= ? and count > 0",
    );
    this.addStatement = sqlite.prepare(
      `insert into rate_buckets (subject, bucket, count) values (?, ?, ?)
        on conflict (subject, bucket) do update set count = count + excluded.count`,
    );
    this.returnStatement = sqlite.prepare(
      "update rate_buckets set count = max(count - ?, 0) where subject = ? and bucket = ?",
    );
    this.usageStatement = sqlite.prepare(
      `insert into key_usage (key_id, hour, count) values (?, ?, ?)
        on conflict (key_id, hour) do update set count = count + excluded.count`,
    );
    this.purgeStatement = sqlite.prepare("delete from rate_buckets where bucket < ?");
    const lease = sqlite.transaction(
      (
        windows: readonly RateWindow[],
        size: LeaseSize,
        nowSeconds: number,
        returned: readonly ReturnedHits[],
      ) => this.leaseNow(windows, size, nowSeconds, returned),
    );
    this.leaseTransaction = (windows, size, nowSeconds, returned) =>
      lease.immediate(windows, size, nowSeconds, returned);
    const settle = sqlite.transaction((returned: readonly ReturnedHits[], usage: readonly UsageCount[]) => {
      this.giveBack(returned);
      for (const entry of mergeUsage(usage)) this.usageStatement.run(entry.keyId, entry.hour, entry.requests);
    });
    this.settleTransaction = (returned, usage) => settle.immediate(returned, usage);
  }

  async lease(
    windows: readonly RateWindow[],
    size: LeaseSize,
    nowSeconds: number,
    returned: readonly ReturnedHits[],
  ): Promise<LeaseResult> {
    return this.leaseTransaction(windows, size, nowSeconds, returned);
  }

  async settle(returned: readonly ReturnedHits[], usage: readonly UsageCount[]): Promise<void> {
    if (returned.length === 0 && usage.length === 0) return;
    this.settleTransaction(returned, usage);
  }

  async purge(olderThanSeconds: number): Promise<void> {
    this.purgeStatement.run(olderThanSeconds);
  }

  private giveBack(returned: readonly ReturnedHits[]): void {
    for (const entry of mergeReturned(returned)) {
      this.returnStatement.run(entry.hits, entry.subject, entry.bucket);
    }
  }

  private leaseNow(
    windows: readonly RateWindow[],
    size: LeaseSize,
    nowSeconds: number,
    returned: readonly ReturnedHits[],
  ): LeaseResult {
    this.giveBack(returned);
    let room = Number.POSITIVE_INFINITY;
    const states: WindowState[] = windows.map((window) => {
      const bucket = bucketOf(window.windowSeconds, nowSeconds);
      const row = this.sumStatement.get(window.subject, bucket - window.windowSeconds, bucket);
      const used = row?.used ?? 0;
      room = Math.min(room, window.limit - used);
      return { limit: window.limit, used, bucket, oldestBucket: row?.oldest ?? bucket };
    });
    const granted = grantedHits(room, size);
    if (granted === 0) return { granted, windows: states };
    windows.forEach((window, index) => {
      const state = states[index]!;
      this.addStatement.run(window.subject, state.bucket, granted);
      state.used += granted;
    });
    return { granted, windows: states };
  }
}
