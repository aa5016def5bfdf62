/**
 * An import stopped by SIGINT or SIGTERM (issue 17, item 5) says what it kept (the files imported
 * before the signal, each its own transaction), that the file in progress was rolled back, which
 * files were not started, and that running the same command again completes the import; it exits
 * with the conventional status (130, 143). Running it again then does complete it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { cliEntry, REPO_ROOT, runCli } from "../support/cli.js";
import { makeTempDirectory } from "../support/test-server.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ftcapi import dnc` into a new database and sends `signal` once standard error shows
 * progress on `during`. On a loaded machine the signal can leave this process only after the
 * import has ended (it then exits 0, never having heard it): that run says nothing of the product,
 * so it is made again on a new database, up to three times in all.
 */
async function importInterrupted(
  db: string,
  files: string[],
  during: string,
  signal: NodeJS.Signals,
  note: (text: string) => void,
): Promise<Run> {
  for (let attempt = 1; ; attempt++) {
    await Promise.all([db, `${db}-wal`, `${db}-shm`].map((path) => rm(path, { force: true })));
    const run = await importOnce(db, files, during, signal);
    const heard = run.stderr.includes(`${signal}: stopping`);
    if (heard || run.code !== 0 || attempt === 3) return run;
    note(`attempt ${attempt}: the ${signal} arrived after the import had ended; trying again`);
  }
}

/** One run of `importInterrupted`. */
function importOnce(db: string, files: string[], during: string, signal: NodeJS.Signals): Promise<Run> {
  const child = spawn(
    process.execPath,
    [...cliEntry(), "import", "dnc", "--db", db, "--progress-seconds", "0.1", ...files],
    { cwd: REPO_ROOT },
  );
  let stdout = "";
  let stderr = "";
  let sent = false;
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    if (!sent && stderr.includes(`${during}: `)) {
      sent = true;
      child.kill(signal);
    }
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("import dnc interrupted by a signal", () => {
  let directory: string;
  let small: string;
  let large: string;
  let last: string;

  before(async () => {
    directory = await makeTempDirectory("ftcapi-interrupt-");
    const generate = async (name: string, rows: number, end: string, seed: number) => {
      const file = join(directory, name);
      const made = await runCli([
        "generate",
        "dnc",
        "--rows",
        String(rows),
        "--days",
        "10",
        "--end",
        end,
        "--seed",
        String(seed),
        "--out",
        file,
      ]);
      assert.equal(made.code, 0, made.stderr);
      return file;
    };
    small = await generate("first.csv", 2000, "2024-01-01", 31);
    // Large enough (a few seconds) that the signal lands while it is imported.
    large = await generate("second.csv", 100_000, "2024-02-01", 32);
    last = await generate("third.csv", 2000, "2024-03-01", 33);
  });

  it("SIGINT during the second file: exits 130 saying the first is kept, the second rolled back, the third not started; a rerun completes it", async (t) => {
    const db = join(directory, "sigint.db");
    const run = await importInterrupted(db, [small, large, last], large, "SIGINT", (text) =>
      t.diagnostic(text),
    );
    assert.equal(run.code, 130, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /SIGINT: import interrupted/);
    assert.ok(
      run.stderr.includes(`kept: 1 file imported before it (each file is one transaction): ${small}`),
      run.stderr,
    );
    assert.ok(run.stderr.includes(`rolled back: ${large}, the file in progress`), run.stderr);
    assert.ok(run.stderr.includes(`not started: ${last}`), run.stderr);
    assert.match(run.stderr, /Run the same command again to complete the import/);
    assert.doesNotMatch(run.stderr, /^\s+at /m, "no stack trace");

    const rerun = await runCli(["import", "dnc", "--db", db, "--quiet", small, large, last]);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stdout, new RegExp(`imported ${small}: 2000 rows, 0 added, \\d+ already present`));
    assert.match(
      rerun.stdout,
      new RegExp(`imported ${large}: 100000 rows, [1-9]\\d* added, 0 already present`),
    );
    assert.match(rerun.stdout, new RegExp(`imported ${last}: 2000 rows, [1-9]\\d* added, 0 already present`));
  });

  it("SIGTERM during the only file: exits 143 saying nothing was kept and the file rolled back", async (t) => {
    const db = join(directory, "sigterm.db");
    const run = await importInterrupted(db, [large], large, "SIGTERM", (text) => t.diagnostic(text));
    assert.equal(run.code, 143, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /SIGTERM: import interrupted/);
    assert.match(run.stderr, /kept: no file had been imported/);
    assert.ok(run.stderr.includes(`rolled back: ${large}, the file in progress`), run.stderr);
    assert.match(run.stderr, /Run the same command again/);
  });
});
