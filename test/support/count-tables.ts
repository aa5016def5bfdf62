/**
 * The steps the tests of a count table share: complaint files generated with given seeds, imported
 * one after the other by the CLI (the first into an empty table, the next onto existing rows), and a
 * database put back to before a migration so that the next command runs it again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { openDatabase } from "../../src/store/open-database.js";
import type { Schema } from "../../src/store/schema.js";
import { runCli } from "./cli.js";
import { makeTempDirectory } from "./test-server.js";

/** One generated complaint file per seed, `rows` complaints over `days` days ending 2024-05-10. */
export async function generatedComplaintFiles(
  seeds: readonly number[],
  options: { rows: number; days: number },
): Promise<string[]> {
  const directory = await makeTempDirectory();
  const files: string[] = [];
  for (const seed of seeds) {
    const file = join(directory, `dnc-${seed}.csv`);
    await writeComplaintCsv({ ...options, seed, endSeconds: Date.UTC(2024, 4, 10) / 1000 }, file);
    files.push(file);
  }
  return files;
}

/** Imports `files` into `db` one after the other with `ftcapi import dnc`, each required to succeed. */
export async function importEach(db: string, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const imported = await runCli(["import", "dnc", "--db", db, "--quiet", file]);
    assert.equal(imported.code, 0, imported.stderr);
  }
}

/**
 * Undoes what the migration `name` made (`undo`), forgets that it ran, and runs a command, which
 * migrates the database again: a database as one made before the migration would be.
 */
export async function migrateAgain(
  db: string,
  name: string,
  undo: (db: Kysely<Schema>) => Promise<void>,
): Promise<void> {
  const database = openDatabase(db);
  try {
    await undo(database.db);
    await sql`delete from kysely_migration where name = ${name}`.execute(database.db);
  } finally {
    await database.close();
  }
  const listed = await runCli(["keys", "list", "--db", db]);
  assert.equal(listed.code, 0, listed.stderr);
}

/** A stored complaint's columns that count tables are kept by, its times as numbers. */
export interface StoredComplaintRow {
  id: string;
  created_at: number;
  violation_at: number;
  state: string;
  state_key: string;
  robocall: string;
  subject: string;
  area_code: string;
  city: string;
  city_key: string;
}

/** Every stored complaint of `location`, for oracles counted from the rows. */
export async function storedComplaintRows(location: string): Promise<StoredComplaintRow[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db
      .selectFrom("complaints")
      .select([
        "id",
        "created_at",
        "violation_at",
        "state",
        "state_key",
        "robocall",
        "subject",
        "area_code",
        "city",
        "city_key",
      ])
      .execute();
    return rows.map((row) => ({
      ...row,
      created_at: Number(row.created_at),
      violation_at: Number(row.violation_at),
    }));
  } finally {
    await database.close();
  }
}
