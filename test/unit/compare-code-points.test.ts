import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compareCodePoints } from "../../src/store/notice-snapshot.js";

/** The order SQLite's BINARY collation and PostgreSQL's C collation give UTF-8 text: by code point. */
function byCodePoints(left: string, right: string): number {
  const a = Array.from(left, (character) => character.codePointAt(0)!);
  const b = Array.from(right, (character) => character.codePointAt(0)!);
  for (let at = 0; at < Math.min(a.length, b.length); at++)
    if (a[at] !== b[at]) return a[at]! < b[at]! ? -1 : 1;
  return Math.sign(a.length - b.length);
}

// Characters on both sides of the surrogate range, where UTF-16 order and code-point order part.
const character = fc.oneof(
  fc.constantFrom(
    "a",
    "Z",
    "\u00e9",
    "\ud7ff",
    "\ue000",
    "\uffef",
    "\uffff",
    "\ud83d\ude00",
    "\ud800\udc00",
    "\udbff\udfff",
  ),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
);
const text = fc.array(character, { maxLength: 6 }).map((characters) => characters.join(""));

test("text is compared by code point, as the databases order it", () => {
  fc.assert(
    fc.property(text, text, (left, right) => {
      assert.equal(compareCodePoints(left, right), byCodePoints(left, right));
    }),
    { numRuns: 5000 },
  );
  assert.equal(compareCodePoints("\uffff", "\ud83d\ude00"), -1);
  assert.equal(compareCodePoints("ab", "ab"), 0);
  assert.equal(compareCodePoints("ab", "abc"), -1);
});
