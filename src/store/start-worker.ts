import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts the worker thread whose entry is `name` (without extension) beside this module: as
 * TypeScript when this module runs from source (tests, through tsx, whose loader a worker must
 * register for itself) or as JavaScript when built.
 */
export function startWorker(name: string, options: WorkerOptions): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = new URL(`./${name}${fromSource ? ".ts" : ".js"}`, import.meta.url);
  if (!fromSource) return new Worker(entry, options);
  // Resolved here: an evaluated worker resolves bare names from the working directory, which may be anywhere.
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}
