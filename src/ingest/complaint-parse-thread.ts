import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { ComplaintBatch, ComplaintBatchOptions } from "./complaint-batches.js";
import type { ParseWorkerData, ParseWorkerMessage } from "./complaint-parse-worker.js";
import { ImportFileError } from "./import-file-error.js";
import { OutOfWindowError } from "./row-occurrences.js";

/** Batches read ahead of the importer: enough to keep both threads busy, few enough to bound memory. */
const MAX_PENDING_BATCHES = 4;

/**
 * The parsing thread's heap, in MB. What it keeps is a few batches and the reader's buffers (the
 * rows it remembers are held outside the heap, see RowOccurrences), so a fixed ceiling costs
 * nothing measurable and keeps the garbage collector from letting the heap grow with the file.
 */
const PARSE_THREAD_LIMITS = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 16 };

/**
 * `readComplaintBatches` run on a worker thread: the same batches and the same errors, while the
 * calling thread is free to write the batches already received. The thread stops when the
 * iteration ends, however it ends.
 *
 * Batches come over a channel of their own and are taken off it one at a time, when the caller
 * asks for the next: until then they wait serialized, so the calling thread's heap holds one batch
 * of rows, not every batch read ahead.
 */
export async function* readComplaintBatchesInWorker(
  file: string,
  options: ComplaintBatchOptions,
): AsyncGenerator<ComplaintBatch> {
  const { port1: batches, port2 } = new MessageChannel();
  const worker = startParseWorker({ file, options, maxPending: MAX_PENDING_BATCHES, batches: port2 }, [
    port2,
  ]);
  let crashed: Error | undefined;
  let wake: (() => void) | undefined;
  const arrive = () => {
    wake?.();
    wake = undefined;
  };
  // The thread says on its own port that it sent something; the message itself stays on `batches`.
  worker.on("message", arrive);
  worker.on("error", (error) => {
    crashed ??= error;
    arrive();
  });
  worker.on("exit", (code) => {
    crashed ??= new Error(`the parsing thread stopped (exit code ${code})`);
    arrive();
  });
  try {
    for (;;) {
      const received = receiveMessageOnPort(batches);
      if (!received) {
        if (crashed) throw crashed;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const message = received.message as ParseWorkerMessage;
      switch (message.kind) {
        case "batch":
          yield message.batch;
          worker.postMessage("next");
          break;
        case "end":
          return;
        case "failed":
          if (message.reason === "window") throw new OutOfWindowError(message.stepBackSeconds);
          if (message.reason === "file") throw new ImportFileError(file, message.message);
          throw new Error(message.message);
      }
    }
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
    batches.close();
  }
}

function startParseWorker(workerData: ParseWorkerData, transferList: MessagePort[]): Worker {
  const compiled = import.meta.url.endsWith(".js");
  const entry = new URL(`./complaint-parse-worker.${compiled ? "js" : "ts"}`, import.meta.url);
  const options = { workerData, transferList, resourceLimits: PARSE_THREAD_LIMITS };
  if (compiled) return new Worker(entry, options);
  // Run from TypeScript sources (the tests run the CLI through tsx): Node 20 does not pass the
  // process's loaders on to workers and tsx registers itself on the main thread only, so the
  // worker registers it through tsx's API before importing its entry.
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}
