import type { ComplaintRow } from "./complaint.js";
import { complaintResourcesText } from "./complaint-envelope.js";

/**
 * How a page's rows are written as text where they are read: a named writer and its arguments,
 * plain data, so that it can cross to the thread that read the rows (SQLite's read workers) and the
 * page reaches the event loop as one block of UTF-8 bytes instead of rows to copy, write and encode.
 */
export interface RowRendering {
  readonly renderer: "complaint-resources";
  /** Absolute URL of the collection, without a trailing slash; records link below it. */
  readonly recordBaseUrl: string;
  /** Write the rows last to first. */
  readonly reverse: boolean;
}

/** A page's rows as written by a `RowRendering`. */
export interface RenderedRows {
  /** How many rows were written. */
  readonly count: number;
  /** Their text, UTF-8 encoded. */
  readonly bytes: Uint8Array;
}

const encoder = new TextEncoder();

/** Writes `rows` as `rendering` says; the bytes own their buffer, so that it can be transferred. */
export function renderRows(rows: readonly unknown[][], rendering: RowRendering): RenderedRows {
  switch (rendering.renderer) {
    case "complaint-resources":
      return {
        count: rows.length,
        bytes: encoder.encode(
          complaintResourcesText(
            rows as unknown as readonly ComplaintRow[],
            rendering.recordBaseUrl,
            rendering.reverse,
          ),
        ),
      };
  }
}
