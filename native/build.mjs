/**
 * Compiles the SQLite extensions under native/ (statement-budget.c, bucket-counts.c) into
 * native/build/*.so with the system's C compiler, against the SQLite headers better-sqlite3 ships.
 * Run by `npm run build` (so by `npm install` and `npm ci` too). Without a compiler the build goes
 * on and says so: SQLite then runs without a statement budget (the server logs a warning at
 * start), and counts a combination's matches per hour with SQL's GROUP BY (the same counts, slower).
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
const extensions = [
  { name: "statement-budget", without: "SQLite will run without a statement budget" },
  { name: "bucket-counts", without: "combinations' hourly counts will be grouped by SQL instead (slower)" },
];
for (const { name, without } of extensions) {
  const result = spawnSync(
    compiler,
    [
      "-O2",
      "-shared",
      "-fPIC",
      "-I",
      headers,
      "-o",
      join(here, "build", `${name}.so`),
      join(here, `${name}.c`),
      "-lpthread",
    ],
    { stdio: "inherit" },
  );
  if (result.status !== 0)
    console.warn(`native/build.mjs: ${compiler} could not build ${name}.c; ${without}.`);
}
