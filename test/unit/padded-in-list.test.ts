import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { paddedInList } from "../../src/store/padded-in-list.js";

describe("paddedInList", () => {
  it("keeps every value, in order, and only repeats the last", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 3000 }), (values) => {
        const padded = paddedInList(values);
        assert.deepEqual(padded.slice(0, values.length), values);
        for (const extra of padded.slice(values.length)) assert.equal(extra, values.at(-1));
        assert.ok(padded.length < values.length * 1.25 + 1, `${values.length} became ${padded.length}`);
      }),
    );
  });

  it("leaves lists of up to 16 values as they are", () => {
    for (let length = 0; length <= 16; length++)
      assert.equal(paddedInList(Array.from({ length }, (_, index) => index)).length, length);
  });

  it("gives the 2,000 lengths of a list of days at most 50 lengths", () => {
    const lengths = new Set<number>();
    for (let length = 1; length <= 2000; length++)
      lengths.add(paddedInList(new Array(length).fill(7)).length);
    assert.ok(lengths.size <= 50, `${lengths.size} lengths`);
    assert.deepEqual(
      [17, 20, 21, 33, 100, 1025, 2000].map((length) => paddedInList(new Array(length).fill(0)).length),
      [20, 20, 24, 40, 112, 1280, 2048],
    );
  });
});
