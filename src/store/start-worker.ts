import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts the worker thread whose entry is `name` (without extension) beside this module: as
 * JavaScript when built; when this module runs from source (tests and development, through tsx),
 * the built entry in dist/ if dist/ holds the current build of every source file, else as
 * TypeScript through tsx, whose loader a worker must register for itself. A worker through tsx
 * costs about half a second of processor time to start, and the test suites start hundreds.
 */
export function startWorker(name: string, options: WorkerOptions): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  if (!fromSource) return new Worker(new URL(`./${name}.js`, import.meta.url), options);
  // Without this process's `--import tsx`, which a worker would otherwise inherit and load for nothing.
  if (builtIsCurrent())
    return new Worker(new URL(`../../dist/store/${name}.js`, import.meta.url), { ...options, execArgv: [] });
  const entry = new URL(`./${name}.ts`, import.meta.url);
  // Resolved here: an evaluated worker resolves bare names from the working directory, which may be anywhere.
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

let current: boolean | undefined;

/**
 * Whether dist/ holds the build of the sources beside it: every `.ts` file under src/ has its `.js`
 * in dist/, written no earlier than it was last changed (every build writes every file: an
 * incremental tsc skips the outputs of sources whose text it has seen, so one saved again unchanged,
 * by a checkout for example, would leave the whole build looking stale for good). A source saved
 * again unchanged since the last build counts as changed: wrong only towards the slower path.
 * Checked once per process. The tests ask it too, to start `ftcapi` processes built.
 */
export function builtIsCurrent(): boolean {
  if (current !== undefined) return current;
  const sources = fileURLToPath(new URL("../", import.meta.url));
  const built = fileURLToPath(new URL("../../dist/", import.meta.url));
  const walk = (directory: string): boolean =>
    readdirSync(directory, { withFileTypes: true }).every((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return walk(path);
      if (!entry.name.endsWith(".ts")) return true;
      try {
        return (
          statSync(join(built, relative(sources, path).replace(/\.ts$/, ".js"))).mtimeMs >=
          statSync(path).mtimeMs
        );
      } catch {
        return false;
      }
    });
  current = walk(sources);
  return current;
}
