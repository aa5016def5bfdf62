import { setTimeout as sleep } from "node:timers/promises";
import type { Compilable } from "kysely";
import type { SqliteDatabase } from "../database.js";

/** How long a write that can wait keeps trying while another process holds SQLite's write lock. */
export const WRITE_WAIT_MS = 5000;

/**
 * Runs one small write (an insert of a key, say) without ever blocking the event loop. SQLite's
 * connection is synchronous: with its `busy_timeout` a write that meets an import's write lock
 * would freeze every request of the process for up to that timeout. Here each attempt runs with
 * no busy wait at all, and the waiting between attempts is a timer, so other requests go on; after
 * `waitMs` the SQLITE_BUSY error is thrown (answered as 503 with Retry-After).
 */
export async function writeWithoutWaiting<Row>(
  database: SqliteDatabase,
  query: Compilable<Row> & { execute(): Promise<Row[]> },
  waitMs = WRITE_WAIT_MS,
): Promise<Row | undefined> {
  const { sql, parameters } = query.compile();
  const statement = database.sqlite.prepare(sql);
  const deadline = Date.now() + waitMs;
  for (let delayMs = 5; ; delayMs = Math.min(delayMs * 2, 100)) {
    const previous = database.sqlite.pragma("busy_timeout", { simple: true }) as number;
    database.sqlite.pragma("busy_timeout = 0");
    try {
      return (statement.reader ? statement.get(...parameters) : statement.run(...parameters)) as
        | Row
        | undefined;
    } catch (err) {
      if ((err as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw err;
    } finally {
      database.sqlite.pragma(`busy_timeout = ${previous}`);
    }
    await sleep(delayMs);
  }
}
