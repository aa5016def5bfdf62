import type BetterSqlite3 from "better-sqlite3";
import type { Complaint } from "../domain/complaint.js";
import { matchKey } from "../domain/complaint.js";
import { dayOf } from "../domain/date-time.js";
import { dimensionsOf } from "./complaint-dimensions.js";
import type { Database } from "./database.js";

export interface WriteResult {
  added: number;
  existing: number;
}

/**
 * Writes complaints in one transaction per unit of work (an imported file): `begin`, any number
 * of `insert` calls, then `commit` or `rollback`. A complaint whose id is already stored is
 * counted as existing and left alone. Daily counts are updated in the same transaction, so readers
 * never see rows without their counts.
 */
export class ComplaintWriter {
  private readonly insertStatement: BetterSqlite3.Statement;
  private readonly countStatement: BetterSqlite3.Statement;
  private readonly counts = new Map<string, number>();
  private open = false;

  constructor(private readonly database: Database) {
    this.insertStatement = database.sqlite.prepare(
      `insert or ignore into complaints
        (created_at, id, violation_at, phone, city, state, area_code, subject, robocall, state_key, city_key)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.countStatement = database.sqlite.prepare(
      `insert into complaint_counts (dimension, value, day, count) values (?, ?, ?, ?)
        on conflict (dimension, value, day) do update set count = count + excluded.count`,
    );
  }

  begin(): void {
    if (this.open) throw new Error("A write is already open");
    this.database.sqlite.exec("begin immediate");
    this.open = true;
    this.counts.clear();
  }

  insert(complaints: readonly Complaint[]): WriteResult {
    if (!this.open) throw new Error("insert() outside begin()/commit()");
    let added = 0;
    for (const complaint of complaints) {
      const info = this.insertStatement.run(
        complaint.createdAt,
        complaint.id,
        complaint.violationAt,
        complaint.companyPhoneNumber,
        complaint.city,
        complaint.state,
        complaint.areaCode,
        complaint.subject,
        complaint.robocall,
        matchKey(complaint.state),
        matchKey(complaint.city),
      );
      if (info.changes === 0) continue;
      added++;
      for (const dimension of dimensionsOf(complaint)) {
        const key = `${dimension.name}\u0000${dimension.value}\u0000${dayOf(dimension.at)}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      }
    }
    return { added, existing: complaints.length - added };
  }

  commit(): void {
    if (!this.open) throw new Error("commit() outside begin()");
    for (const [key, count] of this.counts) {
      const [name, value, day] = key.split("\u0000");
      this.countStatement.run(name, value, Number(day), count);
    }
    this.counts.clear();
    this.database.sqlite.exec("commit");
    this.open = false;
  }

  rollback(): void {
    if (!this.open) return;
    this.counts.clear();
    this.database.sqlite.exec("rollback");
    this.open = false;
  }
}
