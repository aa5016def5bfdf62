/**
 * The import skeleton both collections share: one transaction per file, rejected rows reported
 * with file and line or (`--strict`) refusing the file, progress, the CSV header check, and every
 * refusal's text. Each collection supplies its reader and writer (`FileReader`); the bytes come
 * from `openImportSource` (gzip told by its first bytes).
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Database } from "../store/database.js";

/** An unreadable row (or a record refused on writing, such as one given twice): where and why. */
export interface RejectedLine {
  line: number;
  reason: string;
}

/** A rejected row as reported to the caller, with its file. */
export interface RejectedRow extends RejectedLine {
  file: string;
}

/** How far an import is, after each batch and once committed. */
export interface ImportProgress {
  file: string;
  /** Data rows read so far, readable or not. */
  rows: number;
  bytesRead: number;
  /** Size of the file on disk (compressed size for gzip), or undefined when unknown. */
  totalBytes: number | undefined;
}

/** What every import of a file takes, whatever its collection. */
export interface ImportOptions {
  onRejected?: (row: RejectedRow) => void;
  onProgress?: (progress: ImportProgress) => void;
  /** Refuse the whole file at its first unreadable row (nothing of it is written). */
  strict?: boolean;
  /**
   * Stops the import (SIGINT, SIGTERM): checked after each batch and before the commit; once
   * aborted, the file's transaction is rolled back and the signal's reason thrown.
   */
  signal?: AbortSignal;
}

/** The next rows of a file, in file order, as a collection's reader hands them over. */
export interface ReadBatch<Item> {
  /** Rows read and converted. */
  readonly items: readonly Item[];
  /** Rows that cannot be read, in line order. */
  readonly rejected: readonly RejectedLine[];
  /**
   * How far into the file on disk reading is, for progress; absent for a file read whole before
   * its first batch (which reports no progress).
   */
  readonly position?: { readonly bytesRead: number; readonly totalBytes: number };
}

/**
 * One collection's writer for one file, in one transaction. `begin` is called before the first
 * batch is written (once the reader has handed it over, so a refused file never opens one), then
 * `write` for each batch and `commit`, or `rollback` on any failure; `close` always, even when
 * `begin` never was. `commit` records the collection's update time itself.
 */
export interface FileWriter<Item, Counts> {
  begin(): Promise<void>;
  /**
   * Writes one batch in the open transaction. Returns the items it refused (a record already given
   * earlier in the file), in line order; they count as rejected rows.
   */
  write(items: readonly Item[]): Promise<readonly RejectedLine[]>;
  commit(): Promise<Counts>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}

/** What a collection supplies to import one file: how to read it and how to write what was read. */
export interface FileReader<Item, Counts> {
  /**
   * The file's rows in batches. Throws ImportFileError for a file that cannot be imported (its
   * header, its format, CSV it cannot read), worded by ImportFileError's refusals; with `strict`,
   * it may stop reading after the batch holding the first unreadable row. Ending the iteration
   * early releases the file.
   */
  read(file: string, strict: boolean): AsyncIterable<ReadBatch<Item>>;
  /** A writer on `database` for this file's transaction. */
  writer(database: Database): FileWriter<Item, Counts>;
}

/** An imported file: its rows (readable or not), those rejected, and what the writer counted. */
export type ImportedFile<Counts> = { file: string; rows: number } & Counts & { rejected: number };

/** How long an import writes batches before it lets the event loop turn (`importFile`). */
const TURN_MS = 50;

/**
 * Imports one file in one transaction: the collection's reader reads it in batches (ImportFileError
 * when it cannot be imported), its writer writes each batch, and rows that cannot be read, or that
 * the writer refuses, are reported with file and line (`onRejected`, in line order within a batch)
 * and counted. With `strict`, the first of them refuses the file instead. On any failure the
 * transaction is rolled back, so a file is either wholly imported or not at all, and the error is
 * passed on unchanged. Progress is reported after each batch holding rows and once committed, for
 * readers that say how far they are. An aborted `signal` stops it between batches the same way:
 * rolled back, the signal's reason thrown.
 */
export async function importFile<Item, Counts>(
  database: Database,
  file: string,
  reader: FileReader<Item, Counts>,
  options: ImportOptions = {},
): Promise<ImportedFile<Counts>> {
  const writer = reader.writer(database);
  const batches = reader.read(file, options.strict ?? false)[Symbol.asyncIterator]();
  let rows = 0;
  let rejected = 0;
  let begun = false;
  let position: ReadBatch<Item>["position"];
  const progress = (bytesRead: number, totalBytes: number) =>
    options.onProgress?.({ file, rows, bytesRead, totalBytes });
  let turnedAt = performance.now();
  try {
    for (let next = await batches.next(); !next.done; next = await batches.next()) {
      // Batches a reader has already buffered arrive without the event loop turning, and a signal
      // (SIGINT, SIGTERM) is only heard when it turns: give it a turn now and then, so that an
      // interrupted import stops within the file it is in.
      if (performance.now() - turnedAt >= TURN_MS) {
        await nextTurn();
        turnedAt = performance.now();
      }
      options.signal?.throwIfAborted();
      const batch = next.value;
      if (!begun) await writer.begin();
      begun = true;
      const read = batch.items.length + batch.rejected.length;
      rows += read;
      const refused = await writer.write(batch.items);
      rejected += reject(file, inLineOrder(batch.rejected, refused), options);
      position = batch.position ?? position;
      if (position && read > 0) progress(position.bytesRead, position.totalBytes);
    }
    options.signal?.throwIfAborted();
    if (!begun) await writer.begin();
    const counts = await writer.commit();
    if (position) progress(position.totalBytes, position.totalBytes);
    return { file, rows, ...counts, rejected };
  } catch (err) {
    await writer.rollback();
    throw err;
  } finally {
    await batches.return?.();
    await writer.close();
  }
}

/** Reports rejected rows, or with `strict` refuses the file at the first; returns how many. */
function reject(file: string, lines: readonly RejectedLine[], options: ImportOptions): number {
  for (const { line, reason } of lines) {
    if (options.strict) throw ImportFileError.strict(file, line, reason);
    options.onRejected?.({ file, line, reason });
  }
  return lines.length;
}

/** Two lists each in line order, merged. */
function inLineOrder(
  read: readonly RejectedLine[],
  refused: readonly RejectedLine[],
): readonly RejectedLine[] {
  if (refused.length === 0) return read;
  if (read.length === 0) return refused;
  return [...read, ...refused].sort((a, b) => a.line - b.line);
}

/** A CSV header a reader expects, and how a refusal names the file it expected. */
export interface ExpectedCsv {
  /** `a Do Not Call extract`. */
  readonly what: string;
  readonly header: readonly string[];
  /** Compare names with their surrounding spaces removed. */
  readonly trimNames: boolean;
  /** What else such a file may be, for the refusal: `a JSON:API document`. */
  readonly otherwise?: string;
}

/**
 * Checks a CSV file's first record against the header expected, refusing the file
 * (ImportFileError) when it differs. `values` undefined: the file had no record at all.
 */
export function checkCsvHeader(
  file: string,
  values: readonly string[] | undefined,
  expected: ExpectedCsv,
): void {
  if (values === undefined) throw ImportFileError.empty(file, "a header line");
  const found = (expected.trimNames ? values.map((name) => name.trim()) : values).join(",");
  const header = expected.header.join(",");
  if (found !== header) throw ImportFileError.header(file, found, { ...expected, header });
}

/**
 * A file that cannot be imported at all (wrong header, not CSV, unreadable): nothing of it was
 * written. Every refusal an import makes is built by one of the static methods below, so each text
 * exists once, whichever collection or thread refuses.
 */
export class ImportFileError extends Error {
  constructor(
    readonly file: string,
    /** What is wrong with the file, without its name. */
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "ImportFileError";
  }

  /** The file cannot be opened or read (its decompression included). */
  static unreadable(file: string, cause: unknown): ImportFileError {
    return new ImportFileError(file, `cannot be read (${messageOf(cause)})`);
  }

  /** Reading the file as CSV failed (a broken quote, a record too long, a read error). */
  static notCsv(file: string, cause: unknown): ImportFileError {
    return new ImportFileError(
      file,
      `cannot be read as CSV (${messageOf(cause)}); nothing of it was written`,
    );
  }

  /** Nothing was found where `expected` should have been. */
  static empty(file: string, expected: string): ImportFileError {
    return new ImportFileError(file, `the file is empty; expected ${expected}`);
  }

  /**
   * The first line is not the expected header. `what` names the file that was expected (`a Do Not
   * Call extract`); `otherwise`, what else it could have been.
   */
  static header(
    file: string,
    found: string,
    expected: { what: string; header: string; otherwise?: string },
  ): ImportFileError {
    const otherwise = expected.otherwise === undefined ? "" : ` (or ${expected.otherwise})`;
    return new ImportFileError(
      file,
      `not ${expected.what}: the header is '${found.slice(0, 200)}', expected '${expected.header}'${otherwise}`,
    );
  }

  /** `--strict`, at the file's first unreadable row. */
  static strict(file: string, line: number, reason: string): ImportFileError {
    return new ImportFileError(file, `line ${line}: ${reason} (--strict: nothing of this file was written)`);
  }

  /** The file's start holds NUL bytes: it is not text. `expected` says what it should have been. */
  static binary(file: string, expected: string): ImportFileError {
    return new ImportFileError(file, `holds binary data: not ${expected}`);
  }

  /** A document read whole is larger than `maxBytes`. */
  static tooLarge(file: string, maxBytes: number): ImportFileError {
    return new ImportFileError(
      file,
      `is larger than ${maxBytes / 1024 / 1024} MB, the most read of a JSON document (it is read whole); split it into pages, or give the notices as CSV, which streams`,
    );
  }

  /** The file starts as JSON but does not parse. */
  static notJson(file: string, cause: unknown): ImportFileError {
    return new ImportFileError(file, `is not valid JSON (${messageOf(cause)})`);
  }

  /** The file is JSON without a `data` member holding records. */
  static notJsonApi(file: string): ImportFileError {
    return new ImportFileError(file, "not a JSON:API document: it has no data member holding records");
  }
}

/** The message of whatever was thrown. */
function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
