import type { SchemaModule } from "kysely";

/**
 * The secondary indexes of `complaints`: one per filter, each ending in the API's order
 * (created_at, id) (`complaints_subject`: migration 013; `complaints_any_city`, a city in every
 * state: migration 014), plus the violation time. `complaints_state` carries `violation_day` after
 * them (migration 017), so that a state's page within a violation range tests it on the index;
 * `complaints_area` carries the state and the robocall flag (migration 019), so that an area code
 * combined with them is counted and paged on the index alone; every index of a filter but the
 * number's carries `violation_day` (migrations 017, 020 and 021), so that a range of whole
 * violation days is tested on the index too, and the place indexes the robocall flag and (a
 * city's) the area code (migration 021). The subject is on no place index: it is long; a place,
 * a subject and the violation day lead `complaints_area_subject_violation` and
 * `complaints_city_subject_violation` (migration 032), on which a combination of them is counted
 * (`placeSubjectIndexOf`) and paged, its days' entries sorted by creation (`walksDaysApart`).
 * `complaints_violation_day` serves a violation date (migration 011) and holds the state, the
 * flag and the area code (migration 028); listed here so that a load into an empty database
 * builds it once at commit, as the others, instead of entry by entry.
 * The primary key and the unique id index (`complaints_id`, below) are not listed.
 */
export const SECONDARY_INDEXES: Readonly<Record<string, readonly string[]>> = {
  complaints_state: ["state_key", "created_at", "id", "violation_day", "robocall"],
  complaints_city: ["state_key", "city_key", "created_at", "id", "area_code", "robocall", "violation_day"],
  complaints_any_city: ["city_key", "created_at", "id", "area_code", "robocall", "violation_day"],
  complaints_area: ["area_code", "created_at", "id", "state_key", "robocall", "violation_day"],
  complaints_area_subject_violation: [
    "area_code",
    "subject",
    "violation_day",
    "created_at",
    "id",
    "state_key",
    "robocall",
  ],
  complaints_city_subject_violation: [
    "city_key",
    "subject",
    "violation_day",
    "created_at",
    "id",
    "state_key",
    "area_code",
    "robocall",
  ],
  complaints_robocall: ["robocall", "created_at", "id", "violation_day"],
  complaints_phone: ["phone", "created_at", "id"],
  complaints_subject: [
    "subject",
    "created_at",
    "id",
    "violation_day",
    "state_key",
    "city_key",
    "area_code",
    "robocall",
  ],
  complaints_violation: ["violation_at"],
  complaints_violation_day: ["violation_day", "created_at", "id", "state_key", "robocall", "area_code"],
};

/**
 * The secondary index whose columns are `leading` then (created_at, id), with at most columns
 * after those: the one a page of those equality filters is read from in the API's order.
 */
export function indexLedBy(leading: readonly string[]): string | undefined {
  const wanted = [...leading, "created_at", "id"];
  return Object.entries(SECONDARY_INDEXES).find(
    ([, columns]) =>
      columns.length >= wanted.length && wanted.every((column, index) => columns[index] === column),
  )?.[0];
}

/** `create index` statements for the secondary indexes, compiled for the database's dialect. */
export function createSecondaryIndexStatements(db: { schema: SchemaModule }): string[] {
  return Object.entries(SECONDARY_INDEXES).map(
    ([name, columns]) =>
      db.schema
        .createIndex(name)
        .ifNotExists()
        .on("complaints")
        .columns([...columns])
        .compile().sql,
  );
}

/** `drop index` statements for the secondary indexes. */
export function dropSecondaryIndexStatements(db: { schema: SchemaModule }): string[] {
  return Object.keys(SECONDARY_INDEXES).map((name) => db.schema.dropIndex(name).ifExists().compile().sql);
}

/**
 * The indexes of the count tables that serve the counts endpoint (migration 012), by table: like
 * the secondary indexes, dropped for a load into an empty database and built once at its commit.
 */
export const COUNT_TABLE_INDEXES: ReadonlyArray<{ name: string; table: string; columns: readonly string[] }> =
  [
    {
      name: "complaint_counts_by_day",
      table: "complaint_counts",
      columns: ["dimension", "day", "value", "count"],
    },
    {
      name: "complaint_hour_counts_by_hour",
      table: "complaint_hour_counts",
      columns: ["dimension", "hour", "value", "count"],
    },
    {
      name: "complaint_phone_totals_by_count",
      table: "complaint_phone_totals",
      columns: ["count", "newest_at", "phone"],
    },
  ];

/** `create index` statements for the count tables' indexes. */
export function createCountIndexStatements(db: { schema: SchemaModule }): string[] {
  return COUNT_TABLE_INDEXES.map(
    ({ name, table, columns }) =>
      db.schema
        .createIndex(name)
        .ifNotExists()
        .on(table)
        .columns([...columns])
        .compile().sql,
  );
}

/** `drop index` statements for the count tables' indexes. */
export function dropCountIndexStatements(db: { schema: SchemaModule }): string[] {
  return COUNT_TABLE_INDEXES.map(({ name }) => db.schema.dropIndex(name).ifExists().compile().sql);
}

/** `create unique index` for `complaints_id`, as migration 001 creates it. */
export function createIdIndexStatement(db: { schema: SchemaModule }): string {
  return db.schema.createIndex("complaints_id").unique().on("complaints").column("id").compile().sql;
}

/** `drop index` for `complaints_id`. */
export function dropIdIndexStatement(db: { schema: SchemaModule }): string {
  return db.schema.dropIndex("complaints_id").compile().sql;
}
