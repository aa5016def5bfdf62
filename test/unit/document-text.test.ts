import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Notice } from "../../src/domain/notice.js";
import {
  decodeQuery,
  encodeQuery,
  noticeDocument,
  noticeResource,
  noticeResourceText,
} from "../../src/domain/notice-envelope.js";
import { NoticeResourceBytes } from "../../src/domain/notice-resource-bytes.js";

const text = fc.string({ unit: "grapheme", maxLength: 40 });
const anyText = fc.oneof(text, fc.string({ unit: "binary", maxLength: 20 }));

const notice: fc.Arbitrary<Notice> = fc.record({
  id: fc.uuid(),
  revision: fc.integer({ min: 1, max: 1000 }),
  title: anyText,
  transactionNumber: fc.stringMatching(/^\d{1,11}$/),
  acquiredParty: fc.option(anyText, { nil: null }),
  acquiringParty: fc.option(anyText, { nil: null }),
  acquiredEntities: fc.array(anyText, { maxLength: 4 }),
  date: fc.option(fc.constant("2020-01-02"), { nil: null }),
  createdAt: fc.integer({ min: 0, max: 2_000_000_000 }),
  updatedAt: fc.integer({ min: 0, max: 2_000_000_000 }),
  tags: fc.array(anyText, { maxLength: 2 }),
});

test("a notices document written from kept resource bytes, and each resource object written as text, equal what JSON.stringify writes of the objects", () => {
  fc.assert(
    fc.property(
      fc.array(notice, { maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      fc.nat(100),
      fc.webUrl(),
      fc.webUrl(),
      fc.array(fc.tuple(anyText, anyText), { maxLength: 3 }),
      fc.nat(60),
      fc.integer({ min: 1, max: 50 }),
      fc.option(fc.subarray(["title", "date", "tags", "node_type"]), { nil: undefined }),
      (notices, picks, total, base, otherBase, pairs, offset, limit, fields) => {
        const kept = NoticeResourceBytes.measure(notices).write();
        // Each notice reads back as it was written.
        notices.forEach((written, position) => {
          const { createdAt, updatedAt } = written;
          // (fast-check's records have no prototype; the comparison is of their fields.)
          assert.deepEqual(kept.noticeAt(position, { createdAt, updatedAt }), { ...written });
        });
        // A page's notices in any order, some more than once, as positions in the kept set.
        const positions = notices.length === 0 ? [] : picks.map((pick) => pick % notices.length);
        const page = positions.map((position) => notices[position]!);
        // One set of kept bytes serves every address.
        for (const address of [base, otherBase, base]) {
          const options = {
            collectionUrl: `${address}/v0/hsr-early-termination-notices`,
            path: `${address}/v0/hsr-early-termination-notices`,
            pairs,
            query: { offset, limit, fields: fields as never },
            paged: true,
          };
          const expected = JSON.stringify(noticeDocument(page, total, options));
          // Each resource object written directly, as an export's NDJSON line is.
          for (const notice of page)
            assert.equal(
              noticeResourceText(notice, options.collectionUrl, fields as never),
              JSON.stringify(noticeResource(notice, options.collectionUrl, fields as never)),
            );
          if (fields !== undefined) continue;
          const bytes = kept.document(positions, total, options);
          assert.equal(bytes.toString(), expected);
          // Its own memory, so that it can be transferred whole.
          assert.equal(bytes.byteOffset, 0);
          assert.equal(bytes.buffer.byteLength, bytes.length);
        }
      },
    ),
    { numRuns: 500 },
  );
});

test("a list request's parameters survive being encoded for the notice reader and decoded there", () => {
  // Pairs come from URLSearchParams, which decodes to well-formed text (no lone surrogates).
  const part = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 30 }),
    fc.stringMatching(/^[+&=%#?[\] a-z0-9]{0,12}$/),
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(part, part), { maxLength: 8 }), (pairs) => {
      assert.deepEqual(decodeQuery(encodeQuery(pairs)), pairs);
    }),
    { numRuns: 1000 },
  );
});
