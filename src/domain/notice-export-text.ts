import { csvText } from "./csv-text.js";
import { ENTITY_SEPARATOR, NOTICE_CSV_HEADER, type Notice } from "./notice.js";
import { noticeResourceText } from "./notice-envelope.js";
import type { NoticeQuery } from "./notice-query.js";
import { formatTimestamp } from "./time.js";

/** The header line of a notices CSV export: the columns `ftcapi import notices` reads. */
export function noticeCsvHeader(): string {
  return csvText([NOTICE_CSV_HEADER], "\n");
}

/**
 * Notices as lines of the CSV `ftcapi import notices` reads (and `ftcapi generate notices`
 * writes): absent values empty, acquired entities joined with `;`, times in ISO 8601 with offset.
 * The CSV has no title, tags or revision: an import derives the title from the parties and the
 * id from the transaction number.
 */
export function noticeCsvText(notices: readonly Notice[]): string {
  return csvText(
    notices.map((notice) => [
      notice.transactionNumber,
      notice.acquiringParty ?? "",
      notice.acquiredParty ?? "",
      notice.acquiredEntities.join(ENTITY_SEPARATOR),
      notice.date ?? "",
      formatTimestamp(notice.createdAt),
      formatTimestamp(notice.updatedAt),
    ]),
    "\n",
  );
}

/**
 * Notices as NDJSON: each a line holding the resource object a page's `data` holds (with the
 * request's sparse fieldset, if any).
 */
export function noticeNdjsonText(
  notices: readonly Notice[],
  collectionUrl: string,
  fields: NoticeQuery["fields"],
): string {
  let text = "";
  for (const notice of notices) text += `${noticeResourceText(notice, collectionUrl, fields)}\n`;
  return text;
}
