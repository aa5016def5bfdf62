import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { COMPLAINT_CSV_HEADER, type Complaint } from "../domain/complaint.js";
import { complaintFromRow } from "./complaint-row.js";
import { readCsvRecords } from "./csv-records.js";
import { ImportFileError } from "./import-file-error.js";
import { RowOccurrences } from "./row-occurrences.js";

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

/** An unreadable row: where it is and why. */
export interface RejectedLine {
  line: number;
  reason: string;
}

/** The next rows of a file, read and converted. */
export interface ComplaintBatch {
  complaints: ComplaintTuple[];
  rejected: RejectedLine[];
  /** Data rows of the file read so far (readable or not). */
  rows: number;
  /** Bytes of the file on disk read so far. */
  bytesRead: number;
}

export interface ComplaintBatchOptions {
  /** How far back identical rows are remembered (see RowOccurrences); null: every row. */
  windowSeconds: number | null;
  /** Stop at the first unreadable row with an ImportFileError. */
  strict: boolean;
  batchSize: number;
}

const EXPECTED_HEADER = COMPLAINT_CSV_HEADER.join(",");

export function tupleOf(complaint: Complaint): ComplaintTuple {
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
 * Reads a Do Not Call extract (CSV, or gzip-compressed CSV when named `.gz`) into batches of
 * complaints, each with the rows of it that cannot be read. Throws ImportFileError for a file that
 * is not an extract (wrong header, empty, or an unreadable row with `strict`), OutOfWindowError
 * when identical rows cannot be told apart within the window, and the reader's own error when the
 * file is not CSV or cannot be read.
 */
export async function* readComplaintBatches(
  file: string,
  options: ComplaintBatchOptions,
): AsyncGenerator<ComplaintBatch> {
  const occurrences = new RowOccurrences(options.windowSeconds);
  let bytesRead = 0;
  const countRead = (bytes: number) => {
    bytesRead += bytes;
  };
  const text = file.endsWith(".gz") ? gunzipped(file, countRead) : fileChunks(file, countRead);

  let complaints: ComplaintTuple[] = [];
  let rejected: RejectedLine[] = [];
  let rows = 0;
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
        rows++;
        const complaint = complaintFromRow(values, occurrences);
        if (typeof complaint === "string") {
          if (options.strict)
            throw new ImportFileError(
              file,
              `line ${line}: ${complaint} (--strict: nothing of this file was written)`,
            );
          rejected.push({ line, reason: complaint });
          continue;
        }
        complaints.push(tupleOf(complaint));
        if (complaints.length >= options.batchSize) {
          yield { complaints, rejected, rows, bytesRead };
          complaints = [];
          rejected = [];
        }
      }
    }
    if (!headerSeen) throw new ImportFileError(file, "the file is empty; expected a header line");
    yield { complaints, rejected, rows, bytesRead };
  } finally {
    await text.return(undefined);
  }
}

/** Bytes read at a time, into one buffer reused for the whole file. */
const READ_BYTES = 64 * 1024;

/**
 * A file's bytes, read into one buffer: each chunk yielded is a view of it, valid until the next
 * is asked for. Where a stream allocates a buffer for every read, which the garbage collector
 * frees only when the memory they hold outside the heap adds up (about 64 MB), this holds 64 KiB.
 */
async function* fileChunks(file: string, onRead: (bytes: number) => void): AsyncGenerator<Buffer> {
  const handle = await open(file);
  try {
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, null);
      if (bytesRead === 0) return;
      onRead(bytesRead);
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** A gzip-compressed file's bytes, decompressed as they are read; `onRead` counts compressed bytes. */
async function* gunzipped(file: string, onRead: (bytes: number) => void): AsyncGenerator<Buffer> {
  const raw = createReadStream(file, { highWaterMark: READ_BYTES });
  raw.on("data", (chunk) => onRead(chunk.length));
  const text: Readable = raw.pipe(createGunzip({ chunkSize: READ_BYTES }));
  raw.on("error", (err) => text.destroy(err));
  try {
    for await (const chunk of text) yield chunk as Buffer;
  } finally {
    raw.destroy();
    text.destroy();
  }
}
