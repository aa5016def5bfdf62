import { SingleBar } from "cli-progress";
import type { ImportProgress } from "../ingest/import-file.js";

/** Reports an import's progress as it goes; `stop` ends the report (before the file's summary). */
export interface ProgressReporter {
  update(progress: ImportProgress): void;
  stop(): void;
}

/** Seconds between plain progress lines when the output is not a terminal, unless chosen. */
export const PLAIN_LINE_SECONDS = 10;

/**
 * Progress for one file: on a terminal, a bar of bytes read against the file's size with rows,
 * rows per second, elapsed time and an estimate for the rest; otherwise (a log, a pipe) a plain line
 * at most every `plainLineSeconds` (PLAIN_LINE_SECONDS by default); with `quiet`, nothing.
 */
export function importProgress(
  file: string,
  options: { quiet?: boolean; stream?: NodeJS.WriteStream; plainLineSeconds?: number } = {},
): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  if (options.quiet) return { update() {}, stop() {} };
  const started = performance.now();
  const rate = (rows: number) => Math.round(rows / Math.max((performance.now() - started) / 1000, 0.001));
  if (stream.isTTY) {
    const bar = new SingleBar({
      format: `${file} [{bar}] {percentage}% | {rows} rows | {speed} rows/s | {duration_formatted} elapsed | eta {eta_formatted}`,
      stream,
      hideCursor: true,
    });
    bar.start(1, 0, { rows: 0, speed: 0 });
    return {
      update(progress) {
        if (progress.totalBytes) bar.setTotal(progress.totalBytes);
        bar.update(progress.bytesRead, { rows: progress.rows, speed: rate(progress.rows) });
      },
      stop: () => bar.stop(),
    };
  }
  let lastLine = started;
  return {
    update(progress) {
      const now = performance.now();
      if (now - lastLine < (options.plainLineSeconds ?? PLAIN_LINE_SECONDS) * 1000) return;
      lastLine = now;
      const elapsedSeconds = (now - started) / 1000;
      const share = progress.totalBytes ? progress.bytesRead / progress.totalBytes : undefined;
      const rest =
        share && share > 0 && share < 1
          ? `, about ${Math.round((elapsedSeconds * (1 - share)) / share)} s to go`
          : "";
      const percent = share === undefined ? "" : ` (${Math.round(share * 100)}%)`;
      stream.write(
        `${file}: ${progress.rows} rows${percent}, ${rate(progress.rows)} rows/s, ${Math.round(elapsedSeconds)} s elapsed${rest}\n`,
      );
    },
    stop() {},
  };
}

/** The process's peak resident memory so far, in MB (for `--report-memory`). */
export function peakMemoryMegabytes(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
