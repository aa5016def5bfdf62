import { join } from "node:path";
import { createTestDatabase } from "./postgres.js";
import { makeTempDirectory } from "./test-server.js";

/** Every store ftcapi runs on; integration suites run once for each. */
export const DIALECTS = ["sqlite", "postgres"] as const;
export type Dialect = (typeof DIALECTS)[number];

/** A fresh, empty database of the dialect: a SQLite file in a temporary directory, or a new PostgreSQL database. */
export async function freshDatabase(dialect: Dialect): Promise<string> {
  if (dialect === "postgres") return createTestDatabase();
  return join(await makeTempDirectory(), "ftcapi.db");
}
