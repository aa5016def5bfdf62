/**
 * Which of the project's source files one request's code runs in: the measure behind "the files a
 * request crosses" in docs/architecture.md. A server is started in this process (the test
 * harness's `startTestServer`, real sockets and SQLite), warmed with a few requests, and then V8's
 * precise coverage (function call counts, reset before the request) lists the files under src/
 * with a function called while one uncached request was answered, gateway and error handling
 * included. Code on worker threads (SQLite's read threads, the notice thread) is not seen by this
 * process's coverage: it is listed apart, by name.
 *
 * The script uses only what the test harness offered at the filing of issue 12 (`startTestServer`,
 * `runCli`, `createKeyWithCli`), so that a copy of it runs in a worktree of that commit too.
 *
 * With `--all-on-loop` the server runs every read on the event loop (no SQLite read threads, no
 * notice thread), as every server did at the filing, so that the count is the whole path.
 *
 * Usage: npx tsx bench/request-files.ts [--notices-on-loop | --all-on-loop]
 */
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createKeyWithCli, REPO_ROOT, runCli } from "../test/support/cli.js";
import { makeTempDirectory, startTestServer } from "../test/support/test-server.js";

const { values } = parseArgs({
  options: {
    "notices-on-loop": { type: "boolean", default: false },
    "all-on-loop": { type: "boolean", default: false },
  },
});

const directory = await makeTempDirectory();
const db = join(directory, "ftcapi.db");
for (const [collection, rows] of [
  ["dnc", "3000"],
  ["notices", "300"],
] as const) {
  const csv = join(directory, `${collection}.csv`);
  const generated = await runCli(["generate", collection, "--rows", rows, "--out", csv]);
  if (generated.code !== 0) throw new Error(generated.stderr);
  const imported = await runCli(["import", collection, "--db", db, csv]);
  if (imported.code !== 0) throw new Error(imported.stderr);
}
const key = await createKeyWithCli(db, "request-files@example.com", "--unlimited");
// Servers of today's code take `noticeThread` and `readThreads`; a server of the filing commit ignores them.
const server = await startTestServer({
  db,
  ...(values["notices-on-loop"] || values["all-on-loop"] ? ({ noticeThread: false } as object) : {}),
  ...(values["all-on-loop"] ? ({ readThreads: "0" } as object) : {}),
});

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
const sourceRoot = `file://${join(REPO_ROOT, "src")}/`;

/** The src/ files with a function called since the last call, relative to src/. */
async function filesCalled(): Promise<string[]> {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  return result
    .filter((script) => script.url.startsWith(sourceRoot))
    .filter((script) => script.functions.some((fn) => fn.ranges[0]!.count > 0))
    .map((script) => {
      const called = script.functions.filter((fn) => fn.ranges[0]!.count > 0 && fn.functionName !== "");
      const names = [...new Set(called.map((fn) => fn.functionName))].slice(0, 6).join(", ");
      return `${script.url.slice(sourceRoot.length)}${names === "" ? "" : ` (${names})`}`;
    })
    .sort();
}

async function measure(name: string, warmups: string[], path: string): Promise<void> {
  for (const warmup of warmups) {
    const res = await server.get(warmup, { "X-Api-Key": key });
    if (res.status !== 200) throw new Error(`${warmup}: ${res.status} ${res.body.slice(0, 200)}`);
  }
  await filesCalled();
  const res = await server.get(path, { "X-Api-Key": key });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`);
  const files = await filesCalled();
  console.log(`\n${name}: GET ${path} (uncached), ${files.length} files under src/ on the event loop`);
  for (const file of files) console.log(`  ${file}`);
}

const complaints = "/v0/dnc-complaints";
await measure(
  "a complaint page",
  [`${complaints}?state=Ohio`, `${complaints}?state=Texas&offset=10`, `${complaints}?state=Iowa&offset=20`],
  `${complaints}?state=Florida&offset=30`,
);
const notices = "/v0/hsr-early-termination-notices";
await measure(
  "a notice page",
  [`${notices}?title=corp`, `${notices}?title=inc&page[offset]=5`, `${notices}?title=llc&page[offset]=3`],
  `${notices}?title=holdings&page[offset]=2`,
);
await session.post("Profiler.stopPreciseCoverage");
session.disconnect();
await server.stop();
process.exit(0);
