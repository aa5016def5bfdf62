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
/** Returned hits summed per subject and bucket. */
export function mergeReturned(returned: readonly ReturnedHits[]): ReturnedHits[] {
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

/** Usage summed per key and hour. */
export function mergeUsage(usage: readonly UsageCount[]): UsageCount[] {
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
