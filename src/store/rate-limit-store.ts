import type BetterSqlite3 from "better-sqlite3";
import type { Database, PostgresDatabase, SqliteDatabase } from "./database.js";

/** One rolling window to enforce: at most `limit` hits by `subject` in any `windowSeconds`. */
export interface RateWindow {
  subject: string;
  limit: number;
  windowSeconds: number;
}

export interface WindowState {
  limit: number;
  /** Hits counted in the window, this one included when it was allowed. */
  used: number;
  /** Seconds until the oldest counted hit leaves the window (at least 1). */
  resetSeconds: number;
}

export interface HitResult {
  allowed: boolean;
  windows: WindowState[];
}

/**
 * Where rate-limit counters live: the seam between the limiter and a database. `hit` is atomic
 * across every process sharing the database: it counts the subject's hits in each window and,
 * only when every window has room, records this one (refused requests are not counted).
 */
export interface RateLimitStore {
  hit(windows: readonly RateWindow[], nowSeconds: number, usageKeyId: number | undefined): Promise<HitResult>;
  /** Deletes buckets that no window can reach any more. */
  purge(olderThanSeconds: number): Promise<void>;
}

export function createRateLimitStore(database: Database): RateLimitStore {
  return database.dialect === "sqlite"
    ? new SqliteRateLimitStore(database)
    : new PostgresRateLimitStore(database);
}

/** The slice of a window that is counted together; a window is 60 slices. */
export function bucketSecondsOf(windowSeconds: number): number {
  return Math.max(1, Math.floor(windowSeconds / 60));
}

/**
 * SQLite counters: one IMMEDIATE transaction per hit takes the write lock of the counter file
 * (`<database>-counters`, src/store/counter-file.ts), which serialises hits from every worker and
 * process on the database. The counter file is not the main file, so a hit never waits for an
 * import, which holds the main file's write lock for a whole extract.
 */
export class SqliteRateLimitStore implements RateLimitStore {
  private readonly sumStatement: BetterSqlite3.Statement<
    [string, number, number],
    { used: number | null; oldest: number | null }
  >;
  private readonly addStatement: BetterSqlite3.Statement;
  private readonly usageStatement: BetterSqlite3.Statement;
  private readonly purgeStatement: BetterSqlite3.Statement;
  private readonly transaction: (
    windows: readonly RateWindow[],
    nowSeconds: number,
    usageKeyId: number | undefined,
  ) => HitResult;

  constructor(database: SqliteDatabase) {
    const sqlite = database.counters().sqlite;
    this.sumStatement = sqlite.prepare(
      "select sum(count) as used, min(bucket) as oldest from rate_buckets where subject = ? and bucket > ? and bucket <= ?",
    );
    this.addStatement = sqlite.prepare(
      `insert into rate_buckets (subject, bucket, count) values (?, ?, 1)
        on conflict (subject, bucket) do update set count = count + 1`,
    );
    this.usageStatement = sqlite.prepare(
      `insert into key_usage (key_id, hour, count) values (?, ?, 1)
        on conflict (key_id, hour) do update set count = count + 1`,
    );
    this.purgeStatement = sqlite.prepare("delete from rate_buckets where bucket < ?");
    const run = sqlite.transaction(
      (windows: readonly RateWindow[], nowSeconds: number, usageKeyId: number | undefined) =>
        this.hitNow(windows, nowSeconds, usageKeyId),
    );
    this.transaction = (windows, nowSeconds, usageKeyId) => run.immediate(windows, nowSeconds, usageKeyId);
  }

  async hit(
    windows: readonly RateWindow[],
    nowSeconds: number,
    usageKeyId: number | undefined,
  ): Promise<HitResult> {
    return this.transaction(windows, nowSeconds, usageKeyId);
  }

  async purge(olderThanSeconds: number): Promise<void> {
    this.purgeStatement.run(olderThanSeconds);
  }

  private hitNow(
    windows: readonly RateWindow[],
    nowSeconds: number,
    usageKeyId: number | undefined,
  ): HitResult {
    const states: WindowState[] = [];
    let allowed = true;
    const buckets: number[] = [];
    for (const window of windows) {
      const size = bucketSecondsOf(window.windowSeconds);
      const bucket = Math.floor(nowSeconds / size) * size;
      buckets.push(bucket);
      const row = this.sumStatement.get(window.subject, bucket - window.windowSeconds, bucket);
      const used = row?.used ?? 0;
      const oldest = row?.oldest ?? bucket;
      if (used >= window.limit) allowed = false;
      states.push({
        limit: window.limit,
        used,
        resetSeconds: Math.max(1, oldest + window.windowSeconds - nowSeconds),
      });
    }
    if (!allowed) return { allowed, windows: states };
    windows.forEach((window, index) => {
      this.addStatement.run(window.subject, buckets[index]);
      states[index]!.used += 1;
    });
    if (usageKeyId !== undefined) this.usageStatement.run(usageKeyId, Math.floor(nowSeconds / 3600) * 3600);
    return { allowed, windows: states };
  }
}

/**
 * PostgreSQL counters: one call of the `ftcapi_rate_hit` function (migration 004), which holds an
 * advisory lock per subject (taken in a fixed order, so two hits never wait on each other in a
 * cycle) while it checks and counts. That makes check-and-count atomic across every process and
 * machine on the database, in one round trip, without serialising unrelated keys.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  constructor(private readonly database: PostgresDatabase) {}

  async hit(
    windows: readonly RateWindow[],
    nowSeconds: number,
    usageKeyId: number | undefined,
  ): Promise<HitResult> {
    const buckets = windows.map((window) => {
      const size = bucketSecondsOf(window.windowSeconds);
      return Math.floor(nowSeconds / size) * size;
    });
    const { rows } = await this.database.pool.query<{
      allowed: boolean;
      used: string[];
      oldest: string[];
    }>("select allowed, used, oldest from ftcapi_rate_hit($1, $2, $3, $4, $5, $6)", [
      windows.map((window) => window.subject),
      windows.map((window) => window.limit),
      windows.map((window) => window.windowSeconds),
      buckets,
      usageKeyId ?? null,
      Math.floor(nowSeconds / 3600) * 3600,
    ]);
    const row = rows[0]!;
    return {
      allowed: row.allowed,
      windows: windows.map((window, index) => ({
        limit: window.limit,
        used: Number(row.used[index]),
        resetSeconds: Math.max(1, Number(row.oldest[index]) + window.windowSeconds - nowSeconds),
      })),
    };
  }

  async purge(olderThanSeconds: number): Promise<void> {
    await this.database
      .counterDb()
      .deleteFrom("rate_buckets")
      .where("bucket", "<", olderThanSeconds)
      .execute();
  }
}
