import type { NoticeFieldName } from "./notice-fields.js";

/** Drupal's filter operators, all of them. */
export const OPERATORS = [
  "=",
  "<>",
  ">",
  ">=",
  "<",
  "<=",
  "STARTS_WITH",
  "CONTAINS",
  "ENDS_WITH",
  "IN",
  "NOT IN",
  "BETWEEN",
  "NOT BETWEEN",
  "IS NULL",
  "IS NOT NULL",
] as const;

export type Operator = (typeof OPERATORS)[number];

/** The operators that match a pattern in text. */
export type PatternOperator = "STARTS_WITH" | "CONTAINS" | "ENDS_WITH";

/** Whether an operator matches a pattern in text (`STARTS_WITH`, `CONTAINS`, `ENDS_WITH`): never on a moment. */
export function isPatternOperator(operator: string): operator is PatternOperator {
  return operator === "STARTS_WITH" || operator === "CONTAINS" || operator === "ENDS_WITH";
}

/**
 * One condition. `values` holds what the operator takes: none for IS NULL / IS NOT NULL, two for
 * BETWEEN, one or more for IN, one otherwise. Timestamps are seconds; everything else is text.
 */
export interface FilterCondition {
  kind: "condition";
  field: NoticeFieldName;
  operator: Operator;
  values: Array<string | number>;
}

/** Members joined by AND or OR; the root group of a query is AND. */
export interface FilterGroup {
  kind: "group";
  conjunction: "AND" | "OR";
  members: FilterNode[];
}

/** A node of a validated notice filter: a condition or a group of nodes. */
export type FilterNode = FilterCondition | FilterGroup;
