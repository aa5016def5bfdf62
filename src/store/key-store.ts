import type { Selectable } from "kysely";
import type { Database } from "./database.js";
import type { ApiKeyTable } from "./schema.js";

export type KeyStatus = "active" | "disabled";

/** A stored API key: never the key itself, only its keyed hash and its first characters. */
export interface ApiKeyRecord {
  id: number;
  prefix: string;
  hash: string;
  email: string;
  firstName: string;
  lastName: string;
  useText: string;
  status: KeyStatus;
  /** Requests an hour; null: the server's default. Ignored when `unlimited`. */
  limitPerHour: number | null;
  unlimited: boolean;
  createdAt: number;
}

/** A key as `list` gives it: with the start of its last hour with a request, null when never used. */
export interface ListedApiKey extends ApiKeyRecord {
  lastUsedAt: number | null;
}

export type NewApiKey = Omit<ApiKeyRecord, "id">;

export interface HourlyUsage {
  /** Start of the hour, seconds. */
  hour: number;
  count: number;
}

/** API keys and their usage. Keys are addressed by prefix (their first characters) in admin commands. */
export class KeyStore {
  constructor(private readonly database: Database) {}

  /** Inserts a key; on SQLite it never blocks the event loop while an import holds the write lock (see `Database.writeWithoutWaiting`). */
  async insert(key: NewApiKey): Promise<ApiKeyRecord> {
    const inserted = await this.database.writeWithoutWaiting(
      this.database.db.insertInto("api_keys").values(toRow(key)).returning("id"),
    );
    if (inserted === undefined) throw new Error("the key insert returned no id");
    return { ...key, id: inserted.id };
  }

  /** Inserts the key unless one with the same hash exists (read first: usually it does, and reading never waits). */
  async insertIfAbsent(key: NewApiKey): Promise<void> {
    const existing = await this.database.db
      .selectFrom("api_keys")
      .select("id")
      .where("hash", "=", key.hash)
      .executeTakeFirst();
    if (existing) return;
    await this.database.db
      .insertInto("api_keys")
      .values(toRow(key))
      .onConflict((conflict) => conflict.column("hash").doNothing())
      .execute();
  }

  async findByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
    const rows = await this.database.db
      .selectFrom("api_keys")
      .selectAll()
      .where("prefix", "=", prefix)
      .execute();
    return rows.map(toRecord);
  }

  /** Every key, oldest first, with when each was last used (the start of its last hour with a request). */
  async list(): Promise<ListedApiKey[]> {
    const rows = await this.database.db.selectFrom("api_keys").selectAll().orderBy("id").execute();
    // Usage is in the counters (on SQLite another file), so it is read apart and joined here.
    const lastHours = await this.database
      .counterDb()
      .selectFrom("key_usage")
      .select((eb) => ["key_id", eb.fn.max("hour").as("hour")])
      .groupBy("key_id")
      .execute();
    const lastHourOf = new Map(lastHours.map((row) => [row.key_id, Number(row.hour)]));
    return rows.map((row) => ({
      ...toRecord(row),
      lastUsedAt: lastHourOf.get(row.id) ?? null,
    }));
  }

  async setStatus(prefix: string, status: KeyStatus): Promise<number> {
    const result = await this.database.db
      .updateTable("api_keys")
      .set({ status })
      .where("prefix", "=", prefix)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Sets the hourly limit (a number), or removes any limit (`"unlimited"`), or returns to the default (null). */
  async setLimit(prefix: string, limit: number | null | "unlimited"): Promise<number> {
    const result = await this.database.db
      .updateTable("api_keys")
      .set(
        limit === "unlimited"
          ? { unlimited: 1, limit_per_hour: null }
          : { unlimited: 0, limit_per_hour: limit },
      )
      .where("prefix", "=", prefix)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Deletes the keys with `prefix` and their usage history (their rate-limit buckets expire with the window). */
  async delete(prefix: string): Promise<number> {
    const keys = await this.findByPrefix(prefix);
    const counters = this.database.counterDb();
    for (const key of keys) {
      // The key first: once it is gone no request counts against it, so no usage is left behind.
      await this.database.db.deleteFrom("api_keys").where("id", "=", key.id).execute();
      await counters.deleteFrom("key_usage").where("key_id", "=", key.id).execute();
    }
    return keys.length;
  }

  /** Requests per hour of a key since `sinceSeconds`, oldest first; hours without requests are absent. */
  async usage(keyId: number, sinceSeconds: number): Promise<HourlyUsage[]> {
    return this.database
      .counterDb()
      .selectFrom("key_usage")
      .select(["hour", "count"])
      .where("key_id", "=", keyId)
      .where("hour", ">=", sinceSeconds)
      .orderBy("hour")
      .execute();
  }
}

function toRow(key: NewApiKey) {
  return {
    prefix: key.prefix,
    hash: key.hash,
    email: key.email,
    first_name: key.firstName,
    last_name: key.lastName,
    use_text: key.useText,
    status: key.status,
    limit_per_hour: key.limitPerHour,
    unlimited: key.unlimited ? 1 : 0,
    created_at: key.createdAt,
  };
}

function toRecord(row: Selectable<ApiKeyTable>): ApiKeyRecord {
  return {
    id: row.id,
    prefix: row.prefix,
    hash: row.hash,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    useText: row.use_text,
    status: row.status,
    limitPerHour: row.limit_per_hour,
    unlimited: row.unlimited === 1,
    createdAt: row.created_at,
  };
}
