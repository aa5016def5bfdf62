/** A value a field index holds: lowered text, a date's text, or a number of seconds. */
export type IndexedValue = string | number;

/**
 * One field's values in order, for equality and range conditions: every (value, record) pair of
 * the field sorted by value (code-point order for text, as SQLite and the C collation compare).
 * A record with several values (a list field) appears once per value; absent values are left out.
 * Every lookup is a binary search of the sorted values: no object per distinct value, which the
 * garbage collector would mark on every full collection of the heap holding the notices. Only the
 * records (and, for a list field, which of a record's values) are kept, 4 or 8 bytes a value; a
 * lookup reads the values it compares through `valuesOf`.
 */
export class FieldIndex {
  private readonly records: Int32Array;
  /** Which of its record's values each entry is; undefined when no record has more than one. */
  private readonly entries: Int32Array | undefined;

  /**
   * `valuesOf(record)`: the values of records 0 to `count - 1`, none for an absent value;
   * `compare`: the values' order, which every lookup uses; `sortCompare`: the same order, cheaper,
   * for building only (the caller knows when native string comparison gives it).
   */
  constructor(
    private readonly valuesOf: (record: number) => readonly IndexedValue[],
    count: number,
    private readonly compare: (left: IndexedValue, right: IndexedValue) => number,
    sortCompare: (left: IndexedValue, right: IndexedValue) => number = compare,
  ) {
    const values: IndexedValue[] = [];
    const owners: number[] = [];
    const entries: number[] = [];
    for (let record = 0; record < count; record++) {
      const held = valuesOf(record);
      for (let entry = 0; entry < held.length; entry++) {
        values.push(held[entry]!);
        owners.push(record);
        entries.push(entry);
      }
    }
    // A permutation sorted, not an array of pairs: no object per value. Indexes ascend with their
    // records, so ties by index keep the records in order.
    const order = new Int32Array(values.length);
    for (let at = 0; at < order.length; at++) order[at] = at;
    order.sort((a, b) => sortCompare(values[a]!, values[b]!) || a - b);
    this.records = Int32Array.from(order, (at) => owners[at]!);
    this.entries = entries.some((entry) => entry > 0)
      ? Int32Array.from(order, (at) => entries[at]!)
      : undefined;
  }

  /** The records holding exactly `value` (the same number or the same text), or undefined when none does. */
  equal(value: IndexedValue): Int32Array | undefined {
    const start = this.firstIndex((held) => this.compare(held, value) >= 0);
    if (start === this.records.length || this.valueAt(start) !== value) return undefined;
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
        ? this.records.length
        : this.firstIndex((value) => (toInclusive ? compare(value, to) > 0 : compare(value, to) >= 0));
    return this.records.subarray(start, Math.max(start, end));
  }

  /** Every record holding a value (once per value). */
  all(): Int32Array {
    return this.records;
  }

  /**
   * The records holding a value other than each of `values`, as the runs of the index between
   * theirs (`<>`, `NOT IN`: no value tested); a record may appear more than once (once per such
   * value, and a list's record beside its excepted values too).
   */
  except(values: readonly IndexedValue[]): Int32Array[] {
    const compare = this.compare;
    const runs = values
      .map((value) => [
        this.firstIndex((held) => compare(held, value) >= 0),
        this.firstIndex((held) => compare(held, value) > 0),
      ])
      .sort((left, right) => left[0]! - right[0]!);
    const parts: Int32Array[] = [];
    let from = 0;
    for (const [start, end] of runs) {
      if (start! > from) parts.push(this.records.subarray(from, start));
      from = Math.max(from, end!);
    }
    if (from < this.records.length) parts.push(this.records.subarray(from));
    return parts;
  }

  /** The records holding a text value that starts with `prefix` (code-point order keeps them together). */
  startingWith(prefix: string): Int32Array {
    return this.together(prefix, (value) => value.startsWith(prefix));
  }

  /**
   * The records holding a text value that ends with `suffix`, in an index whose `compare` orders
   * text by its code units read from the end (`compareFromEnd`), which keeps them together.
   */
  endingWith(suffix: string): Int32Array {
    return this.together(suffix, (value) => value.endsWith(suffix));
  }

  /** The records of the run of values that `holds` (each sorting at or after `text`), from its first. */
  private together(text: string, holds: (value: string) => boolean): Int32Array {
    const start = this.firstIndex((value) => this.compare(value, text) >= 0);
    const end = this.firstIndex((value) => this.compare(value, text) > 0 && !holds(String(value)));
    return this.records.subarray(start, Math.max(start, end));
  }

  /** The value at a place of the index. */
  private valueAt(place: number): IndexedValue {
    return this.valuesOf(this.records[place]!)[this.entries?.[place] ?? 0]!;
  }

  /** The first position whose value satisfies `after` (which holds from some position on). */
  private firstIndex(after: (value: IndexedValue) => boolean): number {
    let low = 0;
    let high = this.records.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (after(this.valueAt(middle))) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

/**
 * Text ordered by its UTF-16 code units read from the last one back (a value's reversal in
 * code-unit order): the values that end alike sort together, for `FieldIndex.endingWith`.
 */
export function compareFromEnd(left: IndexedValue, right: IndexedValue): number {
  const a = String(left);
  const b = String(right);
  let at = a.length - 1;
  let other = b.length - 1;
  for (; at >= 0 && other >= 0; at--, other--) {
    const difference = a.charCodeAt(at) - b.charCodeAt(other);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}
