import { type Expression, type RawBuilder, type SqlBool, sql } from "kysely";
import { NOTICES } from "../domain/collections.js";
import { formatTimestamp, type Notice } from "../domain/notice.js";
import type { NoticeFieldName } from "../domain/notice-fields.js";
import { NOTICE_FIELDS } from "../domain/notice-fields.js";
import type { FilterCondition, FilterGroup, FilterNode, NoticeQuery } from "../domain/notice-query.js";
import { CollectionVersion } from "./collection-version.js";
import type { Database } from "./database.js";
import type { NoticeTable } from "./schema.js";
import { VersionedLru } from "./versioned-lru.js";

/** A page of notices and the exact number the query matches. */
export interface NoticePage {
  total: number;
  records: Notice[];
}

/** The column of each single-value field. */
const COLUMNS: Record<Exclude<NoticeFieldName, "acquired-entities" | "tags">, keyof NoticeTable> = {
  id: "id",
  title: "title",
  "transaction-number": "transaction_number",
  "acquiring-party": "acquiring_party",
  "acquired-party": "acquired_party",
  date: "date",
  created: "created_at",
  updated: "updated_at",
};

const SELECTED = [
  "id",
  "revision",
  "title",
  "transaction_number",
  "acquiring_party",
  "acquired_party",
  "date",
  "created_at",
  "updated_at",
] as const;

/** Totals kept per store (per process): enough for every filter a busy server sees in a while. */
const TOTALS_KEPT = 1000;

/**
 * Reads notices. A query's filter tree is compiled to one SQL condition (the same on both
 * dialects but for how a list field's condition reaches its values); the total is a COUNT over it
 * and a page is read with LIMIT/OFFSET in the requested order, so no request holds more than a page
 * of notices in memory.
 *
 * Totals are kept per filter for the collection's version (`CollectionVersion`) and reused while it
 * stays the same: paging through a filter counts it once.
 */
export class NoticeStore {
  readonly collection = NOTICES;
  private readonly totals = new VersionedLru<number>(TOTALS_KEPT);

  /** `version`: the notices' change detection, shared with this process's other caches of them. */
  constructor(
    private readonly database: Database,
    readonly version: CollectionVersion = new CollectionVersion(database, NOTICES),
  ) {}

  async list(query: NoticeQuery): Promise<NoticePage> {
    const where = compileGroup(query.filter, this.database.dialect);
    const total = await this.total(where);
    if (query.offset >= total) return { total, records: [] };

    // Near the end, read backwards from the other end: the order is total (ties end in the id),
    // so the same notices come back, and a deep offset costs no more than a shallow one.
    let offset = query.offset;
    let limit = query.limit;
    const fromEnd = total - query.offset - query.limit;
    const reversed = fromEnd < query.offset;
    if (reversed) {
      offset = Math.max(0, fromEnd);
      limit = Math.min(query.limit, total - query.offset);
    }
    const flip = (direction: "ASC" | "DESC"): "asc" | "desc" =>
      (direction === "DESC") !== reversed ? "desc" : "asc";

    let select = this.database.db.selectFrom("notices").select(SELECTED);
    if (where) select = select.where(where);
    const keys =
      query.sort.length > 0 ? query.sort : [{ field: "created" as const, direction: "DESC" as const }];
    for (const key of keys) {
      const direction = flip(key.direction);
      const kind = NOTICE_FIELDS[key.field];
      if (key.field === "acquired-entities" || key.field === "tags") {
        // A list sorts by its first value; a notice without values sorts as an absent value.
        const first = sql`(select lower(notice_values.value) from notice_values where notice_values.notice_id = notices.id and notice_values.field = ${key.field} and notice_values.position = 0)`;
        select = select.orderBy(sql`(${first} is null)`, direction).orderBy(first, direction);
        continue;
      }
      const column = sql.ref(`notices.${COLUMNS[key.field]}`);
      // Absent values sort as the largest on both engines (PostgreSQL's rule).
      if (
        key.field !== "id" &&
        key.field !== "title" &&
        key.field !== "transaction-number" &&
        kind !== "timestamp"
      )
        select = select.orderBy(sql`(${column} is null)`, direction);
      select = select.orderBy(kind === "text" ? sql`lower(${column})` : column, direction);
    }
    if (!keys.some((key) => key.field === "id")) select = select.orderBy("id", flip("ASC"));
    select = select.limit(limit).offset(offset);
    // Notices skipped by an offset need only their id, which the order's index holds; the page's
    // rows are then fetched by id (PostgreSQL would otherwise read every skipped row from the table).
    const rows =
      offset > 0 ? await this.byIds(select.clearSelect().select("notices.id")) : await select.execute();
    if (reversed) rows.reverse();
    return { total, records: await this.withValues(rows) };
  }

  /** The notices whose ids the query selects, in its order. */
  private async byIds(ids: { execute(): Promise<Array<{ id: string }>> }) {
    const keys = await ids.execute();
    if (keys.length === 0) return [];
    const rows = await this.database.db
      .selectFrom("notices")
      .select(SELECTED)
      .where(
        "notices.id",
        "in",
        keys.map((key) => key.id),
      )
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return keys.map((key) => byId.get(key.id)!);
  }

  /**
   * The number of notices `where` matches, kept per filter for the collection's current version:
   * paging through a filter counts it once, and any change to the notices (a new version) drops
   * every kept total.
   */
  private async total(where: Expression<SqlBool> | undefined): Promise<number> {
    let count = this.database.db
      .selectFrom("notices")
      .select((eb) => eb.fn.countAll<number | string>().as("count"));
    if (where) count = count.where(where);
    const compiled = count.compile();
    const key = `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
    const { version } = await this.version.current();
    const kept = this.totals.get(key, version);
    if (kept !== undefined) return kept;
    const { rows } = await this.database.db.executeQuery(compiled);
    const total = Number(rows[0]?.count ?? 0);
    this.totals.set(key, total, version);
    return total;
  }

  /** Every notice, exactly (`/v0/status`). */
  recordCount(): Promise<number> {
    return this.count();
  }

  /** The newest notice's created time as the API writes it, or undefined when there are none. */
  async newestCreated(): Promise<string | undefined> {
    const newest = await this.newestCreatedAt();
    return newest === undefined ? undefined : formatTimestamp(newest);
  }

  async findById(id: string): Promise<Notice | undefined> {
    const row = await this.database.db
      .selectFrom("notices")
      .select(SELECTED)
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row) return undefined;
    return (await this.withValues([row]))[0];
  }

  /** The newest notice's created time (seconds), or undefined when there is none. */
  async newestCreatedAt(): Promise<number | undefined> {
    const row = await this.database.db
      .selectFrom("notices")
      .select("created_at")
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.created_at);
  }

  /** Notices in the store, for status and tests. */
  async count(): Promise<number> {
    const row = await this.database.db
      .selectFrom("notices")
      .select(sql<number | string>`count(*)`.as("count"))
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /**
   * Refreshes the planner's statistics after an import; on PostgreSQL also the visibility map, so
   * counts read the indexes alone instead of every row.
   */
  async optimize(): Promise<void> {
    await sql
      .raw(this.database.dialect === "postgres" ? "vacuum analyze notices, notice_values" : "pragma optimize")
      .execute(this.database.db);
  }

  private async withValues(
    rows: ReadonlyArray<Pick<NoticeTable, (typeof SELECTED)[number]>>,
  ): Promise<Notice[]> {
    if (rows.length === 0) return [];
    const values = await this.database.db
      .selectFrom("notice_values")
      .select(["notice_id", "field", "value"])
      .where(
        "notice_id",
        "in",
        rows.map((row) => row.id),
      )
      .orderBy("notice_id")
      .orderBy("field")
      .orderBy("position")
      .execute();
    const byNotice = new Map<string, { entities: string[]; tags: string[] }>();
    for (const value of values) {
      let lists = byNotice.get(value.notice_id);
      if (!lists) {
        lists = { entities: [], tags: [] };
        byNotice.set(value.notice_id, lists);
      }
      (value.field === "tags" ? lists.tags : lists.entities).push(value.value);
    }
    return rows.map((row) => ({
      id: row.id,
      revision: Number(row.revision),
      title: row.title,
      transactionNumber: row.transaction_number,
      acquiringParty: row.acquiring_party,
      acquiredParty: row.acquired_party,
      date: row.date,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      acquiredEntities: byNotice.get(row.id)?.entities ?? [],
      tags: byNotice.get(row.id)?.tags ?? [],
    }));
  }
}

/** The group as one SQL condition; undefined for an empty root (no filter). */
function compileGroup(group: FilterGroup, dialect: Database["dialect"]): Expression<SqlBool> | undefined {
  if (group.members.length === 0) return undefined;
  return compileNode(group, dialect);
}

function compileNode(node: FilterNode, dialect: Database["dialect"]): RawBuilder<SqlBool> {
  if (node.kind === "condition") return compileCondition(node, dialect);
  const parts = node.members.map((member) => compileNode(member, dialect));
  return sql<SqlBool>`(${sql.join(parts, sql.raw(node.conjunction === "AND" ? " and " : " or "))})`;
}

/** `%` and `_` are wildcards of LIKE; the value's own are escaped with a backslash. */
function likePattern(value: string, before: string, after: string): string {
  return `${before}${value.replace(/[\\%_]/g, (character) => `\\${character}`)}${after}`;
}

/**
 * One condition. Text (the id included) compares case-insensitively, lower() on both sides; dates
 * compare as their `YYYY-MM-DD` text; moments as seconds. A condition on a multi-value field holds
 * when any of the notice's values satisfies it; IS NULL there means the notice has no value.
 */
function compileCondition(condition: FilterCondition, dialect: Database["dialect"]): RawBuilder<SqlBool> {
  const kind = NOTICE_FIELDS[condition.field];
  if (kind === "array") {
    const values = sql`select 1 from notice_values where notice_values.notice_id = notices.id and notice_values.field = ${condition.field}`;
    if (condition.operator === "IS NULL") return sql<SqlBool>`not exists (${values})`;
    if (condition.operator === "IS NOT NULL") return sql<SqlBool>`exists (${values})`;
    const test = comparison(
      sql`lower(notice_values.value)`,
      condition,
      (value) => sql`lower(cast(${value} as text))`,
    );
    // PostgreSQL reads the matching values once, through their trigram index, even inside an OR
    // (an EXISTS there is probed once per notice). SQLite probes per notice: a page in an indexed
    // order stops at its last notice. notice_id is never null, so IN means exactly EXISTS.
    if (dialect === "sqlite") return sql<SqlBool>`exists (${values} and ${test})`;
    return sql<SqlBool>`notices.id in (select notice_values.notice_id from notice_values where notice_values.field = ${condition.field} and ${test})`;
  }
  const column = sql.ref(`notices.${COLUMNS[condition.field as keyof typeof COLUMNS]}`);
  if (condition.operator === "IS NULL") return sql<SqlBool>`${column} is null`;
  if (condition.operator === "IS NOT NULL") return sql<SqlBool>`${column} is not null`;
  if (kind === "timestamp") return comparison(column, condition, (value) => sql`${value}`);
  if (kind === "date") return comparison(column, condition, (value) => sql`${value}`);
  // Ids are stored in lower case (domain/notice.ts), so only the value is lowered and the primary
  // key's index serves `filter[id][value]`.
  if (kind === "id") return comparison(column, condition, (value) => sql`lower(cast(${value} as text))`);
  return comparison(sql`lower(${column})`, condition, (value) => sql`lower(cast(${value} as text))`);
}

function comparison(
  left: RawBuilder<unknown> | ReturnType<typeof sql.ref>,
  condition: FilterCondition,
  right: (value: string | number) => RawBuilder<unknown>,
): RawBuilder<SqlBool> {
  const [first, second] = condition.values;
  const like = (pattern: string) => sql<SqlBool>`${left} like ${right(pattern)} escape '\\'`;
  switch (condition.operator) {
    case "=":
    case "<>":
    case ">":
    case ">=":
    case "<":
    case "<=":
      return sql<SqlBool>`${left} ${sql.raw(condition.operator)} ${right(first!)}`;
    case "STARTS_WITH":
      return like(likePattern(String(first), "", "%"));
    case "CONTAINS":
      return like(likePattern(String(first), "%", "%"));
    case "ENDS_WITH":
      return like(likePattern(String(first), "%", ""));
    case "IN":
      return sql<SqlBool>`${left} in (${sql.join(condition.values.map(right))})`;
    case "NOT IN":
      return sql<SqlBool>`${left} not in (${sql.join(condition.values.map(right))})`;
    case "BETWEEN":
      return sql<SqlBool>`${left} between ${right(first!)} and ${right(second!)}`;
    case "NOT BETWEEN":
      return sql<SqlBool>`${left} not between ${right(first!)} and ${right(second!)}`;
    default:
      throw new Error(`operator ${condition.operator} reached the SQL compiler`);
  }
}
