import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import fc from "fast-check";
import { csvText } from "../../src/domain/csv-text.js";

// Values with what CSV must quote (quotes, commas, CR, LF), padding, empties and any Unicode.
const value = fc.oneof(
  fc.string({
    unit: fc.constantFrom('"', ",", "\r", "\n", " ", "a", "Z", "0", ";", "'", "\t", "é"),
    maxLength: 12,
  }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 10 }),
  fc.constant(""),
);

// Rows of two fields or more, as both collections' CSV have (csv-stringify leaves a lone line
// break unquoted in a one-field row).
const rows = fc.array(fc.array(value, { minLength: 2, maxLength: 8 }), { maxLength: 6 });

test("CSV text is byte for byte what csv-stringify writes (as `ftcapi generate` does), and reads back", () => {
  fc.assert(
    fc.property(rows, (rows) => {
      assert.equal(csvText(rows, "\n"), stringify(rows));
      // With CRLF, csv-stringify does not quote a value holding a lone CR or LF, which no reader
      // then reads back; the extracts hold none, and there the bytes are the same.
      if (!rows.some((row) => row.some((field) => /[\r\n]/.test(field))))
        assert.equal(csvText(rows, "\r\n"), stringify(rows, { record_delimiter: "windows" }));
      for (const lineEnd of ["\r\n", "\n"] as const) {
        const text = csvText(rows, lineEnd);
        assert.deepEqual(text === "" ? [] : parse(text, { relax_column_count: true }), rows);
      }
    }),
    { numRuns: 2000 },
  );
});

test("CSV text quotes only values that need it", () => {
  assert.equal(
    csvText([["a", "", "b,c", 'say "hi"', "two\nlines", " padded "]], "\r\n"),
    'a,,"b,c","say ""hi""","two\nlines", padded \r\n',
  );
});
