import type { Complaint } from "../domain/complaint.js";
import { nowSeconds } from "../domain/time.js";
import type { WriteResult } from "../store/complaint-writer.js";
import type { Database } from "../store/database.js";
import { type NoticeWriteResult, writeNotices } from "../store/notice-writer.js";
import { generateComplaintRows, startOfTodaySeconds } from "./complaint-generator.js";
import { complaintFromRow } from "./complaint-row.js";
import { generateNoticeRows } from "./notice-generator.js";
import { noticeFromCsvRow } from "./notice-row.js";
import { RowOccurrences } from "./row-occurrences.js";

/** The demo dataset: 200,000 complaints over the 30 days before today (UTC), seed 1. */
export const DEMO_COMPLAINTS = { rows: 200_000, days: 30, seed: 1 } as const;

/** Loads the deterministic demo dataset, in one transaction. */
export async function loadDemoData(database: Database): Promise<WriteResult> {
  const writer = database.complaintWriter();
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

/** The demo notices: about as many as the live collection holds, seed 1. */
export const DEMO_NOTICES = { rows: 28_000, seed: 1 } as const;

/** Loads the deterministic demo notices, in one transaction that also records the collection's update time. */
export async function loadDemoNotices(database: Database): Promise<NoticeWriteResult> {
  const notices = [...generateNoticeRows(DEMO_NOTICES)].map((values) => {
    const notice = noticeFromCsvRow(values);
    if (typeof notice === "string") throw new Error(`the generator made an unreadable notice: ${notice}`);
    return notice;
  });
  return writeNotices(database, notices, nowSeconds());
}
