import { Worker } from "node:worker_threads";
import type { ComplaintBatch, ComplaintBatchOptions } from "./complaint-batches.js";
import type { ParseWorkerData, ParseWorkerMessage } from "./complaint-parse-worker.js";
import { ImportFileError } from "./import-file-error.js";
import { OutOfWindowError } from "./row-occurrences.js";

/** Batches read ahead of the importer: enough to keep both threads busy, few enough to bound memory. */
const MAX_PENDING_BATCHES = 4;

/**
 * `readComplaintBatches` run on a worker thread: the same batches and the same errors, while the
 * calling thread is free to write the batches already received. The thread stops when the
 * iteration ends, however it ends.
 */
export async function* readComplaintBatchesInWorker(
  file: string,
  options: ComplaintBatchOptions,
): AsyncGenerator<ComplaintBatch> {
  const worker = startParseWorker({ file, options, maxPending: MAX_PENDING_BATCHES });
  const received: Array<ParseWorkerMessage | { kind: "crashed"; error: Error }> = [];
  let notify: (() => void) | undefined;
  const arrive = (message: ParseWorkerMessage | { kind: "crashed"; error: Error }) => {
    received.push(message);
    notify?.();
    notify = undefined;
  };
  worker.on("message", arrive);
  worker.on("error", (error) => arrive({ kind: "crashed", error }));
  worker.on("exit", (code) =>
    arrive({ kind: "crashed", error: new Error(`the parsing thread stopped (exit code ${code})`) }),
  );
  try {
    for (;;) {
      while (received.length === 0)
        await new Promise<void>((resolve) => {
          notify = resolve;
        });
      const message = received.shift()!;
      switch (message.kind) {
        case "batch":
          yield message.batch;
          worker.postMessage("next");
          break;
        case "end":
          return;
        case "failed":
          if (message.reason === "file") throw new ImportFileError(file, message.message);
          if (message.reason === "window") throw new OutOfWindowError();
          throw new Error(message.message);
        case "crashed":
          throw message.error;
      }
    }
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
  }
}

function startParseWorker(workerData: ParseWorkerData): Worker {
  const compiled = import.meta.url.endsWith(".js");
  const entry = new URL(`./complaint-parse-worker.${compiled ? "js" : "ts"}`, import.meta.url);
  if (compiled) return new Worker(entry, { workerData });
  // Run from TypeScript sources (the tests run the CLI through tsx): Node 20 does not pass the
  // process's loaders on to workers and tsx registers itself on the main thread only, so the
  // worker registers it through tsx's API before importing its entry.
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(code, { eval: true, workerData });
}
