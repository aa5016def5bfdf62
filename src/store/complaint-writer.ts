import type { CompiledQuery } from "kysely";
import type { Complaint } from "../domain/complaint.js";
import type { Database } from "./database.js";
import { PostgresComplaintWriter } from "./postgres-complaint-writer.js";
import { SqliteComplaintWriter } from "./sqlite-complaint-writer.js";

export { RepeatedIdError } from "./repeated-id-error.js";

export interface WriteResult {
  added: number;
  existing: number;
}

/**
 * Statements to run inside a write's transaction just before it commits, chosen once the outcome
 * is known (such as progress records, or the collection's update time when rows were added).
 * Compiled by the same database's Kysely, so they carry the dialect's placeholders.
 */
export type AlsoCommit = (result: WriteResult) => readonly CompiledQuery[];

export interface BeginOptions {
  /**
   * Keep the unique id index while loading into an empty table, rather than building it at commit:
   * for ids that do not begin with the created time (copied from upstream), and after a
   * RepeatedIdError.
   */
  keepIdIndex?: boolean;
}

/**
 * Writes complaints in one transaction per unit of work (an imported file): `begin`, any number
 * of `insert` calls, then `commit` (which reports what was added) or `rollback`. A complaint whose
 * id is already stored is counted as existing and left alone. Daily counts are updated in the same
 * transaction, so readers never see rows without their counts. The seam between the importer and
 * each dialect's fastest bulk path (prepared statements on SQLite, COPY on PostgreSQL).
 */
export interface ComplaintWriter {
  begin(options?: BeginOptions): Promise<void>;
  insert(complaints: readonly Complaint[]): Promise<void>;
  commit(also?: AlsoCommit): Promise<WriteResult>;
  rollback(): Promise<void>;
  /** Releases the writer's connection. */
  close(): Promise<void>;
}

export function createComplaintWriter(database: Database): ComplaintWriter {
  return database.dialect === "sqlite"
    ? new SqliteComplaintWriter(database)
    : new PostgresComplaintWriter(database);
}
