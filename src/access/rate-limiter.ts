import type { ApiKeyRecord } from "../store/key-store.js";
import type { RateLimitStore, RateWindow } from "../store/rate-limit-store.js";

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

/** What the gateway tells the client: the tightest window's state. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 86_400;

/**
 * Rolling-window limits, as api.data.gov applies them: each key its hourly limit (its own, the
 * default, or none); DEMO_KEY per client address, 30 an hour and 50 a day. Counters live in the
 * store, so every worker and process on one database shares them.
 */
export class RateLimiter {
  private lastPurgeSeconds = 0;

  constructor(
    private readonly store: RateLimitStore,
    private readonly policy: RateLimitPolicy = DEFAULT_POLICY,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  /** Counts a request by `key` from `clientAddress`; null when the key has no limit (usage is still recorded). */
  async check(key: ApiKeyRecord, isDemo: boolean, clientAddress: string): Promise<RateLimitDecision | null> {
    const windows: RateWindow[] = isDemo
      ? [
          {
            subject: `demo-hour:${clientAddress}`,
            limit: this.policy.demoLimitPerHour,
            windowSeconds: HOUR_SECONDS,
          },
          {
            subject: `demo-day:${clientAddress}`,
            limit: this.policy.demoLimitPerDay,
            windowSeconds: DAY_SECONDS,
          },
        ]
      : key.unlimited
        ? []
        : [
            {
              subject: `key:${key.id}`,
              limit: key.limitPerHour ?? this.policy.defaultLimitPerHour,
              windowSeconds: this.policy.keyWindowSeconds ?? HOUR_SECONDS,
            },
          ];
    return this.decide(windows, key.id);
  }

  /** Counts a hit against an arbitrary subject (sign-up per address, for instance). */
  async checkSubject(subject: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return (await this.decide([{ subject, limit, windowSeconds }], undefined))!;
  }

  private async decide(
    windows: RateWindow[],
    usageKeyId: number | undefined,
  ): Promise<RateLimitDecision | null> {
    const nowSeconds = Math.floor(this.now());
    await this.purgeNow(nowSeconds);
    const result = await this.store.hit(windows, nowSeconds, usageKeyId);
    if (windows.length === 0) return null;
    const tightest = result.windows.reduce((a, b) => (b.limit - b.used < a.limit - a.used ? b : a));
    const blocking = result.windows.filter((window) => window.used >= window.limit);
    const resetSeconds = result.allowed
      ? tightest.resetSeconds
      : Math.max(...blocking.map((window) => window.resetSeconds));
    return {
      allowed: result.allowed,
      limit: tightest.limit,
      remaining: Math.max(0, tightest.limit - tightest.used),
      resetSeconds,
    };
  }

  private async purgeNow(nowSeconds: number): Promise<void> {
    if (nowSeconds - this.lastPurgeSeconds < 300) return;
    this.lastPurgeSeconds = nowSeconds;
    await this.store.purge(nowSeconds - DAY_SECONDS - HOUR_SECONDS);
  }
}
