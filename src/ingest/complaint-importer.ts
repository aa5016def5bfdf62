import { stat } from "node:fs/promises";
import { createComplaintWriter, RepeatedIdError } from "../store/complaint-writer.js";
import type { Database } from "../store/database.js";
import { complaintOf } from "./complaint-batches.js";
import { readComplaintBatchesInWorker } from "./complaint-parse-thread.js";
import { ImportFileError } from "./import-file-error.js";
import { FIRST_WINDOW_SECONDS, OutOfWindowError, widerWindow } from "./row-occurrences.js";

export { ImportFileError } from "./import-file-error.js";

export interface RejectedRow {
  file: string;
  line: number;
  reason: string;
}

export interface FileImportResult {
  file: string;
  rows: number;
  added: number;
  existing: number;
  rejected: number;
}

export interface ImportProgress {
  file: string;
  rows: number;
  bytesRead: number;
  /** Size of the file on disk (compressed size for .gz), or undefined when unknown. */
  totalBytes: number | undefined;
}

export interface ImportOptions {
  onRejected?: (row: RejectedRow) => void;
  onProgress?: (progress: ImportProgress) => void;
  /** Refuse the whole file at its first unreadable row (nothing of it is written). */
  strict?: boolean;
  batchSize?: number;
}

/**
 * Imports FTC Do Not Call extracts (CSV, or CSV.gz), streaming, one transaction per file: a file is
 * either wholly imported or not at all. Rows already stored (same derived id) are counted as
 * existing; unreadable rows are reported with file and line and counted as rejected.
 */
export async function importComplaintFile(
  database: Database,
  file: string,
  options: ImportOptions = {},
): Promise<FileImportResult> {
  let reportedThroughLine = 0;
  const reporting: ImportOptions = {
    ...options,
    // A file read again reports only the unreadable rows beyond those already reported.
    onRejected: (row) => {
      if (row.line <= reportedThroughLine) return;
      reportedThroughLine = row.line;
      options.onRejected?.(row);
    },
  };
  let pass: ImportPass = { windowSeconds: FIRST_WINDOW_SECONDS, keepIdIndex: false };
  for (;;) {
    try {
      return await importOnce(database, file, reporting, pass);
    } catch (err) {
      // A row far older than those before it: read the file again remembering rows further back.
      if (err instanceof OutOfWindowError && pass.windowSeconds !== null)
        pass = { ...pass, windowSeconds: widerWindow(pass.windowSeconds, err) };
      // Two rows the primary key could not tell apart by id: write the file again keeping the id index.
      else if (err instanceof RepeatedIdError && !pass.keepIdIndex) pass = { ...pass, keepIdIndex: true };
      else throw err;
    }
  }
}

/** How one reading of a file goes; a reading that cannot finish is followed by a stricter one. */
interface ImportPass {
  /** How far back identical rows are remembered (see RowOccurrences); null: every row. */
  windowSeconds: number | null;
  keepIdIndex: boolean;
}

/**
 * Rows the parsing thread hands over at a time. A batch lives while it is written; small batches
 * die young in the garbage collector, where batches of 5,000 outlived young-generation collections
 * and raised the peak with the file (2 million rows: 187-191 MB against 198-212 MB, and faster).
 */
const BATCH_ROWS = 1000;

async function importOnce(
  database: Database,
  file: string,
  options: ImportOptions,
  pass: ImportPass,
): Promise<FileImportResult> {
  const totalBytes = (await stat(file)).size;
  const writer = createComplaintWriter(database);
  // The transaction opens before the file is read, so that no read error can arrive unheard.
  await writer.begin({ keepIdIndex: pass.keepIdIndex });
  const result: FileImportResult = { file, rows: 0, added: 0, existing: 0, rejected: 0 };
  // Another thread reads and converts the file while this one writes what it has received.
  const batches = readComplaintBatchesInWorker(file, {
    windowSeconds: pass.windowSeconds,
    strict: options.strict ?? false,
    batchSize: options.batchSize ?? BATCH_ROWS,
  });
  try {
    for await (const batch of batches) {
      for (const { line, reason } of batch.rejected) options.onRejected?.({ file, line, reason });
      result.rows = batch.rows;
      result.rejected += batch.rejected.length;
      await writer.insert(batch.complaints.map(complaintOf));
      options.onProgress?.({ file, rows: result.rows, bytesRead: batch.bytesRead, totalBytes });
    }
    const written = await writer.commit();
    result.added = written.added;
    result.existing = written.existing;
    options.onProgress?.({ file, rows: result.rows, bytesRead: totalBytes, totalBytes });
    return result;
  } catch (err) {
    await writer.rollback();
    if (err instanceof ImportFileError || err instanceof OutOfWindowError || err instanceof RepeatedIdError)
      throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new ImportFileError(file, `cannot be read as CSV (${message}); nothing of it was written`);
  } finally {
    await batches.return(undefined);
    await writer.close();
  }
}
