import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { COMPLAINT_CSV_HEADER, COMPLAINTS_COLLECTION, type Complaint } from "../domain/complaint.js";
import { createComplaintWriter } from "../store/complaint-writer.js";
import type { Database } from "../store/database.js";
import { FreshnessStore } from "../store/freshness-store.js";
import { complaintFromRow } from "./complaint-row.js";
import { readCsvRecords } from "./csv-records.js";
import { OutOfWindowError, RowOccurrences } from "./row-occurrences.js";

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

/** A file that cannot be imported at all (wrong header, not CSV, unreadable): nothing of it was written. */
export class ImportFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = "ImportFileError";
  }
}

const EXPECTED_HEADER = COMPLAINT_CSV_HEADER.join(",");

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
  const firstPass: ImportOptions = {
    ...options,
    onRejected: (row) => {
      reportedThroughLine = row.line;
      options.onRejected?.(row);
    },
  };
  try {
    return await importOnce(database, file, firstPass, new RowOccurrences());
  } catch (err) {
    if (!(err instanceof OutOfWindowError)) throw err;
    // A row far older than those before it: read the file again remembering every row.
    const secondPass: ImportOptions = {
      ...options,
      onRejected: (row) => {
        if (row.line > reportedThroughLine) options.onRejected?.(row);
      },
    };
    return importOnce(database, file, secondPass, new RowOccurrences(null));
  }
}

async function importOnce(
  database: Database,
  file: string,
  options: ImportOptions,
  occurrences: RowOccurrences,
): Promise<FileImportResult> {
  const batchSize = options.batchSize ?? 5000;
  const totalBytes = (await stat(file)).size;
  const writer = createComplaintWriter(database);
  // The transaction opens before the file is read, so that no read error can arrive unheard.
  await writer.begin();
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  let bytesRead = 0;
  raw.on("data", (chunk) => {
    bytesRead += chunk.length;
  });
  const text: Readable = file.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  if (text !== raw) raw.on("error", (err) => text.destroy(err));

  const result: FileImportResult = { file, rows: 0, added: 0, existing: 0, rejected: 0 };
  let batch: Complaint[] = [];
  let headerSeen = false;
  try {
    for await (const records of readCsvRecords(text)) {
      for (const { values, line } of records) {
        if (!headerSeen) {
          const header = values.join(",");
          if (header !== EXPECTED_HEADER) {
            throw new ImportFileError(
              file,
              `not a Do Not Call extract: the header is '${header.slice(0, 200)}', expected '${EXPECTED_HEADER}'`,
            );
          }
          headerSeen = true;
          continue;
        }
        result.rows++;
        const complaint = complaintFromRow(values, occurrences);
        if (typeof complaint === "string") {
          result.rejected++;
          if (options.strict)
            throw new ImportFileError(
              file,
              `line ${line}: ${complaint} (--strict: nothing of this file was written)`,
            );
          options.onRejected?.({ file, line, reason: complaint });
          continue;
        }
        batch.push(complaint);
        if (batch.length >= batchSize) {
          await writer.insert(batch);
          batch = [];
          options.onProgress?.({ file, rows: result.rows, bytesRead, totalBytes });
        }
      }
    }
    if (!headerSeen) throw new ImportFileError(file, "the file is empty; expected a header line");
    await writer.insert(batch);
    // The collection's update time commits with the rows, so Last-Modified never runs ahead of them.
    const freshness = new FreshnessStore(database);
    const written = await writer.commit((outcome) =>
      outcome.added > 0 ? [freshness.markUpdated(COMPLAINTS_COLLECTION, Math.floor(Date.now() / 1000))] : [],
    );
    result.added = written.added;
    result.existing = written.existing;
    options.onProgress?.({ file, rows: result.rows, bytesRead: totalBytes, totalBytes });
    return result;
  } catch (err) {
    await writer.rollback();
    if (err instanceof ImportFileError || err instanceof OutOfWindowError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new ImportFileError(file, `cannot be read as CSV (${message}); nothing of it was written`);
  } finally {
    raw.destroy();
    await writer.close();
  }
}
