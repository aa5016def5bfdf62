import { Command, InvalidArgumentError } from "commander";
import { COMPLAINTS, NOTICES } from "../domain/collections.js";
import { parseDate } from "../domain/time.js";
import { startOfTodaySeconds, writeComplaintCsv } from "../ingest/complaint-generator.js";
import { writeNoticeCsv } from "../ingest/notice-generator.js";

function wholeNumber(minimum: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < minimum)
      throw new InvalidArgumentError(`must be a whole number, at least ${minimum}`);
    return value;
  };
}

function day(text: string): number {
  const seconds = parseDate(text);
  if (seconds === null) throw new InvalidArgumentError("must be a date as YYYY-MM-DD");
  return seconds;
}

/** `ftcapi generate ...`: synthetic data in the FTC's formats, deterministic for a seed. */
export function generateCommand(): Command {
  const generate = new Command("generate").description("Write synthetic data in the FTC's formats");
  generate
    .command(COMPLAINTS.cliName)
    .description("Write a synthetic Do Not Call extract (CSV, the FTC's exact format)")
    .requiredOption("--rows <n>", "how many complaints", wholeNumber(0))
    .option("--days <d>", "created dates span this many days before --end", wholeNumber(1), 30)
    .option("--seed <s>", "random seed: the same arguments always write the same bytes", wholeNumber(0), 1)
    .option("--end <date>", "created dates end before this day, YYYY-MM-DD (default: today, UTC)", day)
    .requiredOption("--out <file>", "the CSV file to write")
    .action(async (flags: { rows: number; days: number; seed: number; end?: number; out: string }) => {
      const started = performance.now();
      await writeComplaintCsv(
        {
          rows: flags.rows,
          days: flags.days,
          seed: flags.seed,
          endSeconds: flags.end ?? startOfTodaySeconds(),
        },
        flags.out,
      );
      const seconds = (performance.now() - started) / 1000;
      process.stderr.write(`wrote ${flags.rows} complaints to ${flags.out} in ${seconds.toFixed(1)} s\n`);
    });
  generate
    .command(NOTICES.cliName)
    .description("Write synthetic HSR early-termination notices as CSV (the columns `import notices` reads)")
    .requiredOption("--rows <n>", "how many notices", wholeNumber(0))
    .option("--seed <s>", "random seed: the same arguments always write the same bytes", wholeNumber(0), 1)
    .requiredOption("--out <file>", "the CSV file to write")
    .action(async (flags: { rows: number; seed: number; out: string }) => {
      const started = performance.now();
      await writeNoticeCsv({ rows: flags.rows, seed: flags.seed }, flags.out);
      const seconds = (performance.now() - started) / 1000;
      process.stderr.write(`wrote ${flags.rows} notices to ${flags.out} in ${seconds.toFixed(1)} s\n`);
    });
  return generate;
}
