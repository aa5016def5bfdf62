/** A value a field index holds: lowered text, a date's text, or a number of seconds. */
export type IndexedValue = string | number;

/**
 * One field's values in order, for equality and range conditions: every (value, record) pair of
 * the field sorted by value (code-point order for text, as SQLite and the C collation compare).
 * A record with several values (a list field) appears once per value; absent values are left out.
 * Every lookup is a binary search of the sorted values: no object per distinct value, which the
 * garbage collector would mark on every full collection of the heap holding the notices.
 */
export class FieldIndex {
  private readonly values: IndexedValue[];
  private readonly records: Int32Array;

  /**
   * `valuesOf(record)`: the values of records 0 to `count - 1`, none for an absent value;
   * `compare`: the values' order.
   */
  constructor(
    valuesOf: (record: number) => readonly IndexedValue[],
    count: number,
    private readonly compare: (left: IndexedValue, right: IndexedValue) => number,
  ) {
    const pairs: Array<[IndexedValue, number]> = [];
    for (let record = 0; record < count; record++)
      for (const value of valuesOf(record)) pairs.push([value, record]);
    pairs.sort((a, b) => compare(a[0], b[0]) || a[1] - b[1]);
    this.values = pairs.map((pair) => pair[0]);
    this.records = Int32Array.from(pairs, (pair) => pair[1]);
  }

  /** The records holding exactly `value` (the same number or the same text), or undefined when none does. */
  equal(value: IndexedValue): Int32Array | undefined {
    const start = this.firstIndex((held) => this.compare(held, value) >= 0);
    if (start === this.values.length || this.values[start] !== value) return undefined;
    const end = this.firstIndex((held) => this.compare(held, value) > 0);
    return this.records.subarray(start, end);
  }

  /**
   * The records holding a value between `from` and `to` (either bound absent: unbounded), each
   * bound inclusive or not; a record may appear more than once (once per matching value).
   */
  between(
    from: IndexedValue | undefined,
    fromInclusive: boolean,
    to: IndexedValue | undefined,
    toInclusive: boolean,
  ): Int32Array {
    const compare = this.compare;
    const start =
      from === undefined
        ? 0
        : this.firstIndex((value) => (fromInclusive ? compare(value, from) >= 0 : compare(value, from) > 0));
    const end =
      to === undefined
        ? this.values.length
        : this.firstIndex((value) => (toInclusive ? compare(value, to) > 0 : compare(value, to) >= 0));
    return this.records.subarray(start, Math.max(start, end));
  }

  /** The records holding a text value that starts with `prefix` (code-point order keeps them together). */
  startingWith(prefix: string): Int32Array {
    const start = this.firstIndex((value) => this.compare(value, prefix) >= 0);
    const end = this.firstIndex(
      (value) => this.compare(value, prefix) > 0 && !String(value).startsWith(prefix),
    );
    return this.records.subarray(start, Math.max(start, end));
  }

  /** The first position whose value satisfies `after` (which holds from some position on). */
  private firstIndex(after: (value: IndexedValue) => boolean): number {
    let low = 0;
    let high = this.values.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (after(this.values[middle]!)) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
