import { constants } from "node:os";

/** The signals that interrupt an import. */
export type InterruptSignal = "SIGINT" | "SIGTERM";

/** Where an interrupted import stood: the files it kept, the one it rolled back, those not started. */
export interface ImportStanding {
  /** Files whose transaction committed before the signal. */
  kept: readonly string[];
  /** The file whose transaction was rolled back (undefined: the signal came between files). */
  rolledBack: string | undefined;
  /** Files not begun. */
  notStarted: readonly string[];
}

/**
 * SIGINT and SIGTERM during `ftcapi import`: the first aborts `signal`, so that the file in hand is
 * rolled back at its next batch (one transaction per file) and no further file is begun; a second
 * exits at once (the file in hand is then left uncommitted, which the database rolls back too).
 * Listens from construction until `close`.
 */
export class ImportInterruption {
  private readonly controller = new AbortController();
  private signalReceived: InterruptSignal | undefined;
  private readonly listeners: Array<[InterruptSignal, () => void]>;

  constructor(private readonly write: (text: string) => void = (text) => process.stderr.write(text)) {
    this.listeners = (["SIGINT", "SIGTERM"] as const).map((name) => [name, () => this.receive(name)]);
    for (const [name, listener] of this.listeners) process.on(name, listener);
  }

  /** Aborted by the first signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The first signal received, or undefined. */
  get received(): InterruptSignal | undefined {
    return this.signalReceived;
  }

  /** The conventional exit status of a process stopped by the signal received: 128 + its number (130, 143). */
  get exitCode(): number {
    return 128 + constants.signals[this.signalReceived ?? "SIGINT"];
  }

  /** Stops listening: the signals' default actions apply again. */
  close(): void {
    for (const [name, listener] of this.listeners) process.off(name, listener);
  }

  /**
   * What was kept, what was rolled back and that running the same command again completes the
   * import (imports are idempotent: a file already imported adds nothing twice), as printed.
   */
  report(standing: ImportStanding): string {
    const list = (files: readonly string[]) => files.join(", ");
    return [
      `${this.signalReceived ?? "signal"}: import interrupted.`,
      standing.kept.length > 0
        ? `  kept: ${standing.kept.length} file${standing.kept.length === 1 ? "" : "s"} imported before it (each file is one transaction): ${list(standing.kept)}`
        : "  kept: no file had been imported",
      ...(standing.rolledBack === undefined
        ? []
        : [`  rolled back: ${standing.rolledBack}, the file in progress; nothing of it was written`]),
      ...(standing.notStarted.length > 0 ? [`  not started: ${list(standing.notStarted)}`] : []),
      "Run the same command again to complete the import: imports are idempotent, so files already imported add nothing twice.",
      "",
    ].join("\n");
  }

  private receive(name: InterruptSignal): void {
    if (this.signalReceived !== undefined) {
      this.write(
        `${name} again: exiting now; the file in progress is not committed (the database rolls it back)\n`,
      );
      process.exit(this.exitCode);
    }
    this.signalReceived = name;
    this.write(`${name}: stopping; the file in progress will be rolled back (${name} again exits at once)\n`);
    this.controller.abort(new Error(`interrupted by ${name}`));
  }
}
