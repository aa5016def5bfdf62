import { isCalendarDate, parseTimestamp } from "./notice.js";
import { resolveFieldPath } from "./notice-field-path.js";
import { type FieldKind, NOTICE_FIELDS, type NoticeFieldName } from "./notice-fields.js";
import { type FilterCondition, isPatternOperator, OPERATORS, type Operator } from "./notice-filter-node.js";
import { isParameterLeaf, leafValue, type ParameterNode } from "./notice-parameters.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";

/** Values an IN or NOT IN list may hold. */
export const MAX_LIST_VALUES = 200;

/** The largest moment a filter may name, in seconds: 9999-12-31T23:59:59Z. */
const SECONDS_LIMIT = 253_402_300_799;

/**
 * One filter condition from its parts: the field `path`, the operator as given (any case; `=` when
 * the request gave none) and the `value` node (a value, a list, or undefined when absent). Checks
 * that the operator exists, takes the number of values given and applies to the field's kind;
 * moments become seconds and dates must be calendar dates. `parameter` names the condition (such
 * as `filter[a][condition]`) and `pathParameter` where its path came from, for error sources.
 * Throws the 400 naming the first problem.
 */
export function parseFilterCondition(
  path: string,
  operatorText: string,
  valueNode: ParameterNode | undefined,
  parameter: string,
  pathParameter: string,
): FilterCondition {
  const field = resolveFieldPath(path, pathParameter, "filtering");
  const operator = OPERATORS.find((candidate) => candidate === operatorText.toUpperCase().trim());
  if (!operator) {
    throw refuseNoticeQuery("operatorUnknown", `${parameter}[operator]`, { operator: operatorText });
  }
  if (operator === "IS NULL" || operator === "IS NOT NULL") {
    if (valueNode !== undefined) {
      throw refuseNoticeQuery("valueNotAllowed", `${parameter}[value]`, { operator });
    }
    return { kind: "condition", field, operator, values: [] };
  }
  if (valueNode === undefined) throw refuseNoticeQuery("valueMissing", `${parameter}[value]`);
  const texts = operandTexts(operator, valueNode, `${parameter}[value]`);
  return { kind: "condition", field, operator, values: typedValues(field, operator, texts, parameter) };
}

/** The texts of a condition's value, as many as `operator` takes. */
function operandTexts(operator: Operator, valueNode: ParameterNode, valueParameter: string): string[] {
  const texts = valueList(valueNode, valueParameter);
  if (operator === "BETWEEN" || operator === "NOT BETWEEN") {
    if (texts.length !== 2) {
      throw refuseNoticeQuery("twoValuesNeeded", valueParameter, {
        operator,
        parameter: valueParameter,
        count: texts.length,
      });
    }
  } else if (operator === "IN" || operator === "NOT IN") {
    if (texts.length > MAX_LIST_VALUES) {
      throw refuseNoticeQuery("tooManyValues", valueParameter, {
        operator,
        max: MAX_LIST_VALUES,
        count: texts.length,
      });
    }
  } else if (texts.length !== 1 || !isParameterLeaf(valueNode)) {
    throw refuseNoticeQuery("oneValueNeeded", valueParameter, { operator });
  }
  return texts;
}

/** A value, or a list given as `[]=a&[]=b` (or with numbered keys), in key order. */
function valueList(node: ParameterNode, parameter: string): string[] {
  if (isParameterLeaf(node)) return [node.value];
  const entries = [...node.children];
  if (entries.length === 0 || !entries.every(([key]) => /^\d{1,6}$/.test(key))) {
    throw refuseNoticeQuery("valueNotList", parameter, { parameter });
  }
  return entries
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, child]) => leafValue(child, `${parameter}[]`));
}

/** The texts as the field's kind compares them: moments as seconds, dates checked, text as is. */
function typedValues(
  field: NoticeFieldName,
  operator: Operator,
  texts: string[],
  parameter: string,
): Array<string | number> {
  const valueParameter = `${parameter}[value]`;
  const kind: FieldKind = NOTICE_FIELDS[field];
  const textual = isPatternOperator(operator);
  if (kind === "timestamp") {
    if (textual)
      throw refuseNoticeQuery("textOperatorOnMoment", `${parameter}[operator]`, { operator, field });
    return texts.map((text) => moment(text, field, valueParameter));
  }
  if (kind === "date" && !textual) {
    for (const text of texts) {
      if (!isCalendarDate(text)) throw refuseNoticeQuery("dateValueInvalid", valueParameter, { value: text });
    }
  }
  return texts;
}

/** A moment as ISO 8601 or seconds since 1970, to seconds; refused past year 9999 either way. */
function moment(text: string, field: string, parameter: string): number {
  const trimmed = text.trim();
  if (/^-?\d{1,12}$/.test(trimmed)) {
    const seconds = Number(trimmed);
    if (Math.abs(seconds) <= SECONDS_LIMIT) return seconds;
  }
  const seconds = parseTimestamp(trimmed);
  if (seconds === null || Math.abs(seconds) > SECONDS_LIMIT) {
    throw refuseNoticeQuery("momentValueInvalid", parameter, { field, value: text });
  }
  return seconds;
}
