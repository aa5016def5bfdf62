import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import { NOTICE_CSV_HEADER, NOTICES_COLLECTION, type Notice } from "../domain/notice.js";
import type { Database } from "../store/database.js";
import { FreshnessStore } from "../store/freshness-store.js";
import { writeNotices } from "../store/notice-writer.js";
import { ImportFileError, type RejectedRow } from "./complaint-importer.js";
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
  /** Refuse the whole file at its first unreadable record (nothing of it is written). */
  strict?: boolean;
  /** The update time of notices an import changes without giving a later one; default now. */
  nowSeconds?: number;
}

const EXPECTED_HEADER = NOTICE_CSV_HEADER.join(",");

/**
 * Imports one file of notices, in one transaction: a JSON:API document as the live collection
 * returns it (a saved page of its list, or a single record), or a CSV with the columns of
 * NOTICE_CSV_HEADER; `.gz` is read directly. The format is told from the content. Unreadable
 * records are reported with file and line and counted; a file that is neither format is refused.
 */
export async function importNoticeFile(
  database: Database,
  file: string,
  options: NoticeImportOptions = {},
): Promise<NoticeFileResult> {
  let text: string;
  try {
    const bytes = await readFile(file);
    text = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8").replace(/^\uFEFF/, "");
  } catch (err) {
    throw new ImportFileError(file, `cannot be read (${err instanceof Error ? err.message : String(err)})`);
  }
  const format = /^\s*[{[]/.test(text) ? "json" : "csv";
  const records = format === "json" ? jsonRecords(file, text) : csvRecords(file, text);
  const result: NoticeFileResult = {
    file,
    format,
    rows: records.length,
    added: 0,
    changed: 0,
    unchanged: 0,
    rejected: 0,
  };
  const seen = new Map<string, number>();
  const notices: Notice[] = [];
  for (const { line, notice } of records) {
    let reason = typeof notice === "string" ? notice : undefined;
    if (typeof notice !== "string") {
      const earlier = seen.get(notice.id);
      if (earlier !== undefined) {
        reason = `transaction ${notice.transactionNumber} (id ${notice.id}) was already given on line ${earlier}`;
      } else {
        seen.set(notice.id, line);
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
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const freshness = new FreshnessStore(database);
  // The collection's update time commits with the notices, so Last-Modified never runs ahead of them.
  const written = await writeNotices(database, notices, nowSeconds, {
    also: (outcome) =>
      outcome.added + outcome.changed > 0
        ? [freshness.markUpdated(NOTICES_COLLECTION, Math.floor(Date.now() / 1000))]
        : [],
  });
  result.added = written.added;
  result.changed = written.changed;
  result.unchanged = written.unchanged;
  return result;
}

interface ReadRecord {
  line: number;
  notice: Notice | string;
}

function csvRecords(file: string, text: string): ReadRecord[] {
  let rows: Array<{ record: string[]; info: { lines: number } }>;
  try {
    rows = parse(text, {
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      max_record_size: 65_536,
    }) as unknown as typeof rows;
  } catch (err) {
    throw new ImportFileError(
      file,
      `cannot be read as CSV (${err instanceof Error ? err.message : String(err)}); nothing of it was written`,
    );
  }
  const [header, ...body] = rows;
  if (!header) throw new ImportFileError(file, "the file is empty; expected a header line");
  const headerText = header.record.map((name) => name.trim()).join(",");
  if (headerText !== EXPECTED_HEADER) {
    throw new ImportFileError(
      file,
      `not a notices file: the header is '${headerText.slice(0, 200)}', expected '${EXPECTED_HEADER}' (or a JSON:API document)`,
    );
  }
  return body.map(({ record, info }) => ({ line: info.lines, notice: noticeFromCsvRow(record) }));
}

function jsonRecords(file: string, text: string): ReadRecord[] {
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
