import { RepeatedIdError, type WriteResult } from "../store/complaint-writer.js";
import type { Database } from "../store/database.js";
import { type ComplaintTuple, complaintOf, readComplaintBatchesInWorker } from "./complaint-parse-thread.js";
import { type FileReader, type ImportedFile, type ImportOptions, importFile } from "./import-file.js";
import { FIRST_WINDOW_SECONDS, OutOfWindowError, widerWindow } from "./row-occurrences.js";

/** An imported extract: rows read, added, already present (same derived id), rejected. */
export type FileImportResult = ImportedFile<WriteResult>;

export interface ComplaintImportOptions extends ImportOptions {
  /** Rows the parsing thread hands over at a time (BATCH_ROWS by default). */
  batchSize?: number;
}

/**
 * Rows the parsing thread hands over at a time. A batch lives while it is written; small batches
 * die young in the garbage collector, where batches of 5,000 outlived young-generation collections
 * and raised the peak with the file (2 million rows: 187-191 MB against 198-212 MB, and faster).
 */
const BATCH_ROWS = 1000;

/** How one reading of a file goes; a reading that cannot finish is followed by a stricter one. */
interface ImportPass {
  /** How far back identical rows are remembered (see RowOccurrences); null: every row. */
  windowSeconds: number | null;
  keepIdIndex: boolean;
}

/**
 * Imports an FTC Do Not Call extract (CSV, or gzip-compressed CSV) with `importFile`: streaming,
 * one transaction, a file wholly imported or not at all. Rows already stored (same derived id) are
 * counted as existing; unreadable rows are reported with file and line, once each however often
 * the file is read, and counted as rejected. A file is read again, from a rolled-back start, when
 * identical rows stand further apart than the window remembers or two rows turn out to share an
 * id; the result is that of the reading that finished.
 */
export async function importComplaintFile(
  database: Database,
  file: string,
  options: ComplaintImportOptions = {},
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
      return await importFile(
        database,
        file,
        extractReader(pass, options.batchSize ?? BATCH_ROWS),
        reporting,
      );
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

/**
 * Complaints' part of `importFile` for one pass: another thread reads and converts the file while
 * this one writes what it has received through the database's complaint writer.
 */
function extractReader(pass: ImportPass, batchSize: number): FileReader<ComplaintTuple, WriteResult> {
  const none: readonly [] = [];
  return {
    read: (file, strict) =>
      readComplaintBatchesInWorker(file, { windowSeconds: pass.windowSeconds, strict, batchSize }),
    writer(database) {
      const writer = database.complaintWriter();
      return {
        begin: () => writer.begin({ keepIdIndex: pass.keepIdIndex }),
        async write(tuples) {
          await writer.insert(tuples.map(complaintOf));
          return none;
        },
        commit: () => writer.commit(),
        rollback: () => writer.rollback(),
        close: () => writer.close(),
      };
    },
  };
}
