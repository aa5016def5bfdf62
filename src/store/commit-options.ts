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
