/**
 * The thread that reads an extract for `readComplaintBatchesInWorker`: it reads, splits and
 * converts rows (about a third of an import's work) while the importer's thread writes the rows
 * before them. At most `maxPending` batches are in flight; the importer acknowledges each.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import {
  type ComplaintBatch,
  type ComplaintBatchOptions,
  readComplaintBatches,
} from "./complaint-batches.js";
import { ImportFileError } from "./import-file-error.js";
import { OutOfWindowError } from "./row-occurrences.js";

export interface ParseWorkerData {
  file: string;
  options: ComplaintBatchOptions;
  maxPending: number;
  /** Where batches and the outcome go; each is followed by a word on the parent port. */
  batches: MessagePort;
}

/** What the parsing thread sends; `failed.reason` says which error to raise in the importer. */
export type ParseWorkerMessage =
  | { kind: "batch"; batch: ComplaintBatch }
  | { kind: "end" }
  | { kind: "failed"; reason: "file" | "read"; message: string }
  | { kind: "failed"; reason: "window"; stepBackSeconds: number };

const port = parentPort;
if (port) {
  const { file, options, maxPending, batches } = workerData as ParseWorkerData;
  let pending = 0;
  let wake: (() => void) | undefined;
  port.on("message", () => {
    pending--;
    wake?.();
    wake = undefined;
  });
  const send = (message: ParseWorkerMessage) => {
    batches.postMessage(message);
    port.postMessage("sent");
  };
  try {
    for await (const batch of readComplaintBatches(file, options)) {
      while (pending >= maxPending)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      pending++;
      send({ kind: "batch", batch });
    }
    send({ kind: "end" });
  } catch (err) {
    if (err instanceof ImportFileError) send({ kind: "failed", reason: "file", message: err.detail });
    else if (err instanceof OutOfWindowError)
      send({ kind: "failed", reason: "window", stepBackSeconds: err.stepBackSeconds });
    else send({ kind: "failed", reason: "read", message: err instanceof Error ? err.message : String(err) });
  }
}
