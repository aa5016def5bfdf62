import type { PostgresDatabase } from "../database.js";
import {
  bucketOf,
  type LeaseResult,
  type LeaseSize,
  mergeReturned,
  mergeUsage,
  type RateLimitStore,
  type RateWindow,
  type ReturnedHits,
  type UsageCount,
} from "../rate-limit-store.js";

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
