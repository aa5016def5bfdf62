/** One sample of a scrape: a series name, its labels and its value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;

/**
 * The samples of a scrape in the Prometheus text format (0.0.4): comments (`# HELP`, `# TYPE`)
 * and blank lines skipped, label values unescaped, `+Inf`, `-Inf` and `NaN` read as numbers.
 * Throws on a line that is none of these, so that a malformed exposition fails the test.
 */
export function parseMetrics(text: string): MetricSample[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = SAMPLE.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels: Record<string, string> = {};
      const text = match[2] ?? "";
      LABEL.lastIndex = 0;
      let read = 0;
      for (let label = LABEL.exec(text); label; label = LABEL.exec(text)) {
        labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, escaped: string) =>
          escaped === "n" ? "\n" : escaped,
        );
        read = LABEL.lastIndex;
      }
      if (read !== text.length) throw new Error(`malformed labels: ${line}`);
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/**
 * The value of the one sample named `name` whose labels include `labels`; undefined when there is
 * none. Throws when several match, so that a test always says which series it means.
 */
export function sampleValue(
  samples: readonly MetricSample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
