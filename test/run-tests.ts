/**
 * `npm test`'s runner: starts one throwaway PostgreSQL cluster for every suite (unless
 * FTCAPI_TEST_POSTGRES_URL names one, or FTCAPI_TEST_DIALECTS leaves PostgreSQL out), runs every
 * test file under test/ with node:test, and stops the cluster. Arguments, if any, replace the list
 * of files.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./support/cli.js";
import { DIALECTS } from "./support/dialects.js";
import { type Cluster, startThrowawayCluster } from "./support/postgres.js";

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith(".test.ts") ? [path] : [];
    })
    .sort();
}

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : testFiles(join(REPO_ROOT, "test")).map((file) => relative(REPO_ROOT, file));
let cluster: Cluster | undefined;
const env = { ...process.env };
if (DIALECTS.includes("postgres") && !env.FTCAPI_TEST_POSTGRES_URL) {
  cluster = await startThrowawayCluster();
  env.FTCAPI_TEST_POSTGRES_URL = cluster.url;
  process.stdout.write(`PostgreSQL test cluster at ${cluster.url}\n`);
}
if (env.FTCAPI_TEST_DIALECTS)
  process.stdout.write(`Dialects: ${DIALECTS.join(", ")} (FTCAPI_TEST_DIALECTS)\n`);
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...files], {
    cwd: REPO_ROOT,
    env,
    stdio: "inherit",
  });
  child.on("close", (status) => resolve(status ?? 1));
});
cluster?.stop();
process.exit(code);
