import type { CompiledQuery } from "kysely";
import type { Collection } from "../domain/collections.js";
import { nowSeconds } from "../domain/time.js";
import type { CommitOptions } from "./commit-options.js";
import type { Database } from "./database.js";
import { FreshnessStore } from "./freshness-store.js";

/**
 * The statements every writer runs just before committing a unit of work on `collection`: its
 * update time and version when the write `changed` it, and the mirror's mark if any. Writers of
 * both collections and both dialects call this, so "write, then mark the collection fresh in the
 * same transaction" is said once.
 */
export function commitStatements(
  database: Database,
  collection: Collection,
  changed: boolean,
  options: CommitOptions = {},
): CompiledQuery[] {
  const freshness = new FreshnessStore(database);
  const statements: CompiledQuery[] = [];
  if (changed) statements.push(freshness.markUpdated(collection.name, nowSeconds()));
  const mirror = options.mirror;
  if (mirror && "completeThroughDay" in mirror)
    statements.push(freshness.progress(mirror.upstream, collection.name, mirror.completeThroughDay));
  if (mirror && "cursor" in mirror)
    statements.push(freshness.cursorStatement(mirror.upstream, collection.name, mirror.cursor));
  return statements;
}

/** After the commit: this process's readers of `collection` see the change at once. */
export function noteCommitted(database: Database, collection: Collection, changed: boolean): void {
  if (changed) database.noteCommit(collection.name);
}
