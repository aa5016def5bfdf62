import { Command, InvalidArgumentError, Option } from "commander";
import { databaseConfig } from "../config.js";
import { type FileImportResult, ImportFileError, importComplaintFile } from "../ingest/complaint-importer.js";
import { importNoticeFile, type NoticeFileResult } from "../ingest/notice-importer.js";
import { ComplaintStore } from "../store/complaint-store.js";
import { openDatabase } from "../store/database.js";
import { migrate } from "../store/migrate.js";
import { NoticeStore } from "../store/notice-store.js";
import { importProgress, PLAIN_LINE_SECONDS, peakMemoryMegabytes } from "./import-progress.js";

/** `ftcapi import ...`: load the FTC's published files. */
export function importCommand(): Command {
  const importer = new Command("import").description("Import the FTC's published files");
  importer
    .command("dnc")
    .description("Import Do Not Call complaint extracts (CSV or CSV.gz, the FTC's format)")
    .argument("<files...>", "extract files, such as DNC_Complaint_Numbers_2021-07-08.csv")
    .option("--db <path>", "SQLite file or postgres:// URL [env FTCAPI_DB] (default: data/ftcapi.db)")
    .option("--strict", "refuse a file at its first unreadable row (nothing of that file is written)")
    .option("--quiet", "print only the summary and errors")
    .option(
      "--progress-seconds <seconds>",
      `seconds between progress lines when standard error is not a terminal (default ${PLAIN_LINE_SECONDS})`,
      seconds,
    )
    .action(
      async (
        files: string[],
        flags: { db?: string; strict?: boolean; quiet?: boolean; progressSeconds?: number },
      ) => {
        const database = openDatabase(databaseConfig(flags).db);
        const totals = { rows: 0, added: 0, existing: 0, rejected: 0, failed: 0 };
        try {
          await migrate(database);
          for (const file of files) {
            const started = performance.now();
            const progress = importProgress(file, {
              quiet: flags.quiet,
              plainLineSeconds: flags.progressSeconds,
            });
            let result: FileImportResult;
            try {
              result = await importComplaintFile(database, file, {
                strict: flags.strict,
                onRejected: (row) => process.stderr.write(`${row.file}:${row.line}: ${row.reason}\n`),
                onProgress: (update) => progress.update(update),
              });
            } catch (err) {
              progress.stop();
              if (!(err instanceof ImportFileError)) throw err;
              process.stderr.write(`error: ${err.message}\n`);
              totals.failed++;
              continue;
            }
            progress.stop();
            const seconds = (performance.now() - started) / 1000;
            process.stdout.write(
              `imported ${file}: ${result.rows} rows, ${result.added} added, ${result.existing} already present, ${result.rejected} rejected (${seconds.toFixed(1)} s, ${Math.round(result.rows / Math.max(seconds, 0.001))} rows/s)\n`,
            );
            totals.rows += result.rows;
            totals.added += result.added;
            totals.existing += result.existing;
            totals.rejected += result.rejected;
          }
          if (totals.added > 0) await new ComplaintStore(database).optimize();
        } finally {
          await database.close();
        }
        if (files.length > 1) {
          process.stdout.write(
            `total: ${files.length - totals.failed} of ${files.length} files, ${totals.rows} rows, ${totals.added} added, ${totals.existing} already present, ${totals.rejected} rejected\n`,
          );
        }
        if (totals.failed > 0) process.exitCode = 1;
      },
    );
  importer
    .command("notices")
    .description(
      "Import HSR early-termination notices: JSON:API documents as the live collection returns them, or CSV",
    )
    .argument("<files...>", "saved pages of the live list (.json) or CSV files (.gz also read)")
    .option("--db <path>", "SQLite file or postgres:// URL [env FTCAPI_DB] (default: data/ftcapi.db)")
    .option("--strict", "refuse a file at its first unreadable record (nothing of that file is written)")
    .option("--quiet", "print only the summary and errors")
    .option(
      "--progress-seconds <seconds>",
      `seconds between progress lines when standard error is not a terminal (default ${PLAIN_LINE_SECONDS})`,
      seconds,
    )
    .addOption(
      new Option("--report-memory", "print the process's peak resident memory at the end (tests)").hideHelp(),
    )
    .action(
      async (
        files: string[],
        flags: {
          db?: string;
          strict?: boolean;
          quiet?: boolean;
          progressSeconds?: number;
          reportMemory?: boolean;
        },
      ) => {
        const database = openDatabase(databaseConfig(flags).db);
        const totals = { rows: 0, added: 0, changed: 0, unchanged: 0, rejected: 0, failed: 0 };
        try {
          await migrate(database);
          for (const file of files) {
            let result: NoticeFileResult;
            const progress = importProgress(file, {
              quiet: flags.quiet,
              plainLineSeconds: flags.progressSeconds,
            });
            try {
              result = await importNoticeFile(database, file, {
                strict: flags.strict,
                onRejected: (row) => process.stderr.write(`${row.file}:${row.line}: ${row.reason}\n`),
                onProgress: (update) => progress.update(update),
              });
            } catch (err) {
              progress.stop();
              if (!(err instanceof ImportFileError)) throw err;
              process.stderr.write(`error: ${err.message}\n`);
              totals.failed++;
              continue;
            }
            progress.stop();
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
          }
          if (totals.added + totals.changed > 0) await new NoticeStore(database).optimize();
        } finally {
          await database.close();
        }
        if (files.length > 1) {
          process.stdout.write(
            `total: ${files.length - totals.failed} of ${files.length} files, ${totals.rows} notices, ${totals.added} added, ${totals.changed} changed, ${totals.unchanged} unchanged, ${totals.rejected} rejected\n`,
          );
        }
        if (flags.reportMemory) process.stderr.write(`peak memory: ${peakMemoryMegabytes()} MB\n`);
        if (totals.failed > 0) process.exitCode = 1;
      },
    );
  return importer;
}

/** Parses a non-negative number of seconds, or fails with a message naming the option. */
function seconds(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || parsed < 0) {
    throw new InvalidArgumentError("expected a number of seconds, 0 or more");
  }
  return parsed;
}
