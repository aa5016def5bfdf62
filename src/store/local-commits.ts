/**
 * Complaint commits made by this process, per database location. SQLite's `data_version` sees
 * only other connections' commits, and PostgreSQL's version is read at most once a second, so the
 * writers note their own commits here and what is kept in memory is dropped at once.
 */
const commits = new Map<string, number>();

/** Notes that complaints were committed to the database at `location`. */
export function noteComplaintCommit(location: string): void {
  commits.set(location, (commits.get(location) ?? 0) + 1);
}

/** How many complaint commits this process has made to the database at `location`. */
export function complaintCommitsTo(location: string): number {
  return commits.get(location) ?? 0;
}
