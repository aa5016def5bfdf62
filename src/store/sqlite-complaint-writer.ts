import type BetterSqlite3 from "better-sqlite3";
import type { Complaint } from "../domain/complaint.js";
import { matchKey } from "../domain/complaint.js";
import { dayOf } from "../domain/date-time.js";
import { dimensionsOf, SECONDS_PER_HOUR } from "./complaint-dimensions.js";
import { createSecondaryIndexStatements, dropSecondaryIndexStatements } from "./complaint-indexes.js";
import type { AlsoCommit, ComplaintWriter, WriteResult } from "./complaint-writer.js";
import type { SqliteDatabase } from "./database.js";
import { noteCommit } from "./local-commits.js";

/**
 * SQLite: prepared statements in one IMMEDIATE transaction; daily counts summed in memory and
 * written (added to what is stored) whenever MAX_PENDING_COUNTS of them are pending and at commit,
 * so memory stays flat however many days and cities a file spans. Into an empty table (a first load), the secondary indexes are dropped at `begin` and
 * built at `commit`, inside the same transaction: building an index once is far cheaper than
 * updating it row by row, and a rollback restores them.
 */
/** Distinct (dimension, value, day) counts held before they are written out. */
const MAX_PENDING_COUNTS = 50_000;

export class SqliteComplaintWriter implements ComplaintWriter {
  private readonly insertStatement: BetterSqlite3.Statement;
  private readonly countStatement: BetterSqlite3.Statement;
  private readonly hourCountStatement: BetterSqlite3.Statement;
  private readonly counts = new Map<string, number>();
  private readonly hourCounts = new Map<string, number>();
  private open = false;
  /** Loading into an empty table: secondary indexes are dropped and built once at commit. */
  private bulk = false;
  private added = 0;
  private existing = 0;

  constructor(private readonly database: SqliteDatabase) {
    this.insertStatement = database.sqlite.prepare(
      `insert or ignore into complaints
        (created_at, id, violation_at, phone, city, state, area_code, subject, robocall, state_key, city_key)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.countStatement = database.sqlite.prepare(
      `insert into complaint_counts (dimension, value, day, count) values (?, ?, ?, ?)
        on conflict (dimension, value, day) do update set count = count + excluded.count`,
    );
    this.hourCountStatement = database.sqlite.prepare(
      `insert into complaint_hour_counts (dimension, value, hour, count) values (?, ?, ?, ?)
        on conflict (dimension, value, hour) do update set count = count + excluded.count`,
    );
  }

  async begin(): Promise<void> {
    if (this.open) throw new Error("A write is already open");
    this.database.sqlite.exec("begin immediate");
    this.open = true;
    const { present } = this.database.sqlite
      .prepare("select exists (select 1 from complaints) as present")
      .get() as {
      present: number;
    };
    this.bulk = present === 0;
    if (this.bulk)
      for (const statement of dropSecondaryIndexStatements(this.database.db))
        this.database.sqlite.exec(statement);
    this.counts.clear();
    this.hourCounts.clear();
    this.added = 0;
    this.existing = 0;
  }

  async insert(complaints: readonly Complaint[]): Promise<void> {
    if (!this.open) throw new Error("insert() outside begin()/commit()");
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
      if (info.changes === 0) {
        this.existing++;
        continue;
      }
      this.added++;
      for (const dimension of dimensionsOf(complaint)) {
        const key = `${dimension.name}\u0000${dimension.value}\u0000${dayOf(dimension.at)}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
        if (!dimension.hourly) continue;
        const hourKey = `${dimension.name}\u0000${dimension.value}\u0000${Math.floor(dimension.at / SECONDS_PER_HOUR)}`;
        this.hourCounts.set(hourKey, (this.hourCounts.get(hourKey) ?? 0) + 1);
      }
    }
    if (this.counts.size + this.hourCounts.size >= MAX_PENDING_COUNTS) this.writeCounts();
  }

  private writeCounts(): void {
    for (const [counts, statement] of [
      [this.counts, this.countStatement],
      [this.hourCounts, this.hourCountStatement],
    ] as const) {
      for (const [key, count] of counts) {
        const [name, value, bucket] = key.split("\u0000");
        statement.run(name, value, Number(bucket), count);
      }
      counts.clear();
    }
  }

  async commit(also?: AlsoCommit): Promise<WriteResult> {
    if (!this.open) throw new Error("commit() outside begin()");
    for (const statement of also?.({ added: this.added, existing: this.existing }) ?? [])
      this.database.sqlite.prepare(statement.sql).run(...(statement.parameters as unknown[]));
    this.writeCounts();
    if (this.bulk) {
      // Each index build sorts every row; with the connection's temp_store = MEMORY that sort
      // would hold the whole table in memory (2.4 GB at 20 million rows). On disk, memory stays flat.
      this.database.sqlite.pragma("temp_store = FILE");
      try {
        for (const statement of createSecondaryIndexStatements(this.database.db))
          this.database.sqlite.exec(statement);
      } finally {
        this.database.sqlite.pragma("temp_store = MEMORY");
      }
    }
    this.database.sqlite.exec("commit");
    noteCommit("complaints", this.database.location);
    this.open = false;
    return { added: this.added, existing: this.existing };
  }

  async rollback(): Promise<void> {
    if (!this.open) return;
    this.counts.clear();
    this.hourCounts.clear();
    this.database.sqlite.exec("rollback");
    this.open = false;
  }

  async close(): Promise<void> {
    await this.rollback();
  }
}
