import { createHmac, randomBytes, randomInt } from "node:crypto";
import { nowSeconds } from "../domain/time.js";
import type { ApiKeyRecord, KeyStore } from "../store/key-store.js";
import type { SettingsStore } from "../store/settings-store.js";

/** The key anyone may use without signing up; limited per client address. */
export const DEMO_KEY = "DEMO_KEY";
/** Characters stored, and shown, of a key: enough to find it, too few to use it. */
export const KEY_PREFIX_LENGTH = 6;
const KEY_LENGTH = 40;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const SECRET_SETTING = "api_key_hmac_secret";

/** A new key: 40 random alphanumeric characters, as api.data.gov issues them. */
export function generateKey(): string {
  let key = "";
  for (let index = 0; index < KEY_LENGTH; index++) key += ALPHABET[randomInt(ALPHABET.length)];
  return key;
}

/** The keyed hash stored for a key: HMAC-SHA256 under the server secret, hex. */
export function hashKey(secret: string, key: string): string {
  return createHmac("sha256", secret).update(key).digest("hex");
}

/** The server's key-hashing secret: the configured one, else one made on first run and kept in the database. */
export async function loadKeySecret(
  settings: SettingsStore,
  configured: string | undefined,
): Promise<string> {
  if (configured !== undefined) return configured;
  return settings.getOrCreate(SECRET_SETTING, () => randomBytes(32).toString("hex"));
}

export interface KeyOwner {
  email: string;
  firstName?: string;
  lastName?: string;
  useText?: string;
  /** Requests an hour; undefined or null: the server's default. */
  limitPerHour?: number | null | "unlimited";
}

/** Creates and stores a key; the plain key is returned once and never stored. */
export async function createKey(
  keys: KeyStore,
  secret: string,
  owner: KeyOwner,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateKey();
  const record = await keys.insert({
    prefix: key.slice(0, KEY_PREFIX_LENGTH),
    hash: hashKey(secret, key),
    email: owner.email,
    firstName: owner.firstName ?? "",
    lastName: owner.lastName ?? "",
    useText: owner.useText ?? "",
    status: "active",
    limitPerHour: owner.limitPerHour === "unlimited" ? null : (owner.limitPerHour ?? null),
    unlimited: owner.limitPerHour === "unlimited",
    createdAt: nowSeconds(),
  });
  return { key, record };
}

/** Makes sure DEMO_KEY exists (it always does). */
export async function ensureDemoKey(keys: KeyStore, secret: string): Promise<void> {
  await keys.insertIfAbsent({
    prefix: DEMO_KEY.slice(0, KEY_PREFIX_LENGTH),
    hash: hashKey(secret, DEMO_KEY),
    email: "demo@localhost",
    firstName: "",
    lastName: "",
    useText: "Demonstration key, limited per client address",
    status: "active",
    limitPerHour: null,
    unlimited: false,
    createdAt: nowSeconds(),
  });
}
