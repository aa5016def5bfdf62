import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { NOTICE_CSV_HEADER, type Notice } from "../domain/notice.js";
import { nowSeconds } from "../domain/time.js";
import type { Database } from "../store/database.js";
import { type NoticeWriteResult, NoticeWriter } from "../store/notice-writer.js";
import {
  checkCsvHeader,
  type ExpectedCsv,
  type FileReader,
  type FileWriter,
  ImportFileError,
  type ImportOptions,
  importFile,
  type ReadBatch,
  type RejectedLine,
} from "./import-file.js";
import { openImportSource, peekImportText } from "./import-source.js";
import { readNoticeDocument } from "./notice-document.js";
import { noticeFromCsvRow } from "./notice-row.js";

export interface NoticeFileResult {
  file: string;
  format: "json" | "csv";
  rows: number;
  added: number;
  changed: number;
  unchanged: number;
  rejected: number;
}

export interface NoticeImportOptions extends ImportOptions {
  /** The update time of notices an import changes without giving a later one; default now. */
  nowSeconds?: number;
  /**
   * Records per write (and per progress report); default 500. Small batches die young in the
   * garbage collector: 200,000 notices peak at 199 MB, against 226 MB with batches of 2,000.
   */
  batchSize?: number;
}

/** A notice read from a file, with the line it starts on (CSV: ends on). */
interface LineNotice {
  line: number;
  notice: Notice;
}

/** What a notices CSV starts with. */
const NOTICES_CSV: ExpectedCsv = {
  what: "a notices file",
  header: NOTICE_CSV_HEADER,
  trimNames: true,
  otherwise: "a JSON:API document",
};

/**
 * Imports one file of notices with `importFile`, in one transaction: a JSON:API document as the
 * live collection returns it (a saved page of its list, or a single record; read whole, up to
 * MAX_JSON_BYTES), or a CSV with the columns of NOTICE_CSV_HEADER (streamed: memory does not grow
 * with the file). Gzip is read directly. The format is told from the content. Unreadable records,
 * and a transaction given twice, are reported with file and line and counted; a file that is
 * neither format (or empty, or binary) is refused with nothing of it written.
 */
export async function importNoticeFile(
  database: Database,
  file: string,
  options: NoticeImportOptions = {},
): Promise<NoticeFileResult> {
  const format = await noticeFormat(file);
  const batchSize = options.batchSize ?? 500;
  const reader: FileReader<LineNotice, NoticeWriteResult> = {
    read: format === "json" ? () => jsonBatches(file, batchSize) : () => csvBatches(file, batchSize),
    writer: (on) => noticeFileWriter(on, options.nowSeconds ?? nowSeconds()),
  };
  const { rows, added, changed, unchanged, rejected } = await importFile(database, file, reader, options);
  return { file, format, rows, added, changed, unchanged, rejected };
}

/** Tells a notices file's format from its first bytes, refusing a file of neither. */
async function noticeFormat(file: string): Promise<"json" | "csv"> {
  let start: Buffer;
  try {
    start = await peekImportText(file);
  } catch (err) {
    throw ImportFileError.unreadable(file, err);
  }
  const text = start.toString("utf8").replace(/^\uFEFF/, "");
  if (text.trim() === "") throw ImportFileError.empty(file, "a CSV header line or a JSON:API document");
  if (start.includes(0))
    throw ImportFileError.binary(
      file,
      "a notices file (CSV with a header line, or a JSON:API document; gzip is read directly)",
    );
  return /^\s*[{[]/.test(text) ? "json" : "csv";
}

/** A notices CSV in batches of `batchSize` records; lines are those a record ends on. */
async function* csvBatches(file: string, batchSize: number): AsyncGenerator<ReadBatch<LineNotice>> {
  const source = await openImportSource(file).catch((err: unknown) => {
    throw ImportFileError.notCsv(file, err);
  });
  // csv-parse keeps the unparsed end of a chunk, so chunks are copied off the source's reused buffer.
  const input = Readable.from(copies(source.chunks), { objectMode: false });
  const parser = input.pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      max_record_size: 65_536,
    }),
  );
  input.on("error", (err) => parser.destroy(err));
  const position = () => ({ bytesRead: source.bytesRead(), totalBytes: source.totalBytes });
  let batch: { items: LineNotice[]; rejected: RejectedLine[] } = { items: [], rejected: [] };
  let headerSeen = false;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (!headerSeen) {
        checkCsvHeader(file, record, NOTICES_CSV);
        headerSeen = true;
        continue;
      }
      const notice = noticeFromCsvRow(record);
      if (typeof notice === "string") batch.rejected.push({ line: info.lines, reason: notice });
      else batch.items.push({ line: info.lines, notice });
      if (batch.items.length + batch.rejected.length >= batchSize) {
        yield { ...batch, position: position() };
        batch = { items: [], rejected: [] };
      }
    }
  } catch (err) {
    throw err instanceof ImportFileError ? err : ImportFileError.notCsv(file, err);
  } finally {
    input.destroy();
    parser.destroy();
  }
  if (!headerSeen) checkCsvHeader(file, undefined, NOTICES_CSV);
  yield { ...batch, position: position() };
}

async function* copies(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) yield Buffer.from(chunk);
}

/** A JSON:API document's records, read whole, in batches of `batchSize`. */
async function* jsonBatches(file: string, batchSize: number): AsyncGenerator<ReadBatch<LineNotice>> {
  const records = await readNoticeDocument(file);
  for (let start = 0; start < records.length; start += batchSize) {
    const batch: { items: LineNotice[]; rejected: RejectedLine[] } = { items: [], rejected: [] };
    for (const { line, notice } of records.slice(start, start + batchSize)) {
      if (typeof notice === "string") batch.rejected.push({ line, reason: notice });
      else batch.items.push({ line, notice });
    }
    yield batch;
  }
}

/**
 * The notice writer for one file: its ids are claimed with their lines in the transaction, so a
 * transaction given twice in the file, in one batch or across batches, is refused with both lines.
 */
function noticeFileWriter(database: Database, now: number): FileWriter<LineNotice, NoticeWriteResult> {
  const writer = new NoticeWriter(database, now);
  return {
    begin: () => writer.begin(true),
    write: (records) => writeNew(writer, records),
    commit: () => writer.commit(),
    rollback: () => writer.rollback(),
    close: () => writer.close(),
  };
}

/**
 * Writes the notices of a batch not given earlier in the file, and returns those that were, in
 * line order. Repeats within the batch are found here; repeats of an earlier batch by the writer,
 * in the database.
 */
async function writeNew(writer: NoticeWriter, records: readonly LineNotice[]): Promise<RejectedLine[]> {
  if (records.length === 0) return [];
  const firstInBatch = new Map<string, { index: number; line: number }>();
  records.forEach(({ line, notice }, index) => {
    if (!firstInBatch.has(notice.id)) firstInBatch.set(notice.id, { index, line });
  });
  const earlier = await writer.claimLines([...firstInBatch].map(([id, { line }]) => ({ id, line })));
  const fresh: Notice[] = [];
  const repeated: RejectedLine[] = [];
  records.forEach(({ line, notice }, index) => {
    const first = firstInBatch.get(notice.id);
    const firstLine = earlier.get(notice.id) ?? (first && first.index !== index ? first.line : undefined);
    if (firstLine === undefined) fresh.push(notice);
    else
      repeated.push({
        line,
        reason: `transaction ${notice.transactionNumber} (id ${notice.id}) was already given on line ${firstLine}`,
      });
  });
  await writer.write(fresh);
  return repeated;
}
