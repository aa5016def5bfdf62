import { join } from "node:path";
import { createTestDatabase } from "./postgres.js";

/** Every store ftcapi runs on. */
export const ALL_DIALECTS = ["sqlite", "postgres"] as const;
export type Dialect = (typeof ALL_DIALECTS)[number];

/**
 * The dialects named in `value` (comma-separated, as `FTCAPI_TEST_DIALECTS=sqlite`), in their
 * usual order; every dialect when `value` is unset or empty. An unknown name is an error, so that
 * a typo cannot quietly run nothing.
 */
export function dialectsFrom(value: string | undefined): readonly Dialect[] {
  const names = (value ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (names.length === 0) return ALL_DIALECTS;
  const unknown = names.filter((name) => !(ALL_DIALECTS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `FTCAPI_TEST_DIALECTS: unknown dialect(s) ${unknown.map((name) => `'${name}'`).join(", ")}; expected a comma-separated list of ${ALL_DIALECTS.join(", ")}`,
    );
  return ALL_DIALECTS.filter((dialect) => names.includes(dialect));
}

/** The stores the suites run on: those FTCAPI_TEST_DIALECTS names, else both. Integration suites run once for each. */
export const DIALECTS: readonly Dialect[] = dialectsFrom(process.env.FTCAPI_TEST_DIALECTS);

/**
 * For a suite that needs one dialect whatever the others do (nginx in front of PostgreSQL):
 * `describe(name, { skip: unlessDialect("postgres") }, ...)` skips it, saying why, when
 * FTCAPI_TEST_DIALECTS leaves the dialect out.
 */
export function unlessDialect(dialect: Dialect): string | false {
  return DIALECTS.includes(dialect) ? false : `FTCAPI_TEST_DIALECTS leaves out ${dialect}`;
}

/** A fresh, empty database of the dialect: a SQLite file in a temporary directory, or a new PostgreSQL database. */
export async function freshDatabase(dialect: Dialect): Promise<string> {
  if (dialect === "postgres") {
    // Loudly: a suite that needs PostgreSQL whatever the filter says skips with unlessDialect.
    if (!DIALECTS.includes("postgres"))
      throw new Error("a PostgreSQL database was asked for, but FTCAPI_TEST_DIALECTS leaves postgres out");
    return createTestDatabase();
  }
  // Imported here, so that the test runner can read DIALECTS without loading the server.
  const { makeTempDirectory } = await import("./test-server.js");
  return join(await makeTempDirectory(), "ftcapi.db");
}
