import type { Complaint } from "../domain/complaint.js";
import { createComplaintWriter, type WriteResult } from "../store/complaint-writer.js";
import type { Database } from "../store/database.js";
import { generateComplaintRows, startOfTodaySeconds } from "./complaint-generator.js";
import { complaintFromRow } from "./complaint-row.js";
import { RowOccurrences } from "./row-occurrences.js";

/** The demo dataset: 200,000 complaints over the 30 days before today (UTC), seed 1. */
export const DEMO_COMPLAINTS = { rows: 200_000, days: 30, seed: 1 } as const;

/** Loads the deterministic demo dataset, in one transaction. */
export async function loadDemoData(database: Database): Promise<WriteResult> {
  const writer = createComplaintWriter(database);
  try {
    await writer.begin();
    let batch: Complaint[] = [];
    const occurrences = new RowOccurrences();
    for (const values of generateComplaintRows({ ...DEMO_COMPLAINTS, endSeconds: startOfTodaySeconds() })) {
      const complaint = complaintFromRow(values, occurrences);
      if (typeof complaint === "string")
        throw new Error(`the generator made an unreadable row: ${complaint}`);
      batch.push(complaint);
      if (batch.length === 5000) {
        await writer.insert(batch);
        batch = [];
      }
    }
    await writer.insert(batch);
    return await writer.commit();
  } catch (err) {
    await writer.rollback();
    throw err;
  } finally {
    await writer.close();
  }
}
