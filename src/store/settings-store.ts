import type { Database } from "./database.js";

/** Named values the server keeps between runs (such as the key-hashing secret). */
export class SettingsStore {
  constructor(private readonly database: Database) {}

  async get(name: string): Promise<string | undefined> {
    const row = await this.database.db
      .selectFrom("settings")
      .select("value")
      .where("name", "=", name)
      .executeTakeFirst();
    return row?.value;
  }

  /**
   * Stores `value` unless the setting exists, and returns the stored value: the first writer wins.
   * Reads first, so that a server starting while an import holds SQLite's write lock does not wait.
   */
  async getOrCreate(name: string, create: () => string): Promise<string> {
    const existing = await this.get(name);
    if (existing !== undefined) return existing;
    await this.database.db
      .insertInto("settings")
      .values({ name, value: create() })
      .onConflict((conflict) => conflict.column("name").doNothing())
      .execute();
    const value = await this.get(name);
    if (value === undefined) throw new Error(`Setting ${name} vanished after it was created`);
    return value;
  }
}
