import type { Complaint } from "../domain/complaint.js";
import type { CommitOptions } from "./commit-options.js";

export { RepeatedIdError } from "./repeated-id-error.js";

export interface WriteResult {
  added: number;
  existing: number;
}

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
  /**
   * Commits the unit of work; when it added complaints, the collection's update time and version
   * change in the same transaction (and this process's readers see it at once), as does a
   * mirror's mark if given.
   */
  commit(options?: CommitOptions): Promise<WriteResult>;
  rollback(): Promise<void>;
  /** Releases the writer's connection. */
  close(): Promise<void>;
}
