import { hash as digestOf, timingSafeEqual } from "node:crypto";
import type { ApiKeyRecord, KeyStore } from "../store/key-store.js";
import { hashKey, KEY_PREFIX_LENGTH } from "./api-keys.js";

export type KeyCheck =
  | { status: "valid"; key: ApiKeyRecord }
  | { status: "invalid" }
  | { status: "disabled"; key: ApiKeyRecord };

/**
 * Verifies presented keys against the store: candidates are found by prefix and the keyed hash is
 * compared in constant time. Answers are cached for `cacheSeconds`, so a key disabled in another
 * process stops working within that time.
 */
export class KeyVerifier {
  private readonly cache = new Map<string, { check: KeyCheck; expiresAt: number }>();

  constructor(
    private readonly keys: KeyStore,
    private readonly secret: string,
    private readonly cacheSeconds = 2,
  ) {}

  async verify(presented: string): Promise<KeyCheck> {
    const cacheKey = this.cacheKeyOf(presented);
    const now = Date.now();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > now) return cached.check;
    const check = await this.lookup(presented, hashKey(this.secret, presented));
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, { check, expiresAt: now + this.cacheSeconds * 1000 });
    return check;
  }

  /** `verify`'s answer when it is cached (and so given without asking the store), else undefined. */
  cachedCheck(presented: string): KeyCheck | undefined {
    const cached = this.cache.get(this.cacheKeyOf(presented));
    return cached && cached.expiresAt > Date.now() ? cached.check : undefined;
  }

  /**
   * The cache is keyed by a one-shot digest of the secret and the key (a fifth of an HMAC's cost,
   * which every request paid), so that it holds no key; the store is asked by the keyed hash.
   */
  private cacheKeyOf(presented: string): string {
    return digestOf("sha256", `${this.secret}:${presented}`, "base64url");
  }

  private async lookup(presented: string, hash: string): Promise<KeyCheck> {
    const expected = Buffer.from(hash, "hex");
    const candidates = await this.keys.findByPrefix(presented.slice(0, KEY_PREFIX_LENGTH));
    for (const key of candidates) {
      const stored = Buffer.from(key.hash, "hex");
      if (stored.length === expected.length && timingSafeEqual(stored, expected)) {
        return key.status === "active" ? { status: "valid", key } : { status: "disabled", key };
      }
    }
    return { status: "invalid" };
  }
}
