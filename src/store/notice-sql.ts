import { type RawBuilder, type SqlBool, sql } from "kysely";
import type { NoticeFieldName } from "../domain/notice-fields.js";
import { NOTICE_FIELDS } from "../domain/notice-fields.js";
import type { FilterCondition, FilterNode } from "../domain/notice-query.js";
import type { Database } from "./database.js";
import type { NoticeTable } from "./schema.js";

/** The column of each single-value field. */
export const NOTICE_COLUMNS: Record<
  Exclude<NoticeFieldName, "acquired-entities" | "tags">,
  keyof NoticeTable
> = {
  id: "id",
  title: "title",
  "transaction-number": "transaction_number",
  "acquiring-party": "acquiring_party",
  "acquired-party": "acquired_party",
  date: "date",
  created: "created_at",
  updated: "updated_at",
};

/**
 * What a field sorts by, as SQL over `notices`: `absent` is true for a notice without a value
 * (absent values sort as the largest on both engines, PostgreSQL's rule) and `value` is the value
 * compared (text lowered; a list's first value). `absent` is undefined for fields that always hold
 * a value.
 */
export function noticeSortExpressions(field: NoticeFieldName): {
  absent?: RawBuilder<unknown>;
  value: RawBuilder<unknown>;
} {
  if (field === "acquired-entities" || field === "tags") {
    const first = sql`(select lower(notice_values.value) from notice_values where notice_values.notice_id = notices.id and notice_values.field = ${field} and notice_values.position = 0)`;
    return { absent: sql`(${first} is null)`, value: first };
  }
  const kind = NOTICE_FIELDS[field];
  const column = sql.ref(`notices.${NOTICE_COLUMNS[field]}`);
  const value = kind === "text" ? sql`lower(${column})` : sql`${column}`;
  if (field === "id" || field === "title" || field === "transaction-number" || kind === "timestamp")
    return { value };
  return { absent: sql`(${column} is null)`, value };
}

/** A filter node (a condition or a group) as one SQL condition over `notices`. */
export function compileNoticeFilter(node: FilterNode, dialect: Database["dialect"]): RawBuilder<SqlBool> {
  if (node.kind === "condition") return compileCondition(node, dialect);
  const parts = node.members.map((member) => compileNoticeFilter(member, dialect));
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
  const column = sql.ref(`notices.${NOTICE_COLUMNS[condition.field as keyof typeof NOTICE_COLUMNS]}`);
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
