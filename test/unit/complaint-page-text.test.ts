import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { ComplaintRow } from "../../src/domain/complaint.js";
import { complaintEnvelope, complaintPageText } from "../../src/domain/complaint-envelope.js";

const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 20 }),
);
// Times from year 1000 to 9999, whole seconds, as the store keeps them.
const seconds = fc.integer({ min: -30_610_224_000, max: 253_402_300_799 });

const row: fc.Arbitrary<ComplaintRow> = fc.tuple(
  fc.stringMatching(/^[0-9a-f]{32}$/),
  seconds,
  seconds,
  text,
  text,
  text,
  text,
  text,
  fc.constantFrom("Y", "N", ""),
);

test("a page written as text is JSON.stringify of its envelope, byte for byte", () => {
  fc.assert(
    fc.property(
      fc.array(row, { maxLength: 8 }),
      fc.nat(),
      fc.webUrl(),
      fc.webUrl({ withQueryParameters: true }),
      (rows, total, base, self) => {
        const records = rows.map(
          ([id, createdAt, violationAt, companyPhoneNumber, city, state, areaCode, subject, robocall]) => ({
            id,
            createdAt,
            violationAt,
            companyPhoneNumber,
            city,
            state,
            areaCode,
            subject,
            robocall,
          }),
        );
        const expected = JSON.stringify(complaintEnvelope(records, total, base, self));
        assert.equal(complaintPageText(rows, total, base, self), expected);
        // Rows read last to first (a page near the end) are written in the page's order.
        assert.equal(complaintPageText([...rows].reverse(), total, base, self, true), expected);
      },
    ),
    { numRuns: 2000 },
  );
});
