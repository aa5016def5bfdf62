import { isDatabaseUnavailable, isQueryReadTimeout } from "../store/unavailable.js";

/**
 * The code under which the metrics count `err` as a database error, or undefined when it is not
 * one: the driver's code (an SQLSTATE such as `57014`, `SQLITE_BUSY`, or the network code of an
 * unreachable server), `query_read_timeout` when pg gave up waiting for an answer, `connection`
 * for pg's other connection failures without a code. Codes come from fixed sets, so the label's
 * values stay few.
 */
export function databaseErrorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  if (isDatabaseUnavailable(err)) {
    if (typeof code === "string") return code;
    return isQueryReadTimeout(err) ? "query_read_timeout" : "connection";
  }
  if (typeof code !== "string") return undefined;
  // SQLite's errors name their code; PostgreSQL's (pg's DatabaseError) carry a severity with it.
  if (/^SQLITE_[A-Z_]+$/.test(code)) return code;
  return typeof severity === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
