import { parse } from "csv-parse";
import { NOTICE_CSV_HEADER, type Notice } from "../domain/notice.js";
import type { Database } from "../store/database.js";
import { NoticeWriter } from "../store/notice-writer.js";
import type { ImportProgress, RejectedRow } from "./complaint-importer.js";
import { ImportFileError } from "./import-file-error.js";
import { openImportSource, peekImportText, readImportText } from "./import-source.js";
import { noticeFromCsvRow, noticeFromResource } from "./notice-row.js";

export interface NoticeFileResult {
  file: string;
  format: "json" | "csv";
  rows: number;
  added: number;
  changed: number;
  unchanged: number;
  rejected: number;
}

export interface NoticeImportOptions {
  onRejected?: (row: RejectedRow) => void;
  onProgress?: (progress: ImportProgress) => void;
  /** Refuse the whole file at its first unreadable record (nothing of it is written). */
  strict?: boolean;
  /** The update time of notices an import changes without giving a later one; default now. */
  nowSeconds?: number;
  /**
   * Records per write (and per progress report); default 500. Small batches die young in the
   * garbage collector: 200,000 notices peak at 199 MB, against 226 MB with batches of 2,000.
   */
  batchSize?: number;
}

/**
 * The largest JSON:API document read (decompressed): such documents are saved pages of the live
 * list (at most 50 records) or single records, read whole; anything near this size belongs in CSV,
 * which streams.
 */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

const EXPECTED_HEADER = NOTICE_CSV_HEADER.join(",");

interface ReadRecord {
  line: number;
  notice: Notice | string;
}

/**
 * Imports one file of notices, in one transaction: a JSON:API document as the live collection
 * returns it (a saved page of its list, or a single record; read whole, up to MAX_JSON_BYTES), or a
 * CSV with the columns of NOTICE_CSV_HEADER (streamed: memory does not grow with the file). Gzip is
 * read directly. The format is told from the content. Unreadable records, and a transaction given
 * twice, are reported with file and line and counted; a file that is neither format (or empty, or
 * binary) is refused with nothing of it written.
 */
export async function importNoticeFile(
  database: Database,
  file: string,
  options: NoticeImportOptions = {},
): Promise<NoticeFileResult> {
  let start: Buffer;
  try {
    start = await peekImportText(file);
  } catch (err) {
    throw new ImportFileError(file, `cannot be read (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = start.toString("utf8").replace(/^\uFEFF/, "");
  if (text.trim() === "")
    throw new ImportFileError(file, "the file is empty; expected a CSV header line or a JSON:API document");
  if (start.includes(0))
    throw new ImportFileError(
      file,
      "holds binary data: not a notices file (CSV with a header line, or a JSON:API document; gzip is read directly)",
    );
  const format = /^\s*[{[]/.test(text) ? "json" : "csv";
  const result: NoticeFileResult = {
    file,
    format,
    rows: 0,
    added: 0,
    changed: 0,
    unchanged: 0,
    rejected: 0,
  };
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const writer = new NoticeWriter(database, nowSeconds);
  const batchSize = options.batchSize ?? 500;
  let batch: ReadRecord[] = [];
  // Errors while writing are the database's (or --strict's), not the file's: they are not re-worded as a CSV error.
  let writing = false;
  const flush = async () => {
    writing = true;
    await writeBatch(writer, file, batch, options, result);
    writing = false;
    batch = [];
  };
  try {
    if (format === "json") {
      const records = await jsonRecords(file);
      await writer.begin(true);
      for (const record of records) {
        result.rows++;
        batch.push(record);
        if (batch.length >= batchSize) await flush();
      }
      await flush();
      await commit(writer, result);
      return result;
    }
    const source = await openImportSource(file);
    const progress = (bytesRead: number) =>
      options.onProgress?.({ file, rows: result.rows, bytesRead, totalBytes: source.totalBytes });
    const parser = source.text.pipe(
      parse({
        bom: true,
        relax_column_count: true,
        skip_empty_lines: true,
        info: true,
        max_record_size: 65_536,
      }),
    );
    source.text.on("error", (err) => parser.destroy(err));
    try {
      let headerSeen = false;
      for await (const { record, info } of parser as AsyncIterable<{
        record: string[];
        info: { lines: number };
      }>) {
        if (!headerSeen) {
          const headerText = record.map((name) => name.trim()).join(",");
          if (headerText !== EXPECTED_HEADER) {
            throw new ImportFileError(
              file,
              `not a notices file: the header is '${headerText.slice(0, 200)}', expected '${EXPECTED_HEADER}' (or a JSON:API document)`,
            );
          }
          headerSeen = true;
          // The transaction opens once the header is known good, before any row is written.
          writing = true;
          await writer.begin(true);
          writing = false;
          continue;
        }
        result.rows++;
        batch.push({ line: info.lines, notice: noticeFromCsvRow(record) });
        if (batch.length >= batchSize) {
          await flush();
          progress(source.bytesRead());
        }
      }
      if (!headerSeen) throw new ImportFileError(file, "the file is empty; expected a header line");
      await flush();
      writing = true;
      await commit(writer, result);
      progress(source.totalBytes);
      return result;
    } catch (err) {
      if (err instanceof ImportFileError || writing) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new ImportFileError(file, `cannot be read as CSV (${message}); nothing of it was written`);
    } finally {
      source.close();
    }
  } catch (err) {
    await writer.rollback();
    throw err;
  } finally {
    await writer.close();
  }
}

async function commit(writer: NoticeWriter, result: NoticeFileResult): Promise<void> {
  const written = await writer.commit();
  result.added = written.added;
  result.changed = written.changed;
  result.unchanged = written.unchanged;
}

/**
 * Writes one batch of read records in the open transaction. Rejections (unreadable, or a
 * transaction already given earlier in the file) are handled in line order, so `--strict` fails at
 * the first bad line of the file.
 */
async function writeBatch(
  writer: NoticeWriter,
  file: string,
  batch: readonly ReadRecord[],
  options: NoticeImportOptions,
  result: NoticeFileResult,
): Promise<void> {
  if (batch.length === 0) return;
  // Repeats within the batch are found here; repeats of an earlier batch by the writer, in the database.
  const firstInBatch = new Map<string, { index: number; line: number }>();
  batch.forEach(({ line, notice }, index) => {
    if (typeof notice !== "string" && !firstInBatch.has(notice.id))
      firstInBatch.set(notice.id, { index, line });
  });
  const earlier = await writer.claimLines([...firstInBatch].map(([id, { line }]) => ({ id, line })));
  const notices: Notice[] = [];
  for (const [index, { line, notice }] of batch.entries()) {
    let reason: string | undefined;
    if (typeof notice === "string") {
      reason = notice;
    } else {
      const first = firstInBatch.get(notice.id);
      const firstLine = earlier.get(notice.id) ?? (first && first.index !== index ? first.line : undefined);
      if (firstLine !== undefined) {
        reason = `transaction ${notice.transactionNumber} (id ${notice.id}) was already given on line ${firstLine}`;
      } else {
        notices.push(notice);
      }
    }
    if (reason === undefined) continue;
    result.rejected++;
    if (options.strict) {
      throw new ImportFileError(file, `line ${line}: ${reason} (--strict: nothing of this file was written)`);
    }
    options.onRejected?.({ file, line, reason });
  }
  await writer.write(notices);
}

async function jsonRecords(file: string): Promise<ReadRecord[]> {
  const text = (
    await readImportText(
      file,
      MAX_JSON_BYTES,
      () =>
        new ImportFileError(
          file,
          `is larger than ${MAX_JSON_BYTES / 1024 / 1024} MB, the most read of a JSON document (it is read whole); split it into pages, or give the notices as CSV, which streams`,
        ),
    ).catch((err: unknown) => {
      if (err instanceof ImportFileError) throw err;
      throw new ImportFileError(file, `cannot be read (${err instanceof Error ? err.message : String(err)})`);
    })
  ).replace(/^\uFEFF/, "");
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new ImportFileError(
      file,
      `is not valid JSON (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const data =
    typeof document === "object" && document !== null && !Array.isArray(document)
      ? (document as Record<string, unknown>).data
      : undefined;
  if (data === undefined || (typeof data !== "object" && data !== null)) {
    throw new ImportFileError(file, "not a JSON:API document: it has no data member holding records");
  }
  const resources = data === null ? [] : Array.isArray(data) ? data : [data];
  const lines = lineFinder(text);
  return resources.map((resource, index) => ({
    line: lines(resource, index),
    notice: noticeFromResource(resource),
  }));
}
/** The line a record starts on: where its id first appears, else where its index's type member does. */
function lineFinder(text: string): (resource: unknown, index: number) => number {
  const typeOffsets = [...text.matchAll(/"type"\s*:\s*"/g)].map((match) => match.index ?? 0);
  const lineAt = (offset: number) => {
    let line = 1;
    for (
      let position = text.indexOf("\n");
      position !== -1 && position < offset;
      position = text.indexOf("\n", position + 1)
    )
      line++;
    return line;
  };
  return (resource, index) => {
    const id = (resource as { id?: unknown } | null)?.id;
    if (typeof id === "string" && id !== "") {
      const at = text.indexOf(JSON.stringify(id));
      if (at !== -1) return lineAt(at);
    }
    const offset = typeOffsets[index];
    return offset === undefined ? 1 : lineAt(offset);
  };
}
