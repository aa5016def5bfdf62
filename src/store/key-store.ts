import type { Database } from "./database.js";

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
  /** Requests an hour; null: the server's default. */
  limitPerHour: number | null;
  createdAt: number;
  lastUsedAt: number | null;
}

export type NewApiKey = Omit<ApiKeyRecord, "id" | "lastUsedAt">;

export class KeyStore {
  constructor(private readonly database: Database) {}

  async insert(key: NewApiKey): Promise<ApiKeyRecord> {
    const { id } = await this.database.db
      .insertInto("api_keys")
      .values({
        prefix: key.prefix,
        hash: key.hash,
        email: key.email,
        first_name: key.firstName,
        last_name: key.lastName,
        use_text: key.useText,
        status: key.status,
        limit_per_hour: key.limitPerHour,
        created_at: key.createdAt,
        last_used_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { ...key, id, lastUsedAt: null };
  }

  /** Inserts the key unless one with the same hash exists. */
  async insertIfAbsent(key: NewApiKey): Promise<void> {
    await this.database.db
      .insertInto("api_keys")
      .values({
        prefix: key.prefix,
        hash: key.hash,
        email: key.email,
        first_name: key.firstName,
        last_name: key.lastName,
        use_text: key.useText,
        status: key.status,
        limit_per_hour: key.limitPerHour,
        created_at: key.createdAt,
        last_used_at: null,
      })
      .onConflict((conflict) => conflict.column("hash").doNothing())
      .execute();
  }

  async findByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
    const rows = await this.database.db.selectFrom("api_keys").selectAll().where("prefix", "=", prefix).execute();
    return rows.map((row) => ({
      id: row.id,
      prefix: row.prefix,
      hash: row.hash,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      useText: row.use_text,
      status: row.status,
      limitPerHour: row.limit_per_hour,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
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
}
