import type { CompiledQuery } from "kysely";

/**
 * One consistent view of the database, held on a connection of its own for as long as a long read
 * needs it (an export): every query sees the data as it was when the snapshot was opened, whatever
 * commits meanwhile. SQLite: a read transaction on a second connection to the file (WAL keeps the
 * pages it sees); PostgreSQL: a REPEATABLE READ, READ ONLY transaction on a client outside the pool,
 * so that a slow reader never holds one of the pool's connections.
 *
 * Each query runs under the server's statement budget, as requests' queries do: a long read is a
 * series of short statements (batches by key), never one long one.
 */
export interface ReadSnapshot {
  /** The rows of a query (compiled by the store's Kysely), each as its values in select order. */
  rows(query: CompiledQuery): Promise<unknown[][]>;
  /** Ends the transaction and closes the connection; safe to call more than once. */
  close(): Promise<void>;
}
