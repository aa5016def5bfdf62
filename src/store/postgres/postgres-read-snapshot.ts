import type { CompiledQuery } from "kysely";
import pg from "pg";
import type { ReadSnapshot } from "../read-snapshot.js";

/**
 * A read snapshot of a PostgreSQL database (see ReadSnapshot): a client of its own, opened with the
 * pool's settings (the statement budget included), in a REPEATABLE READ, READ ONLY transaction.
 * Outside the pool, so that exports to slow clients never leave requests waiting for a connection.
 */
export async function openPostgresReadSnapshot(pool: pg.Pool): Promise<ReadSnapshot> {
  const client = new pg.Client(pool.options);
  // A dropped connection must not crash the process; the next query reports the failure.
  client.on("error", () => {});
  await client.connect();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await client.query("rollback");
    } catch {
      // The connection is gone; ending it is all that is left to do.
    }
    await client.end().catch(() => {});
  };
  try {
    await client.query("begin isolation level repeatable read read only");
    // The snapshot is taken by the first statement of the transaction, not by BEGIN.
    await client.query("select 1");
  } catch (err) {
    await close();
    throw err;
  }
  return {
    async rows(query: CompiledQuery): Promise<unknown[][]> {
      const result = await client.query({
        text: query.sql,
        values: [...query.parameters],
        rowMode: "array",
      });
      return result.rows as unknown[][];
    },
    close,
  };
}
