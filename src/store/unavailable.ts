const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// SQLITE_INTERRUPT: a statement outran `serve`'s statement budget (store/sqlite/statement-budget.ts);
// as with PostgreSQL's 57014 below, the request cannot be fixed by the caller, and backing off helps.
const SQLITE_CODES = new Set([
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_IOERR",
  "SQLITE_CANTOPEN",
  "SQLITE_INTERRUPT",
]);

/** pg's message when a query goes unanswered for its `query_timeout` (the client gave up; the server may still run it). */
const QUERY_READ_TIMEOUT = "Query read timeout";

/**
 * Whether an error means the database cannot be reached or is refusing work for now (stopped,
 * restarting, out of connections, locked, frozen, too slow to answer within the statement
 * budget), rather than a fault in a query. Such errors become 503 answers with Retry-After; the
 * pool reconnects by itself when the database is back.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code) || SQLITE_CODES.has(code)) return true;
    // PostgreSQL SQLSTATE classes 08 (connection exception), 53 (insufficient resources),
    // 57 (operator intervention: shutdown, cannot connect now, and 57014 query_canceled).
    // 57014 is what the server answers when a statement outruns `serve`'s statement budget. It is
    // deliberately a 503 with Retry-After, not a 500: every query ftcapi issues is bounded by
    // design (docs/query-design.md) and takes milliseconds, so one that runs for seconds means a
    // database that is overloaded, stalled on I/O or waiting on a lock, the same condition as one
    // that does not answer; the caller cannot change the request to avoid it, and backing off is
    // what helps. The warning logged with it (error-handler.ts) names the statement's error.
    if (/^(08|53|57)[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (isQueryReadTimeout(err)) return true;
  const message = (err as { message?: unknown }).message;
  return (
    typeof message === "string" &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/.test(
      message,
    )
  );
}

/**
 * Whether `err` is pg's client-side `query_timeout` ("Query read timeout"): no answer came in time
 * (a frozen or unreachable server). The query may still be outstanding on its connection, which
 * must therefore be ended, never reused.
 */
export function isQueryReadTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === QUERY_READ_TIMEOUT;
}

/** Answers whether the database takes a trivial query within `timeoutMs`. */
export async function isDatabaseReady(ping: () => Promise<unknown>, timeoutMs = 1000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
