import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/** HSR early-termination notices and the values of their multi-value fields. */
export const notices: DialectMigration = (dialect) => {
  const sqlite = dialect === "sqlite";
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(sqlite ? "without rowid" : "");
  /** Seconds since the epoch; 64-bit on PostgreSQL, whose integer is 32-bit. */
  const seconds = sqlite ? "integer" : "bigint";
  /** Text compares byte by byte on both engines, so both order pages the same way. */
  const bytewise = sql.raw(sqlite ? "" : 'collate "C"');
  return {
    async up(db: Kysely<unknown>) {
      // Text compares byte by byte on both engines (lower() on both sides makes filters
      // case-insensitive), so the two order pages the same way.
      await db.schema
        .createTable("notices")
        .addColumn("id", "text", (col) => col.primaryKey().modifyEnd(bytewise))
        .addColumn("revision", "integer", (col) => col.notNull())
        .addColumn("title", "text", (col) => col.notNull().modifyEnd(bytewise))
        .addColumn("transaction_number", "text", (col) => col.notNull().modifyEnd(bytewise))
        .addColumn("acquiring_party", "text", (col) => col.modifyEnd(bytewise))
        .addColumn("acquired_party", "text", (col) => col.modifyEnd(bytewise))
        .addColumn("date", "text", (col) => col.modifyEnd(bytewise))
        .addColumn("created_at", seconds, (col) => col.notNull())
        .addColumn("updated_at", seconds, (col) => col.notNull())
        .addColumn("content_digest", "text", (col) => col.notNull())
        .execute();
      // The default order (newest first) and the orders clients page in come off these indexes.
      await db.schema.createIndex("notices_created").on("notices").columns(["created_at", "id"]).execute();
      await db.schema.createIndex("notices_updated").on("notices").columns(["updated_at", "id"]).execute();
      await db.schema.createIndex("notices_date").on("notices").columns(["date", "id"]).execute();
      // Text filters compare lower(column): these serve equality on the transaction number and
      // the title order.
      await db.schema
        .createIndex("notices_transaction_number")
        .on("notices")
        .expression(sql`lower(transaction_number)`)
        .execute();
      await db.schema.createIndex("notices_title").on("notices").expression(sql`lower(title), id`).execute();

      await db.schema
        .createTable("notice_values")
        .addColumn("notice_id", "text", (col) => col.notNull().modifyEnd(bytewise))
        .addColumn("field", "text", (col) => col.notNull())
        .addColumn("position", "integer", (col) => col.notNull())
        .addColumn("value", "text", (col) => col.notNull().modifyEnd(bytewise))
        .addPrimaryKeyConstraint("notice_values_pk", ["notice_id", "field", "position"])
        .modifyEnd(clustered)
        .execute();
      await db.schema
        .createIndex("notice_values_field_value")
        .on("notice_values")
        .columns(["field", "value"])
        .execute();
    },
  };
};
