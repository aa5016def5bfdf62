/**
 * A listener that cannot be bound stops the whole server (issue 16, item 1): with the HTTPS or
 * the plain HTTP port already taken, `ftcapi serve` names the port and its option and exits 1
 * within seconds, primary and workers alike, instead of staying up half-broken.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { cliEntry, REPO_ROOT } from "../support/cli.js";
import { makeTempDirectory } from "../support/test-server.js";

/** Well within "seconds" once started; tsx's start and the migrations take one or two. */
const EXIT_WITHIN_MS = 20_000;

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
  /** Processes of the run's process group (the primary and its workers) still alive after its exit. */
  leftOver: boolean;
}

/**
 * Runs `ftcapi serve <args>` in a process group of its own and waits for the primary to exit; past
 * `EXIT_WITHIN_MS` the whole group is killed and the run fails.
 */
function serveUntilExit(args: string[]): Promise<Finished> {
  const started = performance.now();
  const child = spawn(process.execPath, [...cliEntry(), "serve", ...args], {
    cwd: REPO_ROOT,
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child.pid!);
      reject(new Error(`serve still running after ${EXIT_WITHIN_MS} ms:\n${stdout}\n${stderr}`));
    }, EXIT_WITHIN_MS);
    child.on("close", async (code, signal) => {
      clearTimeout(timer);
      const elapsedMs = performance.now() - started;
      // Workers get a moment to follow their primary; any still there then is left over.
      await new Promise((wait) => setTimeout(wait, 500));
      const leftOver = groupAlive(child.pid!);
      if (leftOver) killGroup(child.pid!);
      resolve({ code, signal, stdout, stderr, elapsedMs, leftOver });
    });
  });
}

function groupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(groupId: number): void {
  try {
    process.kill(-groupId, "SIGKILL");
  } catch {
    // already gone
  }
}

/** A port on loopback held by another listener for the test's length. */
async function takenPort(): Promise<{ port: number; release(): Promise<void> }> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const { port } = holder.address() as { port: number };
  return { port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
}

describe("serve with a port it cannot bind", () => {
  for (const workers of [1, 2]) {
    for (const [option, which] of [
      ["--http-port", "plain HTTP"],
      ["--port", "HTTPS"],
    ] as const) {
      it(`the ${which} port taken, --workers ${workers}: exits 1 naming ${option} and the port, every process gone`, async () => {
        const directory = await makeTempDirectory();
        const taken = await takenPort();
        try {
          const ports =
            option === "--port"
              ? ["--port", String(taken.port), "--http-port", "0"]
              : ["--port", "0", "--http-port", String(taken.port)];
          const run = await serveUntilExit([
            "--db",
            join(directory, "ftcapi.db"),
            "--host",
            "127.0.0.1",
            ...ports,
            "--workers",
            String(workers),
            "--log-level",
            "warn",
          ]);
          assert.equal(run.code, 1, `exit ${run.code} (${run.signal}):\n${run.stdout}\n${run.stderr}`);
          assert.equal(run.leftOver, false, "a worker outlived the primary");
          const lines = run.stderr.split("\n").filter((line) => line.includes(option));
          assert.equal(lines.length, 1, `one message naming ${option}:\n${run.stderr}`);
          assert.match(lines[0]!, new RegExp(`\\b${taken.port}\\b`), "the message names the port");
          assert.match(lines[0]!, /already in use/);
          assert.doesNotMatch(run.stderr, /^\s+at /m, "no stack trace");
          assert.doesNotMatch(run.stdout, /ftcapi is serving/, "no banner for a server that is not up");
        } finally {
          await taken.release();
        }
      });
    }
  }

  it("an address that is not this machine's (--host): exits 1 naming --host", async () => {
    const directory = await makeTempDirectory();
    // TEST-NET-3: never assigned to a local interface, so binding fails with EADDRNOTAVAIL; no
    // packet is sent.
    const run = await serveUntilExit([
      "--db",
      join(directory, "ftcapi.db"),
      "--host",
      "203.0.113.7",
      "--port",
      "0",
      "--http-port",
      "0",
      "--log-level",
      "warn",
    ]);
    assert.equal(run.code, 1, `exit ${run.code} (${run.signal}):\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.leftOver, false);
    assert.match(run.stderr, /--host/);
    assert.match(run.stderr, /203\.0\.113\.7/);
  });
});
