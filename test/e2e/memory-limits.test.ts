/**
 * What bounds a serving process's memory (issue 16, item 9; docs/deployment.md, Operations): V8's
 * heap limit, passed by the primary to its workers and asked of whoever starts a single process,
 * and answer caches that count each answer's parameters, however long, with its body.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createKeyWithCli } from "../support/cli.js";
import { fetchRaw } from "../support/https-client.js";
import { parseMetrics, sampleValue } from "../support/parse-metrics.js";
import { localServeFlags, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const HEAP_FLAGS = ["--max-old-space-size=160", "--max-semi-space-size=4", "--v8-pool-size=1"];
const NO_LIMIT_WARNING = "Warning: node runs without a heap limit";

/**
 * A `/proc` list of a process's children, each as its entries: `cmdline` (the arguments) or
 * `environ` (`NAME=value`).
 */
function ofChildren(pid: number, file: "cmdline" | "environ"): string[][] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return children.map((child) => readFileSync(`/proc/${child}/${file}`, "utf8").split("\0").filter(Boolean));
}

describe("memory limits of a serving process (real serve processes, SQLite)", () => {
  it("with --workers 2, each worker runs with V8's heap limit and two allocator arenas, given by the primary", async () => {
    const directory = await makeTempDirectory();
    const server = await startServeProcess(
      localServeFlags(join(directory, "ftcapi.db"), "--workers", "2"),
      120_000,
      directory,
    );
    try {
      const workers = ofChildren(server.child.pid!, "cmdline");
      assert.equal(workers.length, 2, JSON.stringify(workers));
      for (const argv of workers)
        for (const flag of HEAP_FLAGS) assert.ok(argv.includes(flag), argv.join(" "));
      for (const environment of ofChildren(server.child.pid!, "environ"))
        assert.ok(environment.includes("MALLOC_ARENA_MAX=2"), environment.join(" "));
      assert.ok(!server.output().includes(NO_LIMIT_WARNING), server.output());
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("a single process started without a heap limit says so at start; with one it does not", async () => {
    const directory = await makeTempDirectory();
    const db = join(directory, "ftcapi.db");
    const bare = await startServeProcess(localServeFlags(db), 120_000, directory);
    try {
      assert.ok(bare.output().includes(`${NO_LIMIT_WARNING}`), bare.output());
      assert.ok(
        bare.output().includes(`node ${HEAP_FLAGS.join(" ")} dist/cli/ftcapi.js serve`),
        bare.output(),
      );
    } finally {
      assert.equal(await bare.stop(), 0);
    }
    const limited = await startServeProcess(localServeFlags(db), 120_000, directory, false, HEAP_FLAGS);
    try {
      assert.ok(!limited.output().includes(NO_LIMIT_WARNING), limited.output());
    } finally {
      assert.equal(await limited.stop(), 0);
    }
  });

  it("an answer kept in the cache counts its body, and keeps no second copy of its parameters", async () => {
    const directory = await makeTempDirectory();
    const db = join(directory, "ftcapi.db");
    const key = await createKeyWithCli(db, "memory@example.com", "--unlimited");
    const server = await startServeProcess(
      localServeFlags(db, "--metrics-port", "0"),
      120_000,
      directory,
      false,
      HEAP_FLAGS,
    );
    try {
      const ca = await readFile(server.certPath!, "utf8");
      const city = "x".repeat(12 * 1024);
      const path = `/v0/dnc-complaints?city=${city}`;
      // Asked twice: an answer is kept from its second request on.
      await fetchRaw(`${server.httpsUrl}${path}`, { ca, headers: { "X-Api-Key": key } });
      const res = await fetchRaw(`${server.httpsUrl}${path}`, { ca, headers: { "X-Api-Key": key } });
      assert.equal(res.status, 200, res.body.slice(0, 300));
      const samples = parseMetrics((await fetchRaw(server.metricsUrl!)).body);
      const kept = sampleValue(samples, "ftcapi_answer_cache_size_characters", {
        collection: "dnc-complaints",
      })!;
      // The body names the request in links.self once; the answer is kept under a digest of the
      // request, not under a second copy of its 12 KB.
      assert.ok(
        kept >= res.body.length && kept < res.body.length + city.length,
        `${kept} characters kept for a ${res.body.length}-character body`,
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
