/**
 * Thrown by a complaint writer's `commit` when two rows it was given share an id although the
 * primary key let both in (see SqliteComplaintWriter): nothing was written, and the file must be
 * written again with `keepIdIndex`, so that the second row is counted as already present.
 */
export class RepeatedIdError extends Error {
  constructor() {
    super("two rows share an id; the file is written again keeping the id index");
    this.name = "RepeatedIdError";
  }
}
