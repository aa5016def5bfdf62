const EMPTY = new Int32Array(0);

/**
 * The three UTF-16 code units of `text` at `at` as one number: a small integer when each is below
 * 1024 (nearly all text, and cheap as a map key), else an exact larger number.
 */
function gramAt(text: string, at: number): number {
  const a = text.charCodeAt(at);
  const b = text.charCodeAt(at + 1);
  const c = text.charCodeAt(at + 2);
  if ((a | b | c) < 1024) return (a << 20) | (b << 10) | c;
  return 1_073_741_824 + a * 4_294_967_296 + b * 65_536 + c;
}

/**
 * Which records hold a text somewhere in their values: for every three-character sequence of the
 * (already lowered) values, the records holding it, in ascending order. A pattern of three or more
 * characters can only be in records holding each of its sequences, so its rarest sequence's records
 * are the candidates, and the caller checks each one; shorter patterns have no candidate list.
 *
 * Held as three flat arrays (the sequences in order, where each one's records start, and every
 * record list end to end), not as a map of one array per sequence: a field's index has tens of
 * thousands of sequences, and as many small objects would each cost the garbage collector's
 * marking on every full collection of the heap that holds the notices.
 */
export class TrigramIndex {
  /** The sequences held, ascending. */
  private readonly grams: Float64Array;
  /** `records.subarray(starts[i], starts[i + 1])` holds `grams[i]`. */
  private readonly starts: Int32Array;
  private readonly records: Int32Array;

  /** `valuesOf(record)`: the lowered values of records 0 to `count - 1`. */
  constructor(valuesOf: (record: number) => readonly string[], count: number) {
    const lists = new Map<number, number[]>();
    let total = 0;
    for (let record = 0; record < count; record++) {
      for (const value of valuesOf(record)) {
        for (let at = 0; at + 3 <= value.length; at++) {
          const gram = gramAt(value, at);
          const records = lists.get(gram);
          // Records are visited in order, so a record already listed is the last one.
          if (records === undefined) lists.set(gram, [record]);
          else if (records[records.length - 1] !== record) records.push(record);
          else continue;
          total++;
        }
      }
    }
    this.grams = Float64Array.from(lists.keys()).sort();
    this.starts = new Int32Array(this.grams.length + 1);
    this.records = new Int32Array(total);
    let at = 0;
    this.grams.forEach((gram, index) => {
      this.starts[index] = at;
      this.records.set(lists.get(gram)!, at);
      at += lists.get(gram)!.length;
    });
    this.starts[this.grams.length] = at;
  }

  /**
   * The records that may hold `pattern` (lowered like the values), ascending: those holding every
   * three-character sequence of it (exactly the holders when it is three characters long).
   * Undefined when the pattern is shorter, so that every record is a candidate.
   */
  candidates(pattern: string): Int32Array | undefined {
    if (pattern.length < 3) return undefined;
    const lists: Int32Array[] = [];
    for (let at = 0; at + 3 <= pattern.length; at++) {
      const records = this.holding(gramAt(pattern, at));
      if (records === undefined) return EMPTY;
      lists.push(records);
    }
    lists.sort((a, b) => a.length - b.length);
    let result = lists[0]!;
    for (let index = 1; index < lists.length && result.length > 0; index++)
      result = intersect(result, lists[index]!);
    return result;
  }

  /** The records holding `gram`, or undefined when none does. */
  private holding(gram: number): Int32Array | undefined {
    const grams = this.grams;
    let low = 0;
    let high = grams.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (grams[middle]! < gram) low = middle + 1;
      else high = middle;
    }
    if (low === grams.length || grams[low] !== gram) return undefined;
    return this.records.subarray(this.starts[low]!, this.starts[low + 1]!);
  }
}

/** The records in both ascending lists. */
function intersect(small: Int32Array, large: Int32Array): Int32Array {
  const result = new Int32Array(small.length);
  let size = 0;
  let at = 0;
  for (let index = 0; index < small.length; index++) {
    const record = small[index]!;
    while (at < large.length && large[at]! < record) at++;
    if (at === large.length) break;
    if (large[at] === record) result[size++] = record;
  }
  return result.subarray(0, size);
}
