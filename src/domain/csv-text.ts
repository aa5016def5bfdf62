/** A value that must be quoted: it holds a quote, a comma or a line break. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * Rows as CSV text, each ending in `lineEnd`: RFC 4180 with quotes only around a value that holds
 * a quote (doubled inside), a comma or a line break, empty values empty. These are exactly the
 * bytes csv-stringify writes with its default options (and `record_delimiter: "windows"` for
 * CRLF), as `ftcapi generate` writes files, which test/unit/csv-text.test.ts holds it to; written
 * here because an export writes millions of rows and csv-stringify's synchronous API costs about
 * ten times as much a row (it normalises its options and casts every value on each call).
 */
export function csvText(rows: ReadonlyArray<readonly string[]>, lineEnd: "\r\n" | "\n"): string {
  let text = "";
  for (const row of rows) {
    for (let index = 0; index < row.length; index++) {
      const value = row[index]!;
      if (index > 0) text += ",";
      text += NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
    }
    text += lineEnd;
  }
  return text;
}
