import type { CompiledQuery } from "kysely";
import type { Collection } from "../domain/collections.js";
import { nowSeconds } from "../domain/time.js";
import type { Database } from "./database.js";
import { FreshnessStore } from "./freshness-store.js";

/**
 * Where a mirror stands after a write, recorded in the write's transaction so that a crash never
 * leaves the mark ahead of the rows: complaints by the last created day copied for good, notices by
 * an opaque resume point.
 */
export type MirrorMark =
  | { readonly upstream: string; readonly completeThroughDay: number }
  | { readonly upstream: string; readonly cursor: string };

/** What a writer's `commit` may record besides its rows. */
export interface CommitOptions {
  /** A mirror's progress, to commit with the rows it follows. */
  readonly mirror?: MirrorMark;
}

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
