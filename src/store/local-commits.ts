/**
 * Commits made by this process, per collection and database location. SQLite's `data_version`
 * sees only other connections' commits, and PostgreSQL's versions may be read at intervals, so the
 * writers note their own commits here and what the stores keep in memory is dropped at once.
 */
const commits = new Map<string, number>();

export type CommittedCollection = "complaints" | "notices";

/** Notes that `collection` was changed by a commit to the database at `location`. */
export function noteCommit(collection: CommittedCollection, location: string): void {
  const key = `${collection}\u0000${location}`;
  commits.set(key, (commits.get(key) ?? 0) + 1);
}

/** How many commits changing `collection` this process has made to the database at `location`. */
export function commitsTo(collection: CommittedCollection, location: string): number {
  return commits.get(`${collection}\u0000${location}`) ?? 0;
}
