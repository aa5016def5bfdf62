import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";

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
