import { isCalendarDate } from "./notice.js";
import type { FilterCondition } from "./notice-filter-node.js";
import { type PlainParameter, unquote } from "./notice-parameters.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";

/**
 * The spec's plain filter parameters as conditions for the root group, in this order: each word
 * of `title`, then of `keywords` (a double-quoted phrase stays one) as title CONTAINS;
 * `transaction_number` as equal digits; `date` as an equal calendar date (quotes allowed). Throws
 * the 400 for an empty keyword text, a transaction number that is not digits, or a bad date.
 */
export function plainNoticeFilters(plain: ReadonlyMap<PlainParameter, string>): FilterCondition[] {
  const conditions: FilterCondition[] = [];
  for (const name of ["title", "keywords"] as const) {
    const text = plain.get(name);
    if (text === undefined) continue;
    const words = keywords(text);
    if (words.length === 0) throw refuseNoticeQuery("keywordsEmpty", name, { name });
    for (const word of words)
      conditions.push({ kind: "condition", field: "title", operator: "CONTAINS", values: [word] });
  }
  const transaction = plain.get("transaction_number");
  if (transaction !== undefined) {
    if (!/^\d{1,20}$/.test(transaction.trim())) {
      throw refuseNoticeQuery("transactionNumberInvalid", "transaction_number", { value: transaction });
    }
    conditions.push({
      kind: "condition",
      field: "transaction-number",
      operator: "=",
      values: [transaction.trim()],
    });
  }
  const date = plain.get("date");
  if (date !== undefined) {
    const text = unquote(date);
    if (!isCalendarDate(text)) throw refuseNoticeQuery("dateInvalid", "date", { value: date });
    conditions.push({ kind: "condition", field: "date", operator: "=", values: [text] });
  }
  return conditions;
}

/** Words of a keyword search; a double-quoted phrase stays one. */
function keywords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|([^\s"]+)/g)) {
    const word = (match[1] ?? match[2] ?? "").trim();
    if (word !== "") words.push(word);
  }
  return words;
}
