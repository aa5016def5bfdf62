/**
 * `npm test`'s runner: starts one throwaway PostgreSQL cluster for every suite (unless
 * FTCAPI_TEST_POSTGRES_URL names one, or FTCAPI_TEST_DIALECTS leaves PostgreSQL out), runs every
 * test file under test/ with node:test, and stops the cluster. Arguments, if any, replace the list
 * of files.
 *
 * Files run FTCAPI_TEST_CONCURRENCY at a time (default: the machine's cores, at most 2; each file
 * is a process of its own, and most of a file's time is spent waiting on servers, databases and
 * child processes). The files in `ALONE` then run one at a time, with nothing beside them: they
 * measure memory or time, or load the machine on purpose.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { builtIsCurrent } from "../src/store/start-worker.js";
import { REPO_ROOT } from "./support/cli.js";
import { DIALECTS } from "./support/dialects.js";
import { type Cluster, startThrowawayCluster } from "./support/postgres.js";

/** Files that must run with no other file beside them, and why. */
const ALONE: Record<string, string> = {
  "test/e2e/memory-limits.test.ts": "measures a server's resident memory",
  "test/e2e/connection-limits.test.ts": "opens connections up to the process's file limit",
  "test/e2e/workers-limit.test.ts": "starts many worker processes",
  "test/e2e/sigterm-drain.test.ts": "times a drain in wall-clock seconds",
  "test/integration/database-timeouts.test.ts": "times statements against budgets of milliseconds",
  "test/integration/idle-loop-reads.test.ts":
    "times reads against the idle loop's 6 ms budget and 50 ms pause",
};

/**
 * Longest first, so that two lanes end together (measured, in seconds, one file at a time); files
 * not named here keep their place after these.
 */
const LONGEST_FIRST = [
  "test/e2e/cli-notices.test.ts",
  "test/e2e/cli-ingest.test.ts",
  "test/e2e/mirror.test.ts",
  "test/e2e/fuzz.test.ts",
];

/** Lists each file's time when a phase ends (test/support/file-times-reporter.mjs). */
const FILE_TIMES_REPORTER = join(REPO_ROOT, "test", "support", "file-times-reporter.mjs");

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith(".test.ts") ? [path] : [];
    })
    .sort();
}

function concurrency(value: string | undefined): number {
  if (value === undefined || value === "") return Math.min(2, availableParallelism());
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`FTCAPI_TEST_CONCURRENCY: expected a whole number of 1 or more, got '${value}'`);
  return count;
}

/** Runs `files` under node:test, `lanes` at a time; resolves with the exit status. */
function runFiles(files: string[], lanes: number, env: NodeJS.ProcessEnv): Promise<number> {
  if (files.length === 0) return Promise.resolve(0);
  return new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--test",
        `--test-concurrency=${lanes}`,
        // node:test's own default: spec on a terminal, TAP otherwise.
        `--test-reporter=${process.stdout.isTTY ? "spec" : "tap"}`,
        "--test-reporter-destination=stdout",
        `--test-reporter=${FILE_TIMES_REPORTER}`,
        "--test-reporter-destination=stdout",
        ...files,
      ],
      { cwd: REPO_ROOT, env, stdio: "inherit" },
    );
    child.on("close", (status) => resolve(status ?? 1));
  });
}

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : testFiles(join(REPO_ROOT, "test")).map((file) => relative(REPO_ROOT, file));
const lanes = concurrency(process.env.FTCAPI_TEST_CONCURRENCY);
const rank = (file: string) => {
  const index = LONGEST_FIRST.indexOf(file);
  return index === -1 ? LONGEST_FIRST.length : index;
};
const together = files.filter((file) => !(file in ALONE)).sort((a, b) => rank(a) - rank(b));
const alone = files.filter((file) => file in ALONE);

let cluster: Cluster | undefined;
const env = { ...process.env };
if (DIALECTS.includes("postgres") && !env.FTCAPI_TEST_POSTGRES_URL) {
  cluster = await startThrowawayCluster();
  env.FTCAPI_TEST_POSTGRES_URL = cluster.url;
  process.stdout.write(`PostgreSQL test cluster at ${cluster.url}\n`);
}
if (env.FTCAPI_TEST_DIALECTS)
  process.stdout.write(`Dialects: ${DIALECTS.join(", ")} (FTCAPI_TEST_DIALECTS)\n`);
if (!builtIsCurrent())
  process.stdout.write(
    "dist/ is not the build of src/ (run `npm run build`): ftcapi processes and worker threads start through tsx, several times slower\n",
  );
const started = performance.now();
process.stdout.write(`${together.length} files, ${lanes} at a time\n`);
const first = await runFiles(together, lanes, env);
if (alone.length > 0)
  process.stdout.write(
    `${alone.length} files one at a time: ${alone.map((file) => `${file} (${ALONE[file]})`).join("; ")}\n`,
  );
const second = await runFiles(alone, 1, env);
process.stdout.write(`every file run in ${((performance.now() - started) / 60_000).toFixed(1)} minutes\n`);
cluster?.stop();
process.exit(first !== 0 ? first : second);
