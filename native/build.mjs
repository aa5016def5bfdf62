/**
 * Compiles native/statement-budget.c into native/build/statement-budget.so with the system's C
 * compiler, against the SQLite headers better-sqlite3 ships. Run by `npm run build` (so by
 * `npm install` and `npm ci` too). Without a compiler the build goes on and says so: SQLite then
 * runs without a statement budget (the server logs a warning at start).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const headers = join(
  dirname(createRequire(import.meta.url).resolve("better-sqlite3/package.json")),
  "deps",
  "sqlite3",
);
mkdirSync(join(here, "build"), { recursive: true });
const compiler = "cc";
const result = spawnSync(
  compiler,
  [
    "-O2",
    "-shared",
    "-fPIC",
    "-I",
    headers,
    "-o",
    join(here, "build", "statement-budget.so"),
    join(here, "statement-budget.c"),
    "-lpthread",
  ],
  { stdio: "inherit" },
);
if (result.status !== 0) {
  console.warn(
    `native/build.mjs: ${compiler} could not build the SQLite statement budget; SQLite will run without one.`,
  );
}
