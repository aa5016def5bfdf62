import type { Migration } from "kysely";

/** The engines a migration is written for. */
export type MigrationDialect = "sqlite" | "postgres";

/**
 * One step of the schema's history, given the dialect it runs on. Each lives in its own file and
 * is frozen once written: every table, column, index and statement is spelled out in the file, and
 * nothing is imported from the code that uses the schema, so what a migration creates never
 * changes with that code. A change to the schema is a new migration.
 */
export type DialectMigration = (dialect: MigrationDialect) => Migration;
