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
  /** Hits counted in the window, the ones just taken included. */
  used: number;
  /** The bucket the hits were counted in: the one to hand unused hits back to. */
  bucket: number;
  /** The oldest bucket with hits in the window (or `bucket`): it leaves the window first. */
  oldestBucket: number;
}

/** What a lease took: `granted` hits (0: some window is full, nothing was taken) and each window's state. */
export interface LeaseResult {
  granted: number;
  windows: WindowState[];
}

/** How many hits to take: at most `maxHits`, and at most `ceil(room * roomShare)` of the room left. */
export interface LeaseSize {
  maxHits: number;
  roomShare: number;
}

/** Leased hits given back, to the bucket they were counted in. */
export interface ReturnedHits {
  subject: string;
  bucket: number;
  hits: number;
}

/** Requests a key made in one hour, for `keys usage` and the LAST USED column of `keys list`. */
export interface UsageCount {
  keyId: number;
  hour: number;
  requests: number;
}

/**
 * Where rate-limit counters live: the seam between the limiter and a database. The counters count
 * hits taken (leased), not requests answered, so the sum of the hits every process admits can
 * never exceed a limit. Both writes are atomic across every process sharing the database.
 */
export interface RateLimitStore {
  /**
   * Hands `returned` back, then takes hits for every window at once: as many as `size` allows and
   * every window has room for, or none when one window is full.
   */
  lease(
    windows: readonly RateWindow[],
    size: LeaseSize,
    nowSeconds: number,
    returned: readonly ReturnedHits[],
  ): Promise<LeaseResult>;
  /** Hands leased hits back and adds requests to keys' usage, in one write. */
  settle(returned: readonly ReturnedHits[], usage: readonly UsageCount[]): Promise<void>;
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

/** The bucket a hit at `nowSeconds` is counted in. */
export function bucketOf(windowSeconds: number, nowSeconds: number): number {
  const size = bucketSecondsOf(windowSeconds);
  return Math.floor(nowSeconds / size) * size;
}

/** The hits to take, given the room the fullest window has left. */
export function grantedHits(room: number, size: LeaseSize): number {
  if (room <= 0) return 0;
  return Math.max(1, Math.min(size.maxHits, Math.ceil(room * size.roomShare)));
}

/** One entry per (subject, bucket), so one statement never touches a row twice. */
function mergeReturned(returned: readonly ReturnedHits[]): ReturnedHits[] {
  const merged = new Map<string, ReturnedHits>();
  for (const entry of returned) {
    if (entry.hits <= 0) continue;
    const id = `${entry.bucket}\u0000${entry.subject}`;
    const existing = merged.get(id);
    if (existing) existing.hits += entry.hits;
    else merged.set(id, { ...entry });
  }
  return [...merged.values()];
}

function mergeUsage(usage: readonly UsageCount[]): UsageCount[] {
  const merged = new Map<string, UsageCount>();
  for (const entry of usage) {
    if (entry.requests <= 0) continue;
    const id = `${entry.keyId}:${entry.hour}`;
    const existing = merged.get(id);
    if (existing) existing.requests += entry.requests;
    else merged.set(id, { ...entry });
  }
  return [...merged.values()];
}

/**
 * SQLite counters: one IMMEDIATE transaction per lease takes the write lock of the counter file
 * (`<database>-counters`, src/store/counter-file.ts), which serialises leases from every worker
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

/**
 * PostgreSQL counters: one call of the `ftcapi_rate_lease` function (migration 007), which holds
 * an advisory lock per subject (taken in a fixed order, so two leases never wait on each other in
 * a cycle) while it hands hits back, checks and counts. That makes a lease atomic across every
 * process and machine on the database, in one round trip, without serialising unrelated keys.
 * Handing back needs no lock: it only lowers counts, which can make a concurrent lease take less,
 * never more than the limit allows.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  constructor(private readonly database: PostgresDatabase) {}

  async lease(
    windows: readonly RateWindow[],
    size: LeaseSize,
    nowSeconds: number,
    returned: readonly ReturnedHits[],
  ): Promise<LeaseResult> {
    const buckets = windows.map((window) => bucketOf(window.windowSeconds, nowSeconds));
    const back = mergeReturned(returned);
    const { rows } = await this.database.pool.query<{ granted: number; used: number[]; oldest: number[] }>(
      "select granted, used, oldest from ftcapi_rate_lease($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      [
        windows.map((window) => window.subject),
        windows.map((window) => window.limit),
        windows.map((window) => window.windowSeconds),
        buckets,
        size.maxHits,
        size.roomShare,
        back.map((entry) => entry.subject),
        back.map((entry) => entry.bucket),
        back.map((entry) => entry.hits),
      ],
    );
    const row = rows[0]!;
    return {
      granted: Number(row.granted),
      windows: windows.map((window, index) => ({
        limit: window.limit,
        used: Number(row.used[index]),
        bucket: buckets[index]!,
        oldestBucket: Number(row.oldest[index]),
      })),
    };
  }

  async settle(returned: readonly ReturnedHits[], usage: readonly UsageCount[]): Promise<void> {
    const back = mergeReturned(returned);
    const counted = mergeUsage(usage);
    if (back.length === 0 && counted.length === 0) return;
    // One statement, so one implicit transaction: data-modifying WITH clauses always run in full.
    await this.database.pool.query(
      `with returned as (
         update rate_buckets set count = greatest(rate_buckets.count - back.hits, 0)
           from unnest($1::text[], $2::bigint[], $3::integer[]) as back(subject, bucket, hits)
           where rate_buckets.subject = back.subject and rate_buckets.bucket = back.bucket
           returning 1
       )
       insert into key_usage (key_id, hour, count)
         select * from unnest($4::integer[], $5::bigint[], $6::integer[])
         on conflict (key_id, hour) do update set count = key_usage.count + excluded.count`,
      [
        back.map((entry) => entry.subject),
        back.map((entry) => entry.bucket),
        back.map((entry) => entry.hits),
        counted.map((entry) => entry.keyId),
        counted.map((entry) => entry.hour),
        counted.map((entry) => entry.requests),
      ],
    );
  }

  async purge(olderThanSeconds: number): Promise<void> {
    await this.database
      .counterDb()
      .deleteFrom("rate_buckets")
      .where("bucket", "<", olderThanSeconds)
      .execute();
  }
}
