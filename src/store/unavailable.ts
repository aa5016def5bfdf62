const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
const SQLITE_CODES = new Set(["SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_CANTOPEN"]);

/**
 * Whether an error means the database cannot be reached or is refusing work for now (stopped,
 * restarting, out of connections, locked), rather than a fault in a query. Such errors become
 * 503 answers with Retry-After; the pool reconnects by itself when the database is back.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code) || SQLITE_CODES.has(code)) return true;
    // PostgreSQL SQLSTATE classes 08 (connection exception), 53 (insufficient resources),
    // 57 (operator intervention: shutdown, cannot connect now).
    if (/^(08|53|57)[0-9A-Z]{3}$/.test(code)) return true;
  }
  const message = (err as { message?: unknown }).message;
  return (
    typeof message === "string" &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/.test(
      message,
    )
  );
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
