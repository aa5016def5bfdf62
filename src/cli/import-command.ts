import { Command, InvalidArgumentError, Option } from "commander";
import { DB_OPTION, databaseConfig } from "../config.js";
import { COMPLAINTS, NOTICES } from "../domain/collections.js";
import { importComplaintFile } from "../ingest/complaint-importer.js";
import { ImportFileError, type ImportProgress, type RejectedRow } from "../ingest/import-file.js";
import { importNoticeFile } from "../ingest/notice-importer.js";
import { ComplaintStore } from "../store/complaint-store.js";
import type { Database } from "../store/database.js";
import { migrate } from "../store/migrate.js";
import { NoticeStore } from "../store/notice-store.js";
import { ImportInterruption, type ImportStanding } from "./import-interruption.js";
import { importProgress, PLAIN_LINE_SECONDS, peakMemoryMegabytes } from "./import-progress.js";
import { openCommandDatabase } from "./open-command-database.js";

/** `ftcapi import ...`: load the FTC's published files. */
export function importCommand(): Command {
  const importer = new Command("import").description("Import the FTC's published files");
  withImportOptions(importer.command(COMPLAINTS.cliName), "row")
    .description("Import Do Not Call complaint extracts (CSV or CSV.gz, the FTC's format)")
    .argument("<files...>", "extract files, such as DNC_Complaint_Numbers_2021-07-08.csv")
    .action(importComplaints);
  withImportOptions(importer.command(NOTICES.cliName), "record")
    .description(
      "Import HSR early-termination notices: JSON:API documents as the live collection returns them, or CSV",
    )
    .argument("<files...>", "saved pages of the live list (.json) or CSV files (.gz also read)")
    .action(importNotices);
  return importer;
}

/** `ftcapi import dnc FILES...`: each extract in its own transaction, then the totals. */
function importComplaints(files: string[], flags: ImportFlags): Promise<void> {
  const totals = { rows: 0, added: 0, existing: 0, rejected: 0 };
  return importFiles(files, flags, {
    importFile: importComplaintFile,
    imported: (file, result, seconds) => {
      process.stdout.write(
        `imported ${file}: ${result.rows} rows, ${result.added} added, ${result.existing} already present, ${result.rejected} rejected (${seconds.toFixed(1)} s, ${Math.round(result.rows / Math.max(seconds, 0.001))} rows/s)\n`,
      );
      totals.rows += result.rows;
      totals.added += result.added;
      totals.existing += result.existing;
      totals.rejected += result.rejected;
    },
    changed: () => totals.added > 0,
    optimize: (database) => new ComplaintStore(database).optimize(),
    totalLine: () =>
      `${totals.rows} rows, ${totals.added} added, ${totals.existing} already present, ${totals.rejected} rejected`,
  });
}

/** `ftcapi import notices FILES...`: each file in its own transaction, then the totals. */
function importNotices(files: string[], flags: ImportFlags): Promise<void> {
  const totals = { rows: 0, added: 0, changed: 0, unchanged: 0, rejected: 0 };
  return importFiles(files, flags, {
    importFile: importNoticeFile,
    imported: (file, result) => {
      if (!flags.quiet || files.length === 1) {
        process.stdout.write(
          `imported ${file} (${result.format}): ${result.rows} notices, ${result.added} added, ${result.changed} changed, ${result.unchanged} unchanged, ${result.rejected} rejected\n`,
        );
      }
      totals.rows += result.rows;
      totals.added += result.added;
      totals.changed += result.changed;
      totals.unchanged += result.unchanged;
      totals.rejected += result.rejected;
    },
    changed: () => totals.added + totals.changed > 0,
    optimize: (database) => new NoticeStore(database).optimize(),
    totalLine: () =>
      `${totals.rows} notices, ${totals.added} added, ${totals.changed} changed, ${totals.unchanged} unchanged, ${totals.rejected} rejected`,
  });
}

/** What one collection's import command does beside the steps both share (`importFiles`). */
interface CollectionImport<Result> {
  readonly importFile: (database: Database, file: string, options: FileImportOptions) => Promise<Result>;
  /** After each file imported: its line, and its figures added to the totals. */
  readonly imported: (file: string, result: Result, seconds: number) => void;
  /** Whether the files changed the collection, so that its store's statistics are refreshed. */
  readonly changed: () => boolean;
  readonly optimize: (database: Database) => Promise<void>;
  /** The totals' figures, for the line after several files. */
  readonly totalLine: () => string;
}

/**
 * An import command's run: the database opened and migrated, each file imported in turn (an
 * interruption stops it between files, or rolls back the file under way), the store's statistics
 * refreshed when the collection changed, then the totals; exit code 1 when a file failed.
 */
async function importFiles<Result>(
  files: string[],
  flags: ImportFlags,
  collection: CollectionImport<Result>,
): Promise<void> {
  const database = openCommandDatabase(databaseConfig(flags).db);
  const interruption = new ImportInterruption();
  let failed = 0;
  let standing: ImportStanding | undefined;
  try {
    await migrate(database);
    const outcome = await importEach(
      files,
      { ...flags, database, signal: interruption.signal },
      collection.importFile,
      collection.imported,
    );
    failed = outcome.failed;
    standing = outcome.standing;
    if (collection.changed() && !interruption.received) await collection.optimize(database);
  } finally {
    await database.close();
  }
  exitIfInterrupted(interruption, files, standing);
  if (files.length > 1)
    process.stdout.write(
      `total: ${files.length - failed} of ${files.length} files, ${collection.totalLine()}\n`,
    );
  if (flags.reportMemory) process.stderr.write(`peak memory: ${peakMemoryMegabytes()} MB\n`);
  if (failed > 0) process.exitCode = 1;
}

/** The options `withImportOptions` gives both import commands. */
interface ImportFlags {
  db?: string;
  strict?: boolean;
  quiet?: boolean;
  progressSeconds?: number;
  reportMemory?: boolean;
}

function withImportOptions(command: Command, unit: "row" | "record"): Command {
  return command
    .addOption(
      new Option(
        "--report-memory",
        "print the process's peak resident memory at the end (tests, benchmarks)",
      ).hideHelp(),
    )
    .option(...DB_OPTION)
    .option("--strict", `refuse a file at its first unreadable ${unit} (nothing of that file is written)`)
    .option("--quiet", "print only the summary and errors")
    .option(
      "--progress-seconds <seconds>",
      `seconds between progress lines when standard error is not a terminal (default ${PLAIN_LINE_SECONDS})`,
      seconds,
    );
}

/**
 * After an import interrupted by a signal (the database closed): prints what was kept and what was
 * rolled back, and that rerunning completes it, then exits with the signal's conventional status
 * (130 for SIGINT, 143 for SIGTERM). Otherwise stops listening for signals and returns.
 */
function exitIfInterrupted(
  interruption: ImportInterruption,
  files: readonly string[],
  standing: ImportStanding | undefined,
): void {
  interruption.close();
  if (!interruption.received) return;
  // A signal during the migrations: no file was begun.
  process.stderr.write(
    interruption.report(standing ?? { kept: [], rolledBack: undefined, notStarted: files }),
  );
  process.exit(interruption.exitCode);
}

/** What both importers take per file. */
interface FileImportOptions {
  signal?: AbortSignal;
  strict?: boolean;
  onRejected: (row: RejectedRow) => void;
  onProgress: (progress: ImportProgress) => void;
}

/**
 * Imports each file in turn with its own progress report, prints unreadable rows as
 * `FILE:LINE: reason`, and reports a file that is refused as a whole (ImportFileError) without
 * stopping the others. `onImported` gets each imported file's result and its seconds. Once
 * `signal` is aborted, stops: the file in hand is rolled back and none begun; `standing` says
 * which files were kept.
 */
async function importEach<Result>(
  files: readonly string[],
  flags: {
    database: Database;
    signal: AbortSignal;
    strict?: boolean;
    quiet?: boolean;
    progressSeconds?: number;
  },
  importFile: (database: Database, file: string, options: FileImportOptions) => Promise<Result>,
  onImported: (file: string, result: Result, seconds: number) => void,
): Promise<{ failed: number; standing: ImportStanding }> {
  let failed = 0;
  const kept: string[] = [];
  for (const [index, file] of files.entries()) {
    if (flags.signal.aborted)
      return { failed, standing: { kept, rolledBack: undefined, notStarted: files.slice(index) } };
    const started = performance.now();
    const progress = importProgress(file, { quiet: flags.quiet, plainLineSeconds: flags.progressSeconds });
    let result: Result;
    try {
      result = await importFile(flags.database, file, {
        signal: flags.signal,
        strict: flags.strict,
        onRejected: (row) => process.stderr.write(`${row.file}:${row.line}: ${row.reason}\n`),
        onProgress: (update) => progress.update(update),
      });
    } catch (err) {
      progress.stop();
      // Stopped by a signal: the file's transaction was rolled back.
      if (flags.signal.aborted)
        return { failed, standing: { kept, rolledBack: file, notStarted: files.slice(index + 1) } };
      if (!(err instanceof ImportFileError)) throw err;
      process.stderr.write(`error: ${err.message}\n`);
      failed++;
      continue;
    }
    progress.stop();
    kept.push(file);
    onImported(file, result, (performance.now() - started) / 1000);
  }
  return { failed, standing: { kept, rolledBack: undefined, notStarted: [] } };
}

/** Parses a non-negative number of seconds, or fails with a message naming the option. */
function seconds(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || parsed < 0) {
    throw new InvalidArgumentError("expected a number of seconds, 0 or more");
  }
  return parsed;
}
