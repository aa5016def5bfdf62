/** Lists of at most this many values go into SQL's `in (...)` as they are. */
const EXACT_LENGTH_MAX = 16;

/** The lengths a longer list is padded to: this many per doubling (20, 24, 28, 32, 40, 48, ...). */
const LENGTHS_PER_DOUBLING = 4;

/**
 * `values` for SQL's `in (...)`, padded to one of a few lengths by repeating its last value: every
 * length up to 16, then four per doubling, so a list grows by less than a quarter. No answer
 * changes (`in` ignores a repeated value, on either dialect). Each length is a statement text of
 * its own, and SQLite keeps each text's prepared statement per connection (about 30 KB for a list
 * of a thousand violation days): unpadded, the days a page seeks could be any of 2,000 lengths,
 * and the statements of one shape alone could hold tens of megabytes.
 */
export function paddedInList<T>(values: Iterable<T>): T[] {
  const padded = [...values];
  const count = padded.length;
  if (count <= EXACT_LENGTH_MAX) return padded;
  const step = 2 ** Math.floor(Math.log2(count - 1)) / LENGTHS_PER_DOUBLING;
  const length = Math.ceil(count / step) * step;
  while (padded.length < length) padded.push(padded[count - 1]!);
  return padded;
}
