import { SECONDS_PER_DAY, SECONDS_PER_HOUR } from "../domain/time.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import {
  bucketSecondsOf,
  type LeaseResult,
  type RateLimitStore,
  type RateWindow,
  type ReturnedHits,
  type UsageCount,
  type WindowState,
} from "../store/rate-limit-store.js";

export interface RateLimitPolicy {
  /** Requests an hour for a key without its own limit. */
  defaultLimitPerHour: number;
  /**
   * The rolling window keys' limits count over: an hour, as on api.data.gov. A shorter window
   * (the limits then apply per window) lets a test see clients wait out a real 429.
   */
  keyWindowSeconds?: number;
  /** DEMO_KEY, per client address. */
  demoLimitPerHour: number;
  demoLimitPerDay: number;
}

export const DEFAULT_POLICY: RateLimitPolicy = {
  defaultLimitPerHour: 1000,
  demoLimitPerHour: 30,
  demoLimitPerDay: 50,
};

/** How hits are leased from the shared counters; see RateLimiter. */
export interface LeasePolicy {
  /** Hits asked for by a subject's first lease; each lease used up before it expires doubles the ask. */
  firstHits: number;
  /** The largest lease. */
  maxHits: number;
  /** At most this share of what the fullest window has left (rounded up), so leases shrink to 1 near the limit. */
  roomShare: number;
  /** Unused hits of a lease not used for this long are handed back. */
  idleSeconds: number;
  /** How often idle leases are handed back and usage is written. */
  settleIntervalMs: number;
}

export const DEFAULT_LEASE_POLICY: LeasePolicy = {
  firstHits: 8,
  maxHits: 64,
  roomShare: 0.25,
  idleSeconds: 1,
  settleIntervalMs: 500,
};

/** What the gateway tells the client: the tightest window's state. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** The window `limit` counts over, in seconds (an hour for keys, a day for DEMO_KEY's daily limit). */
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

/** Hits this process took from the shared counters for one set of windows and has not used yet. */
interface Lease {
  /** The windows as leased: a changed limit takes a new lease. */
  windows: readonly RateWindow[];
  /** Each window as the store left it: `used` counts every leased hit, these included. */
  states: WindowState[];
  unused: number;
  /** The end of the earliest window's bucket: hits are counted in their bucket, so used only within it. */
  expiresAtSeconds: number;
  lastUsedSeconds: number;
  /** The size asked for this lease. */
  ask: number;
}

/**
 * Rolling-window limits, as api.data.gov applies them: each key its hourly limit (its own, the
 * default, or none); DEMO_KEY per client address, 30 an hour and 50 a day. Counters live in the
 * store, so every worker and process on one database shares them.
 *
 * Counting is leased: a process takes several hits from the shared counters in one store write
 * and admits requests from them in memory. The counters count leased hits, so the requests every
 * process admits never exceed a limit. Unused hits go back to the counters after `idleSeconds`
 * without a request, when the window's bucket ends, when the limit changes, and on `close()`.
 * One process alone is exact (it sees every hit it took); with several, a client can be refused
 * while another process holds unused hits, for at most about `idleSeconds`, and its
 * X-RateLimit-Remaining is low by those hits. Keys' usage is counted in memory and written every
 * `settleIntervalMs` and on `close()`.
 */
export class RateLimiter {
  private lastPurgeSeconds = 0;
  private readonly leases = new Map<string, Lease>();
  /** Leases being taken, by subjects: requests for the same windows wait for it rather than take their own. */
  private readonly renewing = new Map<string, Promise<unknown>>();
  private readonly usage = new Map<string, UsageCount>();
  /** Hits a failed write could not hand back; retried with the next one. */
  private unreturned: ReturnedHits[] = [];
  private timer: NodeJS.Timeout | undefined;
  private settling: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly store: RateLimitStore,
    private readonly policy: RateLimitPolicy = DEFAULT_POLICY,
    private readonly now: () => number = () => Date.now() / 1000,
    private readonly leasePolicy: LeasePolicy = DEFAULT_LEASE_POLICY,
  ) {}

  /** Counts a request by `key` from `clientAddress`; null when the key has no limit (usage is still recorded). */
  async check(key: ApiKeyRecord, isDemo: boolean, clientAddress: string): Promise<RateLimitDecision | null> {
    const windows = this.windowsOf(key, isDemo, clientAddress);
    if (windows.length === 0) {
      this.countUsage(key.id, this.now());
      return null;
    }
    const decision = await this.admit(windows);
    if (decision.allowed) this.countUsage(key.id, this.now());
    return decision;
  }

  /**
   * `check` when it can be answered without waiting: a key without a limit (null), or one whose
   * lease in this process still has a hit (its decision, the hit taken and the use counted). Else
   * undefined, and nothing is taken: call `check`.
   */
  checkNow(key: ApiKeyRecord, isDemo: boolean, clientAddress: string): RateLimitDecision | null | undefined {
    const windows = this.windowsOf(key, isDemo, clientAddress);
    const now = this.now();
    if (windows.length === 0) {
      this.countUsage(key.id, now);
      return null;
    }
    const id = leaseIdOf(windows);
    if (this.renewing.has(id)) return undefined;
    const decision = this.fromLease(id, windows, now);
    if (decision) this.countUsage(key.id, now);
    return decision;
  }

  /**
   * Takes `hits` more hits at once for a request already admitted by `check` (an export, which
   * costs one request per 10,000 records): all of them, or none when the key's windows have less
   * room, from this process's lease first and then from the shared counters. Null when the key has
   * no limit. A refusal hands back the hit `check` took too (refused requests are not counted),
   * and its `remaining` is what the request could have had: those hits and the room left.
   */
  async take(
    key: ApiKeyRecord,
    isDemo: boolean,
    clientAddress: string,
    hits: number,
  ): Promise<RateLimitDecision | null> {
    const windows = this.windowsOf(key, isDemo, clientAddress);
    if (windows.length === 0) {
      this.countUsage(key.id, this.now(), hits);
      return null;
    }
    const id = leaseIdOf(windows);
    for (let pending = this.renewing.get(id); pending; pending = this.renewing.get(id)) await pending;
    const now = this.now();
    const nowSeconds = Math.floor(now);
    const lease = this.leases.get(id);
    const leased = lease && isUsable(lease, windows, nowSeconds) ? Math.min(lease.unused, hits) : 0;
    if (lease) lease.unused -= leased;
    const needed = hits - leased;
    const result =
      needed === 0
        ? undefined
        : await this.store.lease(windows, { maxHits: needed, roomShare: 1 }, nowSeconds, []);
    if (result && result.granted < needed) {
      // Refused requests are not counted: the hits taken here go back, and so does the one
      // `check` took for this request (to the lease it came from, or to the counters).
      const usable =
        lease !== undefined && this.leases.get(id) === lease && isUsable(lease, windows, nowSeconds);
      if (usable) lease.unused += leased + 1;
      const back = result.granted + (usable ? 0 : leased + 1);
      await this.store.settle(
        windows.map((window, index) => ({
          subject: window.subject,
          bucket: result.windows[index]!.bucket,
          hits: back,
        })),
        [],
      );
      const refused = refusedDecision(windows, result, nowSeconds);
      return { ...refused, remaining: leased + result.granted + 1 };
    }
    this.countUsage(key.id, now, hits);
    if (lease) lease.lastUsedSeconds = now;
    const states = result?.windows ?? lease!.states;
    return allowedDecision(windows, states, lease?.unused ?? 0, nowSeconds);
  }

  /** The windows a key's requests count in: DEMO_KEY's per address, a key's own, none when unlimited. */
  private windowsOf(key: ApiKeyRecord, isDemo: boolean, clientAddress: string): RateWindow[] {
    if (isDemo) {
      return [
        {
          subject: `demo-hour:${clientAddress}`,
          limit: this.policy.demoLimitPerHour,
          windowSeconds: SECONDS_PER_HOUR,
        },
        {
          subject: `demo-day:${clientAddress}`,
          limit: this.policy.demoLimitPerDay,
          windowSeconds: SECONDS_PER_DAY,
        },
      ];
    }
    if (key.unlimited) return [];
    return [
      {
        subject: `key:${key.id}`,
        limit: key.limitPerHour ?? this.policy.defaultLimitPerHour,
        windowSeconds: this.policy.keyWindowSeconds ?? SECONDS_PER_HOUR,
      },
    ];
  }

  /** Counts a hit against an arbitrary subject (sign-up per address, for instance), one store write each. */
  async checkSubject(subject: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const nowSeconds = Math.floor(this.now());
    await this.purgeNow(nowSeconds);
    const windows = [{ subject, limit, windowSeconds }];
    const result = await this.store.lease(windows, { maxHits: 1, roomShare: 1 }, nowSeconds, []);
    return result.granted === 0
      ? refusedDecision(windows, result, nowSeconds)
      : allowedDecision(windows, result.windows, 0, nowSeconds);
  }

  /** Hands every unused hit back and writes the usage counted so far; call once requests have stopped. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.settling;
    await Promise.allSettled([...this.renewing.values()]);
    await this.settle(true);
  }

  /** A hit taken from the lease of `windows` (subjects `id`) in this process, when it has one usable now. */
  private fromLease(id: string, windows: RateWindow[], now: number): RateLimitDecision | undefined {
    const nowSeconds = Math.floor(now);
    const lease = this.leases.get(id);
    if (!lease || lease.unused <= 0 || !isUsable(lease, windows, nowSeconds)) return undefined;
    lease.unused--;
    lease.lastUsedSeconds = now;
    return allowedDecision(lease.windows, lease.states, lease.unused, nowSeconds);
  }

  private async admit(windows: RateWindow[]): Promise<RateLimitDecision> {
    const id = leaseIdOf(windows);
    for (;;) {
      const pending = this.renewing.get(id);
      if (pending) {
        // A renewal that fails fails every request waiting on it, with its error: the store is
        // away or too slow, and trying again one waiting request after another would make the
        // n-th of them wait n store timeouts before its 503.
        await pending;
        continue;
      }
      const now = this.now();
      const leased = this.fromLease(id, windows, now);
      if (leased) return leased;
      const renewal = this.renew(id, windows, this.leases.get(id), now);
      this.renewing.set(id, renewal);
      try {
        return await renewal;
      } finally {
        this.renewing.delete(id);
      }
    }
  }

  /** Takes a new lease for `windows` (taking one hit for the caller), handing the old one's unused hits back in the same write. */
  private async renew(
    id: string,
    windows: RateWindow[],
    old: Lease | undefined,
    now: number,
  ): Promise<RateLimitDecision> {
    const nowSeconds = Math.floor(now);
    await this.purgeNow(nowSeconds);
    const returned = old ? takeUnused(old) : [];
    const usedUp = old !== undefined && returned.length === 0 && isUsable(old, windows, nowSeconds);
    const ask = old
      ? Math.min(this.leasePolicy.maxHits, usedUp ? old.ask * 2 : old.ask)
      : this.leasePolicy.firstHits;
    let result: LeaseResult;
    try {
      result = await this.store.lease(
        windows,
        { maxHits: ask, roomShare: this.leasePolicy.roomShare },
        nowSeconds,
        returned,
      );
    } catch (err) {
      this.unreturned.push(...returned);
      this.leases.delete(id);
      this.scheduleSettle();
      throw err;
    }
    if (result.granted === 0) {
      this.leases.delete(id);
      return refusedDecision(windows, result, nowSeconds);
    }
    const lease: Lease = {
      windows,
      states: result.windows,
      unused: result.granted - 1,
      expiresAtSeconds: Math.min(
        ...windows.map(
          (window, index) => result.windows[index]!.bucket + bucketSecondsOf(window.windowSeconds),
        ),
      ),
      lastUsedSeconds: now,
      ask,
    };
    this.leases.set(id, lease);
    this.scheduleSettle();
    return allowedDecision(windows, lease.states, lease.unused, nowSeconds);
  }

  private countUsage(keyId: number, now: number, requests = 1): void {
    const hour = Math.floor(now / SECONDS_PER_HOUR) * SECONDS_PER_HOUR;
    const id = `${keyId}:${hour}`;
    const entry = this.usage.get(id);
    if (entry) entry.requests += requests;
    else this.usage.set(id, { keyId, hour, requests });
    this.scheduleSettle();
  }

  private scheduleSettle(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.settling = this.settle(false).finally(() => {
        this.settling = undefined;
        if (this.leases.size > 0 || this.usage.size > 0 || this.unreturned.length > 0) this.scheduleSettle();
      });
    }, this.leasePolicy.settleIntervalMs);
    this.timer.unref();
  }

  /** Hands back idle and expired leases (every lease when `all`) and writes the usage counted since the last time. */
  private async settle(all: boolean): Promise<void> {
    const now = this.now();
    const nowSeconds = Math.floor(now);
    const returned = this.unreturned;
    this.unreturned = [];
    for (const [id, lease] of this.leases) {
      if (this.renewing.has(id)) continue;
      const idle = now - lease.lastUsedSeconds >= this.leasePolicy.idleSeconds;
      if (all || idle || nowSeconds >= lease.expiresAtSeconds) {
        returned.push(...takeUnused(lease));
        this.leases.delete(id);
      }
    }
    const usage = [...this.usage.values()];
    this.usage.clear();
    try {
      await this.store.settle(returned, usage);
    } catch {
      // Kept for the next write; until then the counters only err on the side of refusing.
      this.unreturned.push(...returned);
      for (const entry of usage) {
        const id = `${entry.keyId}:${entry.hour}`;
        const current = this.usage.get(id);
        if (current) current.requests += entry.requests;
        else this.usage.set(id, entry);
      }
    }
  }

  private async purgeNow(nowSeconds: number): Promise<void> {
    if (nowSeconds - this.lastPurgeSeconds < 300) return;
    this.lastPurgeSeconds = nowSeconds;
    await this.store.purge(nowSeconds - SECONDS_PER_DAY - SECONDS_PER_HOUR);
  }
}

/** Whether a lease still applies to `windows` at `nowSeconds`: same limits, bucket not ended. */
function isUsable(lease: Lease, windows: readonly RateWindow[], nowSeconds: number): boolean {
  return (
    nowSeconds < lease.expiresAtSeconds &&
    lease.windows.every(
      (window, index) =>
        window.limit === windows[index]!.limit && window.windowSeconds === windows[index]!.windowSeconds,
    )
  );
}

/** Empties a lease, returning its unused hits as they are to be handed back. */
function takeUnused(lease: Lease): ReturnedHits[] {
  const hits = lease.unused;
  lease.unused = 0;
  if (hits === 0) return [];
  return lease.windows.map((window, index) => ({
    subject: window.subject,
    bucket: lease.states[index]!.bucket,
    hits,
  }));
}

function resetSecondsOf(window: RateWindow, state: WindowState, nowSeconds: number): number {
  return Math.max(1, state.oldestBucket + window.windowSeconds - nowSeconds);
}

/** Remaining per window: the limit, less what the counters hold, plus this process's unused hits. */
function allowedDecision(
  windows: readonly RateWindow[],
  states: readonly WindowState[],
  unused: number,
  nowSeconds: number,
): RateLimitDecision {
  let tightest = 0;
  const remainingOf = (index: number) => states[index]!.limit - states[index]!.used + unused;
  for (let index = 1; index < states.length; index++) {
    if (remainingOf(index) < remainingOf(tightest)) tightest = index;
  }
  return {
    allowed: true,
    limit: states[tightest]!.limit,
    windowSeconds: windows[tightest]!.windowSeconds,
    remaining: Math.max(0, remainingOf(tightest)),
    resetSeconds: resetSecondsOf(windows[tightest]!, states[tightest]!, nowSeconds),
  };
}

function refusedDecision(
  windows: readonly RateWindow[],
  result: LeaseResult,
  nowSeconds: number,
): RateLimitDecision {
  const states = result.windows;
  let tightest = 0;
  for (let index = 1; index < states.length; index++) {
    if (states[index]!.limit - states[index]!.used < states[tightest]!.limit - states[tightest]!.used) {
      tightest = index;
    }
  }
  const blocking = windows
    .map((window, index) => ({ window, state: states[index]! }))
    .filter(({ state }) => state.used >= state.limit);
  return {
    allowed: false,
    limit: states[tightest]!.limit,
    windowSeconds: windows[tightest]!.windowSeconds,
    remaining: Math.max(0, states[tightest]!.limit - states[tightest]!.used),
    resetSeconds: Math.max(...blocking.map(({ window, state }) => resetSecondsOf(window, state, nowSeconds))),
  };
}

/** The key of the lease of `windows` in this process: their subjects, in order. */
function leaseIdOf(windows: readonly RateWindow[]): string {
  return windows.map((window) => window.subject).join("\n");
}
