/**
 * The thread that reads an extract while the importer writes: it reads, splits and converts rows
 * (about a third of an import's work) while the importer's thread writes the rows before them.
 * Everything of it is here: what it reads (`readComplaintBatches`), the batches' form, and both
 * ends, `readComplaintBatchesInWorker` on the importer's side and this module run as the worker's
 * entry (told by its `workerData`) on the other.
 */
import {
  isMainThread,
  MessageChannel,
  type MessagePort,
  parentPort,
  receiveMessageOnPort,
  Worker,
  workerData,
} from "node:worker_threads";
import { COMPLAINT_CSV_HEADER, type Complaint } from "../domain/complaint.js";
import { complaintFromRow } from "./complaint-row.js";
import { readCsvRecords } from "./csv-records.js";
import {
  checkCsvHeader,
  type ExpectedCsv,
  ImportFileError,
  type ReadBatch,
  type RejectedLine,
} from "./import-file.js";
import { openImportSource } from "./import-source.js";
import { OutOfWindowError, RowOccurrences } from "./row-occurrences.js";

/**
 * A complaint as the parsing thread hands it over: an array, which a worker's message copies at a
 * third of the cost of an object with named members.
 */
export type ComplaintTuple = [
  createdAt: number,
  id: string,
  violationAt: number,
  companyPhoneNumber: string,
  city: string,
  state: string,
  areaCode: string,
  subject: string,
  robocall: string,
];

/** How the thread reads one file (one pass of the importer). */
export interface ComplaintBatchOptions {
  /** How far back identical rows are remembered (see RowOccurrences); null: every row. */
  windowSeconds: number | null;
  /** Stop reading after the first unreadable row: its batch is the last. */
  strict: boolean;
  batchSize: number;
}

/** What a Do Not Call extract starts with. */
const EXTRACT: ExpectedCsv = {
  what: "a Do Not Call extract",
  header: COMPLAINT_CSV_HEADER,
  trimNames: false,
};

/** Batches read ahead of the importer: enough to keep both threads busy, few enough to bound memory. */
const MAX_PENDING_BATCHES = 4;

/**
 * The parsing thread's heap, in MB. What it keeps is a few batches and the reader's buffers (the
 * rows it remembers are held outside the heap, see RowOccurrences), so a fixed ceiling costs
 * nothing measurable and keeps the garbage collector from letting the heap grow with the file.
 */
const PARSE_THREAD_LIMITS = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 16 };

/** What the parsing thread is given; `role` tells this module it runs as the thread's entry. */
interface ParseWorkerData {
  role: "complaint-parse-thread";
  file: string;
  options: ComplaintBatchOptions;
  maxPending: number;
  /** Where batches and the outcome go; each is followed by a word on the parent port. */
  batches: MessagePort;
}

/** What the parsing thread sends; `failed.reason` says which error to raise in the importer. */
type ParseWorkerMessage =
  | { kind: "batch"; batch: ReadBatch<ComplaintTuple> }
  | { kind: "end" }
  | { kind: "failed"; reason: "file"; detail: string }
  | { kind: "failed"; reason: "window"; stepBackSeconds: number };

/**
 * `readComplaintBatches` run on a worker thread: the same batches and the same errors (any other
 * failure of reading, the thread's own included, as ImportFileError's CSV refusal), while the
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
): AsyncGenerator<ReadBatch<ComplaintTuple>> {
  const { port1: batches, port2 } = new MessageChannel();
  const data: ParseWorkerData = {
    role: "complaint-parse-thread",
    file,
    options,
    maxPending: MAX_PENDING_BATCHES,
    batches: port2,
  };
  const worker = startParseWorker(data, [port2]);
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
        if (crashed) throw ImportFileError.notCsv(file, crashed);
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const message = received.message as ParseWorkerMessage;
      if (message.kind === "end") return;
      if (message.kind === "batch") {
        yield message.batch;
        worker.postMessage("next");
      } else if (message.reason === "window") throw new OutOfWindowError(message.stepBackSeconds);
      else throw new ImportFileError(file, message.detail);
    }
  } finally {
    worker.removeAllListeners();
    await worker.terminate();
    batches.close();
  }
}

/** Starts this module as a worker thread's entry, from the build or from TypeScript sources. */
function startParseWorker(workerData: ParseWorkerData, transferList: MessagePort[]): Worker {
  const entry = new URL(import.meta.url);
  const options = { workerData, transferList, resourceLimits: PARSE_THREAD_LIMITS };
  if (entry.pathname.endsWith(".js")) return new Worker(entry, options);
  // Run from TypeScript sources (the tests run the CLI through tsx): Node 20 does not pass the
  // process's loaders on to workers and tsx registers itself on the main thread only, so the
  // worker registers it through tsx's API before importing its entry.
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}

/** A complaint as the parsing thread sends it. */
function tupleOf(complaint: Complaint): ComplaintTuple {
  return [
    complaint.createdAt,
    complaint.id,
    complaint.violationAt,
    complaint.companyPhoneNumber,
    complaint.city,
    complaint.state,
    complaint.areaCode,
    complaint.subject,
    complaint.robocall,
  ];
}

/** A complaint received from the parsing thread, as the writer takes it. */
export function complaintOf(tuple: ComplaintTuple): Complaint {
  return {
    createdAt: tuple[0],
    id: tuple[1],
    violationAt: tuple[2],
    companyPhoneNumber: tuple[3],
    city: tuple[4],
    state: tuple[5],
    areaCode: tuple[6],
    subject: tuple[7],
    robocall: tuple[8],
  };
}

/**
 * Reads a Do Not Call extract (CSV, or gzip-compressed CSV, told by its first bytes) into batches
 * of complaints, each with the rows of it that cannot be read. Throws ImportFileError for a file
 * that is not an extract (wrong header, empty), OutOfWindowError when identical rows cannot be
 * told apart within the window, and the reader's own error when the file is not CSV or cannot be
 * read (which the thread sends as ImportFileError's CSV refusal).
 */
async function* readComplaintBatches(
  file: string,
  options: ComplaintBatchOptions,
): AsyncGenerator<ReadBatch<ComplaintTuple>> {
  const occurrences = new RowOccurrences(options.windowSeconds);
  const source = await openImportSource(file);
  const batch = (items: ComplaintTuple[], rejected: RejectedLine[]): ReadBatch<ComplaintTuple> => ({
    items,
    rejected,
    position: { bytesRead: source.bytesRead(), totalBytes: source.totalBytes },
  });
  let items: ComplaintTuple[] = [];
  let rejected: RejectedLine[] = [];
  let headerSeen = false;
  try {
    for await (const records of readCsvRecords(source.chunks)) {
      for (const { values, line } of records) {
        if (!headerSeen) {
          checkCsvHeader(file, values, EXTRACT);
          headerSeen = true;
          continue;
        }
        const complaint = complaintFromRow(values, occurrences);
        if (typeof complaint === "string") {
          rejected.push({ line, reason: complaint });
          // The importer refuses a strict file at this row: nothing after it needs reading.
          if (options.strict) {
            yield batch(items, rejected);
            return;
          }
          continue;
        }
        items.push(tupleOf(complaint));
        if (items.length >= options.batchSize) {
          yield batch(items, rejected);
          items = [];
          rejected = [];
        }
      }
    }
    if (!headerSeen) checkCsvHeader(file, undefined, EXTRACT);
    yield batch(items, rejected);
  } finally {
    await source.chunks.return(undefined);
  }
}

/**
 * The worker's side: reads the file into batches and sends them, at most `maxPending` ahead of the
 * importer's acknowledgements, then the outcome.
 */
async function runParseThread(port: MessagePort, data: ParseWorkerData): Promise<void> {
  const { file, options, maxPending, batches } = data;
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
    if (err instanceof OutOfWindowError)
      send({ kind: "failed", reason: "window", stepBackSeconds: err.stepBackSeconds });
    else {
      const refusal = err instanceof ImportFileError ? err : ImportFileError.notCsv(file, err);
      send({ kind: "failed", reason: "file", detail: refusal.detail });
    }
  }
}

const started = workerData as Partial<ParseWorkerData> | undefined;
if (!isMainThread && parentPort && started?.role === "complaint-parse-thread")
  void runParseThread(parentPort, started as ParseWorkerData);
