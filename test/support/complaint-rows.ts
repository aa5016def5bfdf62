import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { COMPLAINT_CSV_HEADER } from "../../src/domain/complaint.js";
import { makeTempDirectory } from "./test-server.js";

/** A complaint row as the test reads it from an extract, independently of the importer. */
export interface CsvComplaint {
  phone: string;
  created: string;
  violation: string;
  city: string;
  state: string;
  areaCode: string;
  subject: string;
  robocall: string;
}

export async function readComplaintCsv(file: string): Promise<CsvComplaint[]> {
  const rows: string[][] = parse(await readFile(file), { from_line: 2, bom: true });
  return rows.map(([phone, created, violation, city, state, areaCode, subject, robocall]) => ({
    phone: phone!,
    created: created!,
    violation: violation!,
    city: city!,
    state: state!,
    areaCode: areaCode!,
    subject: subject!,
    robocall: robocall!,
  }));
}

/** The API attributes a CSV row should come back as. */
export function asAttributes(row: CsvComplaint): Record<string, string> {
  return {
    "company-phone-number": row.phone,
    "created-date": row.created,
    "violation-date": row.violation,
    "consumer-city": row.city,
    "consumer-state": row.state,
    "consumer-area-code": row.areaCode,
    subject: row.subject,
    "recorded-message-or-robocall": row.robocall,
  };
}

/**
 * Writes an extract of `rows` (the eight values of `COMPLAINT_CSV_HEADER` each, times as
 * `formatDateTime` writes them) under the extract's header, CRLF-terminated as the FTC's files are,
 * to `name` in a new temporary directory; returns its path.
 */
export async function writeComplaintRows(
  name: string,
  rows: ReadonlyArray<readonly string[]>,
): Promise<string> {
  const file = join(await makeTempDirectory(), name);
  const lines = [COMPLAINT_CSV_HEADER, ...rows].map((values) => values.join(","));
  await writeFile(file, `${lines.join("\r\n")}\r\n`);
  return file;
}
