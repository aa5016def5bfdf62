import { once } from "node:events";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { COMPLAINTS } from "../../domain/collections.js";
import type { Complaint } from "../../domain/complaint.js";
import { matchKey } from "../../domain/complaint.js";
import { SECONDS_PER_DAY, SECONDS_PER_HOUR, SECONDS_PER_MINUTE } from "../../domain/time.js";
import { commitStatements, noteCommitted } from "../collection-commit.js";
import type { CommitOptions } from "../commit-options.js";
import { createSecondaryIndexStatements, dropSecondaryIndexStatements } from "../complaint-indexes.js";
import type { ComplaintWriter, WriteResult } from "../complaint-writer.js";
import type { PostgresDatabase } from "../database.js";
import { HOURLY_DIMENSIONS, VIOLATION_BLOCK_SQL } from "../dimension-counts.js";

const COLUMNS =
  "created_at, id, violation_at, phone, city, state, area_code, subject, robocall, state_key, city_key";

/** Days since 1970 of a time column (seconds), as the count tables key them. */
const day = (column: string) => `floor(${column} / ${SECONDS_PER_DAY}.0)::integer`;
/** Hours since 1970 of a time column (seconds). */
const hour = (column: string) => `floor(${column} / ${SECONDS_PER_HOUR}.0)::integer`;

/**
 * The one statement of `commit`: moves the staged rows into `complaints` (a repeated id is left
 * out) and adds the added rows to every count table, the same counts the SQLite writer keeps.
 * Answers how many rows were added and how many were staged.
 */
const MOVE_STAGED = `with ${[
  `added as (
    insert into complaints (${COLUMNS})
    select ${COLUMNS} from complaint_staging
    on conflict do nothing
    returning created_at, violation_at, violation_day, state_key, city_key, area_code, robocall, state, city, subject, phone
  )`,
  ...dimensionCounts(),
  ...violationCounts(),
  ...combinationCounts(),
  ...placeViolationCounts(),
  ...minuteAndCallerCounts(),
].join(", ")}
select (select count(*) from added) as added, (select count(*) from complaint_staging) as total`;

/**
 * A statement of `MOVE_STAGED` (`name`) adding the rows of `from` (the added rows, or a union of
 * them per dimension) to the count table `table`, grouped by its key: each key column with the
 * expression over `from` that gives it.
 */
function addedCounts(name: string, table: string, key: Record<string, string>, from = "added"): string {
  const columns = Object.keys(key);
  return `${name} as (
      insert into ${table} (${columns.join(", ")}, count)
      select ${Object.values(key).join(", ")}, count(*) from ${from} group by ${columns.map((_, index) => index + 1).join(", ")}
      on conflict (${columns.join(", ")}) do update set count = ${table}.count + excluded.count
    )`;
}

/** Daily counts per dimension (`complaint_counts`) and hourly ones (`complaint_hour_counts`). */
function dimensionCounts(): string[] {
  return [
    `dimensions as (
      select 'all' as dimension, '' as value, ${day("created_at")} as day from added
      union all select 'state', state_key, ${day("created_at")} from added
      union all select 'city', state_key || chr(31) || city_key, ${day("created_at")} from added
      union all select 'any_city', city_key, ${day("created_at")} from added
      union all select 'area', area_code, ${day("created_at")} from added
      union all select 'robocall', robocall, ${day("created_at")} from added
      union all select 'violation', '', ${day("violation_at")} from added
      union all select 'shown_state', state, ${day("created_at")} from added
      union all select 'shown_city', city, ${day("created_at")} from added
      union all select 'subject', subject, ${day("created_at")} from added
    )`,
    addedCounts(
      "counted",
      "complaint_counts",
      { dimension: "dimension", value: "value", day: "day" },
      "dimensions",
    ),
    `hours as (
      ${HOURLY_DIMENSIONS.map(
        ({ name, value, column }) =>
          `select '${name}' as dimension, ${value ?? "''"} as value, ${hour(column)} as hour from added`,
      ).join(" union all ")}
    )`,
    addedCounts(
      "counted_hours",
      "complaint_hour_counts",
      { dimension: "dimension", value: "value", hour: "hour" },
      "hours",
    ),
  ];
}

/**
 * Counts by created and violation day: per state, and per flag, subject, area code and their pairs;
 * each also per block of violation days (`..._violation_blocks`).
 */
function violationCounts(): string[] {
  const stateKey = { state_key: "state_key", created_day: day("created_at") };
  const flagKey = { dimension: "dimension", value: "value", created_day: "created_day" };
  return [
    addedCounts("state_violations", "complaint_state_violations", {
      ...stateKey,
      violation_day: "violation_day",
    }),
    addedCounts("state_violation_blocks", "complaint_state_violation_blocks", {
      ...stateKey,
      violation_day: VIOLATION_BLOCK_SQL,
    }),
    `flags as (
      select 'robocall' as dimension, robocall as value, ${day("created_at")} as created_day, violation_day from added
      union all select 'subject', subject, ${day("created_at")}, violation_day from added
      union all select 'area', area_code, ${day("created_at")}, violation_day from added
      union all select 'state_robocall', state_key || chr(31) || robocall, ${day("created_at")}, violation_day
        from added
      union all select 'subject_robocall', subject || chr(31) || robocall, ${day("created_at")}, violation_day
        from added
      union all select 'state_subject', state_key || chr(31) || subject, ${day("created_at")}, violation_day
        from added
      union all select 'state_subject_robocall', state_key || chr(31) || subject || chr(31) || robocall,
        ${day("created_at")}, violation_day from added
    )`,
    addedCounts(
      "flag_violations",
      "complaint_flag_violations",
      { ...flagKey, violation_day: "violation_day" },
      "flags",
    ),
    addedCounts(
      "flag_violation_blocks",
      "complaint_flag_violation_blocks",
      { ...flagKey, violation_day: VIOLATION_BLOCK_SQL },
      "flags",
    ),
    `flag_violation_hours as (
      insert into complaint_flag_violation_hours (dimension, value, created_hour, violation_day, count)
      select 'robocall', robocall, ${hour("created_at")}, violation_day, count(*) from added group by 2, 3, 4
      on conflict (dimension, value, created_hour, violation_day)
        do update set count = complaint_flag_violation_hours.count + excluded.count
    )`,
  ];
}

/** Counts by created day of state, flag and subject, alone and with an area code, a city or both. */
function combinationCounts(): string[] {
  return [
    addedCounts("combinations", "complaint_combination_counts", {
      state_key: "state_key",
      robocall: "robocall",
      subject: "subject",
      created_day: day("created_at"),
    }),
    addedCounts("area_combinations", "complaint_area_combination_counts", {
      area_code: "area_code",
      state_key: "state_key",
      robocall: "robocall",
      subject: "subject",
      created_day: day("created_at"),
    }),
    addedCounts("city_combinations", "complaint_city_combination_counts", {
      city_key: "city_key",
      state_key: "state_key",
      robocall: "robocall",
      subject: "subject",
      created_day: day("created_at"),
    }),
    addedCounts("city_areas", "complaint_city_area_counts", {
      city_key: "city_key",
      area_code: "area_code",
      state_key: "state_key",
      robocall: "robocall",
      subject: "subject",
      created_day: day("created_at"),
    }),
  ];
}

/**
 * Counts of an area code, a city (not an empty one) and both, by created and violation day, state
 * and flag; also per block of violation days.
 */
function placeViolationCounts(): string[] {
  const placeKey = { place: "place", value: "value", created_day: "created_day" };
  const stateAndFlag = { state_key: "state_key", robocall: "robocall" };
  return [
    `places as (
      select 'area' as place, area_code as value, ${day("created_at")} as created_day, violation_day, state_key,
          robocall
        from added
      union all select 'city', city_key, ${day("created_at")}, violation_day, state_key, robocall
        from added where city_key <> ''
      union all select 'city_area', city_key || chr(31) || area_code, ${day("created_at")}, violation_day,
          state_key, robocall
        from added where city_key <> ''
    )`,
    addedCounts(
      "place_violations",
      "complaint_place_violations",
      { ...placeKey, violation_day: "violation_day", ...stateAndFlag },
      "places",
    ),
    addedCounts(
      "place_violation_blocks",
      "complaint_place_violation_blocks",
      { ...placeKey, violation_day: VIOLATION_BLOCK_SQL, ...stateAndFlag },
      "places",
    ),
  ];
}

/** Counts per created minute, and each caller number's total and newest created time. */
function minuteAndCallerCounts(): string[] {
  return [
    `counted_minutes as (
      insert into complaint_minute_counts (minute, count)
      select floor(created_at / ${SECONDS_PER_MINUTE}.0)::integer, count(*) from added group by 1
      on conflict (minute) do update set count = complaint_minute_counts.count + excluded.count
    )`,
    `phone_totals as (
      insert into complaint_phone_totals (phone, count, newest_at)
      select phone, count(*), max(created_at) from added group by phone
      on conflict (phone) do update set count = complaint_phone_totals.count + excluded.count,
        newest_at = greatest(complaint_phone_totals.newest_at, excluded.newest_at)
    )`,
  ];
}

/**
 * PostgreSQL: rows stream into a temporary table through one COPY for the whole write (a COPY a
 * batch costs a round trip and a statement each); `commit` ends it, moves the new rows into
 * `complaints` and adds their daily counts in one statement, inside the same transaction. Into an
 * empty table, secondary indexes are dropped first and built once at commit.
 */
export class PostgresComplaintWriter implements ComplaintWriter {
  private client: pg.PoolClient | undefined;
  /** The COPY into `complaint_staging`, open from the first insert until commit. */
  private copy: Writable | undefined;
  /** What ended the COPY early, reported by the next insert or commit. */
  private copyError: Error | undefined;
  /** Loading into an empty table: secondary indexes are dropped and built once at commit. */
  private bulk = false;

  constructor(private readonly database: PostgresDatabase) {}

  async begin(): Promise<void> {
    if (this.client) throw new Error("A write is already open");
    this.client = await this.database.pool.connect();
    await this.client.query("begin");
    await this.client.query(
      `create temporary table complaint_staging (
        created_at bigint, id text collate "C", violation_at bigint, phone text, city text, state text,
        area_code text, subject text, robocall text, state_key text, city_key text
      ) on commit drop`,
    );
    const { rows } = await this.client.query<{ present: boolean }>(
      "select exists (select 1 from complaints) as present",
    );
    this.bulk = rows[0]?.present === false;
    // Sorting for the index builds and the daily counts in memory rather than on disk.
    await this.client.query("set local maintenance_work_mem = '256MB'");
    await this.client.query("set local work_mem = '64MB'");
    if (this.bulk)
      for (const statement of dropSecondaryIndexStatements(this.database.db))
        await this.client.query(statement);
  }

  async insert(complaints: readonly Complaint[]): Promise<void> {
    if (!this.client) throw new Error("insert() outside begin()/commit()");
    if (complaints.length === 0) return;
    let text = "";
    for (const complaint of complaints) {
      text += `${complaint.createdAt}\t${complaint.id}\t${complaint.violationAt}\t${copyText(complaint.companyPhoneNumber)}\t${copyText(complaint.city)}\t${copyText(complaint.state)}\t${copyText(complaint.areaCode)}\t${copyText(complaint.subject)}\t${copyText(complaint.robocall)}\t${copyText(matchKey(complaint.state))}\t${copyText(matchKey(complaint.city))}\n`;
    }
    if (!this.copy) {
      const copy = this.client.query(copyFrom(`copy complaint_staging (${COLUMNS}) from stdin`));
      copy.on("error", (err: Error) => {
        this.copyError ??= err;
      });
      this.copy = copy;
    }
    if (this.copyError) throw this.copyError;
    // Wait while the connection is behind, so that rows never pile up in memory.
    if (!this.copy.write(text)) await Promise.race([once(this.copy, "drain"), finished(this.copy)]);
    if (this.copyError) throw this.copyError;
  }

  /** Ends the COPY, if one is open, and waits until the server has every row. */
  private async endCopy(): Promise<void> {
    const copy = this.copy;
    if (!copy) return;
    this.copy = undefined;
    copy.end();
    await finished(copy);
    if (this.copyError) throw this.copyError;
  }

  async commit(options?: CommitOptions): Promise<WriteResult> {
    const client = this.client;
    if (!client) throw new Error("commit() outside begin()");
    await this.endCopy();
    const result = await client.query<{ added: number; total: number }>(MOVE_STAGED);
    if (this.bulk)
      for (const statement of createSecondaryIndexStatements(this.database.db)) await client.query(statement);
    const row = result.rows[0]!;
    const written = { added: row.added, existing: row.total - row.added };
    const changed = written.added > 0;
    for (const statement of commitStatements(this.database, COMPLAINTS, changed, options))
      await client.query(statement.sql, statement.parameters as unknown[]);
    await client.query("commit");
    noteCommitted(this.database, COMPLAINTS, changed);
    this.release();
    return written;
  }

  async rollback(): Promise<void> {
    if (!this.client) return;
    try {
      const copy = this.copy;
      this.copy = undefined;
      // Destroying a COPY makes it send CopyFail, which ends it with an error on the server.
      if (copy && !copy.destroyed) {
        copy.destroy(new Error("the import was abandoned"));
        await finished(copy).catch(() => {});
      }
      await this.client.query("rollback");
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    await this.rollback();
  }

  private release(): void {
    this.client?.release();
    this.client = undefined;
    this.copy = undefined;
    this.copyError = undefined;
  }
}

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyText(value: string): string {
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (character) =>
        character === "\\" ? "\\\\" : character === "\t" ? "\\t" : character === "\n" ? "\\n" : "\\r",
      )
    : value;
}
