import type { Notice } from "../domain/notice.js";
import { ImportFileError } from "./import-file.js";
import { readImportText } from "./import-source.js";
import { noticeFromResource } from "./notice-row.js";

/**
 * The largest JSON:API document read (decompressed): such documents are saved pages of the live
 * list (at most 50 records) or single records, read whole; anything near this size belongs in CSV,
 * which streams.
 */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** A record of a document: the notice, or why it cannot be read, and the line it starts on. */
export interface DocumentRecord {
  line: number;
  notice: Notice | string;
}

/**
 * Reads a JSON:API document of notices whole (gzip-compressed or not): a saved page of the live
 * list, or a single record. Refuses (ImportFileError) a file larger than MAX_JSON_BYTES, one that is
 * not JSON, and JSON without a `data` member holding records; a record that is not a notice is
 * returned with its reason.
 */
export async function readNoticeDocument(file: string): Promise<DocumentRecord[]> {
  const text = (
    await readImportText(file, MAX_JSON_BYTES, () => ImportFileError.tooLarge(file, MAX_JSON_BYTES)).catch(
      (err: unknown) => {
        throw err instanceof ImportFileError ? err : ImportFileError.unreadable(file, err);
      },
    )
  ).replace(/^\uFEFF/, "");
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw ImportFileError.notJson(file, err);
  }
  const data =
    typeof document === "object" && document !== null && !Array.isArray(document)
      ? (document as Record<string, unknown>).data
      : undefined;
  if (data === undefined || (typeof data !== "object" && data !== null))
    throw ImportFileError.notJsonApi(file);
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
