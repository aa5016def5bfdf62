/**
 * A node:test reporter that writes, when the run ends, each test file's time: the sum of its
 * top-level tests' durations, longest first. `test/run-tests.ts` adds it beside the usual output,
 * so that every run shows which files the lanes wait on (and `LONGEST_FIRST` can follow them).
 * Plain JavaScript: node:test loads reporters before tsx's loader is in place.
 */

/** How many of the longest files are listed. */
const LISTED_FILES = 12;

/**
 * @param {AsyncIterable<{ type: string, data: { file?: string, nesting?: number, details?: { duration_ms?: number } } }>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* fileTimesReporter(source) {
  /** @type {Map<string, number>} */
  const secondsOf = new Map();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { file, nesting, details } = event.data;
    if (file === undefined || nesting !== 0) continue;
    secondsOf.set(file, (secondsOf.get(file) ?? 0) + (details?.duration_ms ?? 0) / 1000);
  }
  const longest = [...secondsOf].sort((a, b) => b[1] - a[1]).slice(0, LISTED_FILES);
  if (longest.length === 0) return;
  yield "Longest test files (seconds of their top-level tests):\n";
  for (const [file, seconds] of longest)
    yield `  ${seconds.toFixed(0).padStart(5)}  ${file.slice(file.lastIndexOf("/test/") + 1)}\n`;
}
