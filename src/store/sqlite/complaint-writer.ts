import type BetterSqlite3 from "better-sqlite3";
import { COMPLAINTS } from "../../domain/collections.js";
import type { Complaint } from "../../domain/complaint.js";
import { matchKey } from "../../domain/complaint.js";
import { SECONDS_PER_DAY, SECONDS_PER_HOUR, SECONDS_PER_MINUTE } from "../../domain/time.js";
import { commitStatements, noteCommitted } from "../collection-commit.js";
import type { CommitOptions } from "../commit-options.js";
import {
  createCountIndexStatements,
  createIdIndexStatement,
  createSecondaryIndexStatements,
  dropCountIndexStatements,
  dropIdIndexStatement,
  dropSecondaryIndexStatements,
} from "../complaint-indexes.js";
import type { BeginOptions, ComplaintWriter, WriteResult } from "../complaint-writer.js";
import { type SqliteDatabase, WRITE_CACHE_KIB } from "../database.js";
import {
  combinedValue,
  DAILY_DIMENSIONS,
  DimensionTally,
  HOURLY_DIMENSIONS,
  NestedTally,
  VIOLATION_BLOCK_SQL,
  violationBlockOf,
} from "../dimension-counts.js";
import { RepeatedIdError } from "../repeated-id-error.js";
import type { FlagViolationDimension } from "../schema.js";

/** Distinct (dimension, value, day or hour) counts and caller numbers held before they are written out. */
const MAX_PENDING_COUNTS = 50_000;

/**
 * Page cache while indexes are built, in KiB. SQLite sorts an index's entries in runs of the cache's
 * size (with temporary files; in memory it sorts one list of every row): runs of a few MB sort
 * within the processor's caches and merge from files (measured, the state index of 2 million rows:
 * 1.8 s, against 2.3 s with runs of 64 MB and 2.9 s or more in memory).
 */
const INDEX_BUILD_CACHE_KIB = 4096;

/** Threads SQLite may add to sort the runs of an index build (the parsing thread is done by then). */
const INDEX_BUILD_THREADS = 2;

/**
 * SQLite: prepared statements in one IMMEDIATE transaction; daily and hourly counts, and caller
 * numbers' totals, summed in memory and written (added to what is stored) whenever
 * MAX_PENDING_COUNTS of them are pending and at commit,
 * so memory stays flat however many days and cities a file spans.
 *
 * Into an empty table (a first load) every index but the primary key, and the count tables'
 * indexes of migration 012, are dropped at `begin` and built at `commit`, inside the same
 * transaction (a rollback restores them): building an index once is far cheaper than updating it
 * row by row. Unless `keepIdIndex`, the unique id index goes
 * too: ids derived from extract rows (`complaintId`) begin with the created time, so the primary
 * key (created_at, id) already refuses a repeated id, except between rows whose created times fall
 * outside 1970-2106 (the id's time is clamped there). Should the unique index then fail to build,
 * `commit` throws RepeatedIdError and the caller writes the rows again with `keepIdIndex`.
 */
export class SqliteComplaintWriter implements ComplaintWriter {
  private readonly insertStatement: BetterSqlite3.Statement;
  private readonly countStatement: BetterSqlite3.Statement;
  private readonly hourCountStatement: BetterSqlite3.Statement;
  private readonly minuteCountStatement: BetterSqlite3.Statement;
  private readonly stateViolationStatement: BetterSqlite3.Statement;
  private readonly flagViolationStatement: BetterSqlite3.Statement;
  private readonly flagViolationHourStatement: BetterSqlite3.Statement;
  private readonly combinationStatement: BetterSqlite3.Statement;
  private readonly areaCombinationStatement: BetterSqlite3.Statement;
  private readonly cityCombinationStatement: BetterSqlite3.Statement;
  private readonly cityAreaStatement: BetterSqlite3.Statement;
  private readonly placeViolationStatement: BetterSqlite3.Statement;
  private readonly stateViolationBlockStatement: BetterSqlite3.Statement;
  private readonly flagViolationBlockStatement: BetterSqlite3.Statement;
  private readonly placeViolationBlockStatement: BetterSqlite3.Statement;
  private readonly phoneTotalStatement: BetterSqlite3.Statement;
  private readonly counts = new DimensionTally(SECONDS_PER_DAY, DAILY_DIMENSIONS);
  private readonly hourCounts = new DimensionTally(
    SECONDS_PER_HOUR,
    new Set(HOURLY_DIMENSIONS.map((dimension) => dimension.name)),
  );
  /** Complaints added per state, created day and violation day, not yet written. */
  private readonly stateViolations = new NestedTally<
    [stateKey: string, createdDay: number, violationDay: number]
  >();
  /**
   * Complaints added per robocall flag, subject, area code, state with the flag, subject with the
   * flag or a state or both, created day and violation day, not yet written.
   */
  private readonly flagViolations = new NestedTally<
    [dimension: FlagViolationDimension, value: string, createdDay: number, violationDay: number]
  >();
  /** Complaints added per robocall flag, created hour and violation day, not yet written. */
  private readonly flagViolationHours = new NestedTally<
    [value: string, createdHour: number, violationDay: number]
  >();
  /** Complaints added per state, robocall flag, subject and created day, not yet written. */
  private readonly combinations = new NestedTally<
    [stateKey: string, robocall: string, subject: string, createdDay: number]
  >();
  /** Complaints added per area code, state, robocall flag, subject and created day, not yet written. */
  private readonly areaCombinations = new NestedTally<
    [areaCode: string, stateKey: string, robocall: string, subject: string, createdDay: number]
  >();
  /** Complaints added per city, state, robocall flag, subject and created day, not yet written. */
  private readonly cityCombinations = new NestedTally<
    [cityKey: string, stateKey: string, robocall: string, subject: string, createdDay: number]
  >();
  /** Complaints added per city, area code, state, robocall flag, subject and created day, not yet written. */
  private readonly cityAreas = new NestedTally<
    [
      cityKey: string,
      areaCode: string,
      stateKey: string,
      robocall: string,
      subject: string,
      createdDay: number,
    ]
  >();
  /**
   * Complaints added per area code or city (not an empty one), created day, violation day, state
   * and robocall flag, not yet written.
   */
  private readonly placeViolations = new NestedTally<
    [
      place: "area" | "city",
      value: string,
      createdDay: number,
      violationDay: number,
      stateKey: string,
      robocall: string,
    ]
  >();
  /**
   * Complaints added per city (not an empty one), area code, created day, violation day, state
   * and robocall flag, not yet written (place `city_area`).
   */
  private readonly cityAreaViolations = new NestedTally<
    [
      cityKey: string,
      areaCode: string,
      createdDay: number,
      violationDay: number,
      stateKey: string,
      robocall: string,
    ]
  >();
  /** Complaints added per minute of their creation (minutes since 1970), not yet written. */
  private readonly minuteCounts = new Map<number, number>();
  /** Per caller number, complaints added and the newest created time, not yet written. */
  private readonly phoneTotals = new Map<string, { count: number; newestAt: number }>();
  /** Every tally above: what is pending, and what a write or a rollback clears. */
  private readonly pending: ReadonlyArray<{ readonly size: number; clear(): void }> = [
    this.counts,
    this.hourCounts,
    this.stateViolations,
    this.flagViolations,
    this.flagViolationHours,
    this.combinations,
    this.areaCombinations,
    this.cityCombinations,
    this.cityAreas,
    this.placeViolations,
    this.cityAreaViolations,
    this.minuteCounts,
    this.phoneTotals,
  ];
  private open = false;
  /** Loading into an empty table: secondary indexes are dropped and built once at commit. */
  private bulk = false;
  /** The unique id index was dropped at `begin` and is built at `commit`. */
  private buildIdIndex = false;
  private added = 0;
  private existing = 0;
  /** The connection's cache size before `begin`, put back when the write ends. */
  private cacheSize = 0;

  constructor(private readonly database: SqliteDatabase) {
    this.insertStatement = database.sqlite.prepare(
      `insert or ignore into complaints
        (created_at, id, violation_at, phone, city, state, area_code, subject, robocall, state_key, city_key, violation_day)
        values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.countStatement = database.sqlite.prepare(
      `insert into complaint_counts (dimension, value, day, count) values (?, ?, ?, ?)
        on conflict (dimension, value, day) do update set count = count + excluded.count`,
    );
    this.hourCountStatement = database.sqlite.prepare(
      `insert into complaint_hour_counts (dimension, value, hour, count) values (?, ?, ?, ?)
        on conflict (dimension, value, hour) do update set count = count + excluded.count`,
    );
    this.minuteCountStatement = database.sqlite.prepare(
      `insert into complaint_minute_counts (minute, count) values (?, ?)
        on conflict (minute) do update set count = count + excluded.count`,
    );
    const { state, flag, place } = VIOLATION_TABLES;
    this.stateViolationStatement = addCount(database, state.days, state.key);
    this.stateViolationBlockStatement = addCount(database, state.blocks, state.key);
    this.flagViolationStatement = addCount(database, flag.days, flag.key);
    this.flagViolationBlockStatement = addCount(database, flag.blocks, flag.key);
    this.flagViolationHourStatement = database.sqlite.prepare(
      `insert into complaint_flag_violation_hours (dimension, value, created_hour, violation_day, count)
        values ('robocall', ?, ?, ?, ?)
        on conflict (dimension, value, created_hour, violation_day) do update set count = count + excluded.count`,
    );
    this.combinationStatement = database.sqlite.prepare(
      `insert into complaint_combination_counts (state_key, robocall, subject, created_day, count) values (?, ?, ?, ?, ?)
        on conflict (state_key, robocall, subject, created_day) do update set count = count + excluded.count`,
    );
    this.areaCombinationStatement = database.sqlite.prepare(
      `insert into complaint_area_combination_counts (area_code, state_key, robocall, subject, created_day, count)
        values (?, ?, ?, ?, ?, ?)
        on conflict (area_code, state_key, robocall, subject, created_day) do update set count = count + excluded.count`,
    );
    this.cityCombinationStatement = database.sqlite.prepare(
      `insert into complaint_city_combination_counts (city_key, state_key, robocall, subject, created_day, count)
        values (?, ?, ?, ?, ?, ?)
        on conflict (city_key, state_key, robocall, subject, created_day) do update set count = count + excluded.count`,
    );
    this.cityAreaStatement = database.sqlite.prepare(
      `insert into complaint_city_area_counts (city_key, area_code, state_key, robocall, subject, created_day, count)
        values (?, ?, ?, ?, ?, ?, ?)
        on conflict (city_key, area_code, state_key, robocall, subject, created_day)
          do update set count = count + excluded.count`,
    );
    this.placeViolationStatement = addCount(database, place.days, place.key);
    this.placeViolationBlockStatement = addCount(database, place.blocks, place.key);
    this.phoneTotalStatement = database.sqlite.prepare(
      `insert into complaint_phone_totals (phone, count, newest_at) values (?, ?, ?)
        on conflict (phone) do update set count = count + excluded.count,
          newest_at = max(newest_at, excluded.newest_at)`,
    );
  }

  async begin(options: BeginOptions = {}): Promise<void> {
    if (this.open) throw new Error("A write is already open");
    this.database.sqlite.exec("begin immediate");
    this.open = true;
    this.cacheSize = this.database.sqlite.pragma("cache_size", { simple: true }) as number;
    this.database.sqlite.pragma(`cache_size = -${WRITE_CACHE_KIB}`);
    const { present } = this.database.sqlite
      .prepare("select exists (select 1 from complaints) as present")
      .get() as {
      present: number;
    };
    this.bulk = present === 0;
    this.buildIdIndex = this.bulk && !options.keepIdIndex;
    if (this.bulk)
      for (const statement of [
        ...dropSecondaryIndexStatements(this.database.db),
        ...dropCountIndexStatements(this.database.db),
      ])
        this.database.sqlite.exec(statement);
    if (this.buildIdIndex) this.database.sqlite.exec(dropIdIndexStatement(this.database.db));
    this.clearPending();
    this.added = 0;
    this.existing = 0;
  }

  async insert(complaints: readonly Complaint[]): Promise<void> {
    if (!this.open) throw new Error("insert() outside begin()/commit()");
    for (const complaint of complaints) {
      const stateKey = matchKey(complaint.state);
      const cityKey = matchKey(complaint.city);
      const violationDay = Math.floor(complaint.violationAt / SECONDS_PER_DAY);
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
        stateKey,
        cityKey,
        violationDay,
      );
      if (info.changes === 0) {
        this.existing++;
        continue;
      }
      this.added++;
      this.counts.add(complaint, stateKey, cityKey);
      this.hourCounts.add(complaint, stateKey, cityKey);
      const createdDay = Math.floor(complaint.createdAt / SECONDS_PER_DAY);
      this.tallyViolations(complaint, stateKey, createdDay, violationDay);
      this.tallyCombinations(complaint, stateKey, cityKey, createdDay);
      this.tallyPlaceViolations(complaint, stateKey, cityKey, createdDay, violationDay);
      this.tallyMinuteAndCaller(complaint);
    }
    if (this.pending.reduce((sum, tally) => sum + tally.size, 0) >= MAX_PENDING_COUNTS) this.writeCounts();
  }

  /** An added complaint in the counts by violation day: per state, flag, subject, area code and their pairs. */
  private tallyViolations(
    complaint: Complaint,
    stateKey: string,
    createdDay: number,
    violationDay: number,
  ): void {
    this.stateViolations.add(stateKey, createdDay, violationDay);
    this.flagViolations.add("robocall", complaint.robocall, createdDay, violationDay);
    this.flagViolations.add("subject", complaint.subject, createdDay, violationDay);
    this.flagViolations.add("area", complaint.areaCode, createdDay, violationDay);
    this.flagViolations.add(
      "state_robocall",
      combinedValue(stateKey, complaint.robocall),
      createdDay,
      violationDay,
    );
    this.flagViolations.add(
      "subject_robocall",
      combinedValue(complaint.subject, complaint.robocall),
      createdDay,
      violationDay,
    );
    this.flagViolations.add(
      "state_subject",
      combinedValue(stateKey, complaint.subject),
      createdDay,
      violationDay,
    );
    this.flagViolations.add(
      "state_subject_robocall",
      combinedValue(stateKey, complaint.subject, complaint.robocall),
      createdDay,
      violationDay,
    );
    this.flagViolationHours.add(
      complaint.robocall,
      Math.floor(complaint.createdAt / SECONDS_PER_HOUR),
      violationDay,
    );
  }

  /** An added complaint in the combination counts by created day (state, flag and subject, with a place). */
  private tallyCombinations(
    complaint: Complaint,
    stateKey: string,
    cityKey: string,
    createdDay: number,
  ): void {
    const { areaCode, robocall, subject } = complaint;
    this.combinations.add(stateKey, robocall, subject, createdDay);
    this.areaCombinations.add(areaCode, stateKey, robocall, subject, createdDay);
    this.cityCombinations.add(cityKey, stateKey, robocall, subject, createdDay);
    this.cityAreas.add(cityKey, areaCode, stateKey, robocall, subject, createdDay);
  }

  /** An added complaint in the counts of its area code, its city and both, by created and violation day. */
  private tallyPlaceViolations(
    complaint: Complaint,
    stateKey: string,
    cityKey: string,
    createdDay: number,
    violationDay: number,
  ): void {
    const { areaCode, robocall } = complaint;
    this.placeViolations.add("area", areaCode, createdDay, violationDay, stateKey, robocall);
    if (cityKey === "") return;
    this.placeViolations.add("city", cityKey, createdDay, violationDay, stateKey, robocall);
    this.cityAreaViolations.add(cityKey, areaCode, createdDay, violationDay, stateKey, robocall);
  }

  /** An added complaint in its minute's count and its caller number's total and newest time. */
  private tallyMinuteAndCaller(complaint: Complaint): void {
    const minute = Math.floor(complaint.createdAt / SECONDS_PER_MINUTE);
    this.minuteCounts.set(minute, (this.minuteCounts.get(minute) ?? 0) + 1);
    const phone = this.phoneTotals.get(complaint.companyPhoneNumber);
    if (phone === undefined)
      this.phoneTotals.set(complaint.companyPhoneNumber, { count: 1, newestAt: complaint.createdAt });
    else {
      phone.count++;
      if (complaint.createdAt > phone.newestAt) phone.newestAt = complaint.createdAt;
    }
  }

  private writeCounts(): void {
    for (const [name, value, day, count] of this.counts.entries())
      this.countStatement.run(name, value, day, count);
    for (const [name, value, hour, count] of this.hourCounts.entries())
      this.hourCountStatement.run(name, value, hour, count);
    writeEach(this.stateViolations, this.stateViolationStatement);
    writeEach(this.flagViolations, this.flagViolationStatement);
    writeEach(this.flagViolationHours, this.flagViolationHourStatement);
    writeEach(this.combinations, this.combinationStatement);
    writeEach(this.areaCombinations, this.areaCombinationStatement);
    writeEach(this.cityCombinations, this.cityCombinationStatement);
    writeEach(this.cityAreas, this.cityAreaStatement);
    writeEach(this.placeViolations, this.placeViolationStatement);
    const cityAreas = (tally: typeof this.cityAreaViolations, statement: BetterSqlite3.Statement) =>
      tally.forEach(([cityKey, areaCode, ...rest], count) => {
        statement.run("city_area", combinedValue(cityKey, areaCode), ...rest, count);
      });
    cityAreas(this.cityAreaViolations, this.placeViolationStatement);
    // A first load sums the blocks once at commit (`sumViolationBlocks`), from the complete day rows.
    if (!this.bulk) {
      writeEach(blocksOf(this.stateViolations, 2), this.stateViolationBlockStatement);
      writeEach(blocksOf(this.flagViolations, 3), this.flagViolationBlockStatement);
      writeEach(blocksOf(this.placeViolations, 3), this.placeViolationBlockStatement);
      cityAreas(blocksOf(this.cityAreaViolations, 3), this.placeViolationBlockStatement);
    }
    for (const [minute, count] of this.minuteCounts) this.minuteCountStatement.run(minute, count);
    for (const [phone, total] of this.phoneTotals)
      this.phoneTotalStatement.run(phone, total.count, total.newestAt);
    this.clearPending();
  }

  async commit(options?: CommitOptions): Promise<WriteResult> {
    if (!this.open) throw new Error("commit() outside begin()");
    const changed = this.added > 0;
    for (const statement of commitStatements(this.database, COMPLAINTS, changed, options))
      this.database.sqlite.prepare(statement.sql).run(...(statement.parameters as unknown[]));
    this.writeCounts();
    if (this.bulk) {
      this.sumViolationBlocks();
      this.buildIndexes();
    }
    this.database.sqlite.exec("commit");
    noteCommitted(this.database, COMPLAINTS, changed);
    this.end();
    return { added: this.added, existing: this.existing };
  }

  /**
   * Fills the `..._violation_blocks` tables, empty at a first load, from the day rows just
   * written: one grouped pass over each, cheaper than adding each flush's blocks (at 200,000
   * complaints those added 1.1 s of 9 to the load).
   */
  private sumViolationBlocks(): void {
    for (const { days, blocks, key } of Object.values(VIOLATION_TABLES)) {
      const grouped = key
        .map((column) => (column === "violation_day" ? VIOLATION_BLOCK_SQL : column))
        .join(", ");
      this.database.sqlite.exec(
        `insert into ${blocks} (${key.join(", ")}, count) select ${grouped}, sum(count) from ${days} group by ${grouped}`,
      );
    }
  }

  private buildIndexes(): void {
    const sqlite = this.database.sqlite;
    const cacheSize = sqlite.pragma("cache_size", { simple: true }) as number;
    // On disk, in small runs: sorting in memory (temp_store = MEMORY) would hold the whole table
    // (2.4 GB at 20 million rows), and SQLite adds sorting threads only for runs on disk.
    sqlite.pragma("temp_store = FILE");
    sqlite.pragma(`cache_size = -${INDEX_BUILD_CACHE_KIB}`);
    sqlite.pragma(`threads = ${INDEX_BUILD_THREADS}`);
    try {
      if (this.buildIdIndex) {
        try {
          sqlite.exec(createIdIndexStatement(this.database.db));
        } catch (err) {
          if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") throw new RepeatedIdError();
          throw err;
        }
      }
      for (const statement of [
        ...createSecondaryIndexStatements(this.database.db),
        ...createCountIndexStatements(this.database.db),
      ])
        sqlite.exec(statement);
    } finally {
      sqlite.pragma("threads = 0");
      sqlite.pragma(`cache_size = ${cacheSize}`);
      sqlite.pragma("temp_store = MEMORY");
    }
  }

  async rollback(): Promise<void> {
    if (!this.open) return;
    this.clearPending();
    this.database.sqlite.exec("rollback");
    this.end();
  }

  /** Drops every count held and not yet written. */
  private clearPending(): void {
    for (const tally of this.pending) tally.clear();
  }

  private end(): void {
    this.open = false;
    this.database.sqlite.pragma(`cache_size = ${this.cacheSize}`);
  }

  async close(): Promise<void> {
    await this.rollback();
  }
}

/**
 * The count tables by violation day, their twins by block of violation days (migration 033), and
 * their key columns in the order of the writer's tallies.
 */
const VIOLATION_TABLES = {
  state: {
    days: "complaint_state_violations",
    blocks: "complaint_state_violation_blocks",
    key: ["state_key", "created_day", "violation_day"],
  },
  flag: {
    days: "complaint_flag_violations",
    blocks: "complaint_flag_violation_blocks",
    key: ["dimension", "value", "created_day", "violation_day"],
  },
  place: {
    days: "complaint_place_violations",
    blocks: "complaint_place_violation_blocks",
    key: ["place", "value", "created_day", "violation_day", "state_key", "robocall"],
  },
} as const;

/** An upsert adding a count to the row of `table` keyed by `columns`, given in that order. */
function addCount(
  database: SqliteDatabase,
  table: string,
  columns: readonly string[],
): BetterSqlite3.Statement {
  return database.sqlite.prepare(
    `insert into ${table} (${columns.join(", ")}, count) values (${columns.map(() => "?").join(", ")}, ?)
      on conflict (${columns.join(", ")}) do update set count = count + excluded.count`,
  );
}

/** Adds each count of `tally` with `statement`, its keys then the count. */
function writeEach<Keys extends ReadonlyArray<string | number>>(
  tally: NestedTally<Keys>,
  statement: BetterSqlite3.Statement,
): void {
  tally.forEach((keys, count) => {
    statement.run(...keys, count);
  });
}

/**
 * `tally`'s counts summed per block of violation days (the key at `dayAt` a violation day), as the
 * `..._violation_blocks` tables keep them: each block keyed by its first day (`violationBlockOf`).
 */
function blocksOf<Keys extends ReadonlyArray<string | number>>(
  tally: NestedTally<Keys>,
  dayAt: number,
): NestedTally<Keys> {
  const blocks = new NestedTally<Keys>();
  // One array for every count: `addTimes` keeps the keys' values, not the array.
  const blockKeys: Array<string | number> = [];
  tally.forEach((keys, count) => {
    for (let index = 0; index < keys.length; index++) blockKeys[index] = keys[index]!;
    blockKeys[dayAt] = violationBlockOf(keys[dayAt] as number);
    blocks.addTimes(count, blockKeys as unknown as Keys);
  });
  return blocks;
}
