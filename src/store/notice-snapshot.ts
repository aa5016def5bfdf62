import { hash } from "node:crypto";
import type { Notice } from "../domain/notice.js";
import { NOTICE_FIELDS, type NoticeFieldName } from "../domain/notice-fields.js";
import { isPatternOperator, type PatternOperator } from "../domain/notice-filter-node.js";
import type { FilterCondition, FilterNode, SortKey } from "../domain/notice-query.js";
import { type MeasuredNotices, NoticeResourceBytes } from "../domain/notice-resource-bytes.js";
import { AskedKeys, VersionedLru } from "./collection-version.js";
import { compareFromEnd, FieldIndex, type IndexedValue } from "./field-index.js";
import { JoinedValues } from "./joined-values.js";
import { TrigramIndex } from "./trigram-index.js";

/** The text fields a notice holds one value of, lowered for comparison. */
type ScalarTextField = "id" | "title" | "transaction-number" | "acquiring-party" | "acquired-party";
type ListField = "acquired-entities" | "tags";

/** Operators whose answer on text depends on the database's collation: answered by the database. */
const ORDERING_OPERATORS = new Set(["<", "<=", ">", ">=", "BETWEEN", "NOT BETWEEN"]);

/** Operators that bound one value from below, above or both: several on one field are one range (`sharedRange`). */
const RANGE_OPERATORS = new Set(["<", "<=", ">", ">=", "BETWEEN"]);

/** Candidates from an index up to this many are tested one by one; more are marked in an array. */
const FEW_CANDIDATES = 4_000;

/** The matches of filters kept per snapshot, in bytes (4 a match, and 4 a match per sort paged). */
const MATCHES_KEPT_BYTES = 8 * 1024 * 1024;

/** The matches of single conditions kept per snapshot, in bytes (4 a match). */
const CONDITION_MATCHES_KEPT_BYTES = 2 * 1024 * 1024;

/** Filters a snapshot remembers as asked once, per generation (`AskedKeys`). */
const FILTERS_REMEMBERED = 4096;

/** The notices that match a filter: their positions, and their places in each sort asked for. */
export interface Matches {
  count: number;
  positions: Int32Array;
  /** Per sort, the matches' places in that sort's order, ascending: a page is a slice of it. */
  places: Map<string, Int32Array>;
  /** The sorts a page of these matches was found in by walking the whole order. */
  walked: Set<string>;
}

/** Where a condition's notices are: index records (`exact`), or candidates still to be tested. */
interface Source {
  records: Int32Array[];
  exact: boolean;
}

/** A sort's order: the notices' positions in order, and each position's place in it. */
interface SortOrder {
  readonly name: string;
  readonly order: Int32Array;
  /** Made on first use (`placesIn`): a page of every notice reads `order` alone. */
  rankOf?: Int32Array;
}

/**
 * The fields whose values are indexed by their three-character sequences (`TrigramIndex`): the
 * title, and the acquired entities, whose joined values (1.3 MB for the 28,000 notices) took 0.4 to
 * 1 ms to search for a first `CONTAINS` (an OR group's usual member), where their index (4 MB
 * outside the heap, built in about 40 ms) answers in tens of microseconds.
 */
const TRIGRAM_FIELDS: ReadonlySet<NoticeFieldName> = new Set<NoticeFieldName>(["title", "acquired-entities"]);

/** Where a field's values are kept (`NoticeSnapshot.stored`). */
type StoredValues =
  | { list: false; at: (position: number) => IndexedValue | null }
  | { list: true; at: (position: number) => readonly string[] };

/** Sort orders kept per snapshot (each a permutation of the notices, 4 bytes a notice). */
const ORDERS_KEPT = 64;

/**
 * The rank of every notice in one field's ascending order as the database sorts it (absent values
 * last, text by its lowered form in the database's collation); equal values share a rank.
 */
export type FieldRanks = Int32Array;

/**
 * Every notice of one version of the collection, held in memory with what answers a list request
 * without the database: lowered texts, value indexes for equality, ranges and prefixes, indexes
 * from the values' ends for suffixes, trigram indexes for patterns (`TRIGRAM_FIELDS`), and per-field ranks
 * from which sort orders are made, all built by `preparations` before the first request (an order
 * is made on its first use, and kept). A filter that one indexed
 * condition answers yields its notices directly; any other becomes a membership array over the
 * notices. A page sorts a few matches by their place in the sort's order, or walks the order from
 * whichever end is nearer.
 *
 * Answers equal the SQL ones on either dialect, because what depends on the database's rules is
 * taken from it: `lower` is the database's own case mapping (ASCII-only on SQLite and in
 * PostgreSQL's C locale), and where the database's collation is not code-point order, field orders
 * come as ranks read from it and text compared by order (`<`, `BETWEEN`, ...) is answered by it
 * (`conditionsForDatabase`).
 */
export class NoticeSnapshot {
  readonly size: number;
  private readonly positionOf = new Map<string, number>();
  private readonly scalars: Record<ScalarTextField, Array<string | null>>;
  private readonly lists: Record<ListField, string[][]>;
  private readonly grams = new Map<NoticeFieldName, TrigramIndex>();
  /**
   * The text fields other than `title`, their values joined: what their values are kept as, and
   * what their `CONTAINS` searches (but a pattern of three characters or more on a trigram field).
   */
  private readonly joined = new Map<NoticeFieldName, JoinedValues>();
  private readonly indexes = new Map<string, FieldIndex>();
  private readonly matches = new VersionedLru<Matches>(MATCHES_KEPT_BYTES);
  /**
   * The matches of single conditions that an index does not answer exactly (a `CONTAINS` tested on
   * its trigram candidates, a test of every notice), kept from a condition's second request on, in
   * any filter: an `OR` group or an `AND` of conditions asked before costs no test again.
   */
  private readonly conditionMatches = new VersionedLru<Int32Array>(CONDITION_MATCHES_KEPT_BYTES);
  /** Filters asked for recently: their matches are kept from the second request on (`AskedKeys`). */
  private readonly asked = new AskedKeys(FILTERS_REMEMBERED);
  private readonly orders = new Map<string, SortOrder>();
  /** Which ranks give every notice a rank of its own (`distinct`). */
  private readonly distinctRanks = new WeakMap<FieldRanks, boolean>();
  /** The notices' positions in id order: where every sort's order starts (ties broken by id). */
  private idOrder: Int32Array | undefined;
  private readonly ranks = new Map<NoticeFieldName, FieldRanks>();
  private readonly withoutSurrogates = new Map<NoticeFieldName, boolean>();
  private readonly lower: (text: string) => string;
  private measuredNotices: MeasuredNotices | undefined;
  private resourceBytes: NoticeResourceBytes | undefined;

  /** Per position, what the notices' times and dates sort and filter by. */
  private readonly createdAt: Float64Array;
  private readonly updatedAt: Float64Array;
  private readonly dates: ReadonlyArray<string | null>;
  /**
   * The notices as read, until their resource bytes are written (`resources`), from which a notice
   * is then read back (`notice`): the text of the objects is not kept twice.
   */
  private readNotices: readonly Notice[] | undefined;

  /**
   * @param version the collection version the notices were read at.
   * @param notices every notice, in any order.
   * @param rules how the database lowers and orders text; with a collation other than code-point
   *   order, `rules.ranks` holds the database's order of every text and list field.
   */
  constructor(
    readonly version: number,
    notices: readonly Notice[],
    private readonly rules: TextRules,
  ) {
    const lower = rules.lower;
    this.lower = lower;
    this.size = notices.length;
    this.readNotices = notices;
    notices.forEach((notice, position) => {
      this.positionOf.set(notice.id, position);
    });
    const lowered = (read: (notice: Notice) => string | null) =>
      notices.map((notice) => {
        const value = read(notice);
        return value === null ? null : lower(value);
      });
    // The fields whose CONTAINS a search of their joined values answers keep their values as
    // slices of that text (`JoinedValues`), so that the characters are held once.
    const joinedScalars = (field: ScalarTextField, read: (notice: Notice) => string | null) => {
      const values = lowered(read);
      const joined = JoinedValues.ofScalars(values);
      this.joined.set(field, joined);
      return values.map((value, position) => (value === null ? null : joined.valueAt(position)));
    };
    const joinedLists = (field: ListField, read: (notice: Notice) => readonly string[]) => {
      const lists = notices.map((notice) => read(notice).map(lower));
      const joined = JoinedValues.ofLists(lists);
      this.joined.set(field, joined);
      let index = 0;
      return lists.map((list) => list.map(() => joined.valueAt(index++)));
    };
    this.scalars = {
      id: notices.map((notice) => notice.id),
      title: lowered((notice) => notice.title),
      "transaction-number": joinedScalars("transaction-number", (notice) => notice.transactionNumber),
      "acquiring-party": joinedScalars("acquiring-party", (notice) => notice.acquiringParty),
      "acquired-party": joinedScalars("acquired-party", (notice) => notice.acquiredParty),
    };
    this.lists = {
      "acquired-entities": joinedLists("acquired-entities", (notice) => notice.acquiredEntities),
      tags: joinedLists("tags", (notice) => notice.tags),
    };
    this.createdAt = Float64Array.from(notices, (notice) => notice.createdAt);
    this.updatedAt = Float64Array.from(notices, (notice) => notice.updatedAt);
    this.dates = notices.map((notice) => notice.date);
  }

  /**
   * What requests would otherwise build on arrival, as steps of tens of milliseconds each, so that
   * no first request of any kind waits for one: every notice's resource bytes (`resources`, in two
   * steps), the default order (newest created first, ties by id) and that of `sort=-date`, the
   * three-character indexes of `TRIGRAM_FIELDS` (title keywords and CONTAINS), and for every field
   * its index (equality, lists, ranges, STARTS_WITH), its index from the end (ENDS_WITH) and its
   * ranks (from which any sort's order is a few counting sorts). Other text fields' CONTAINS
   * searches their joined values (`JoinedValues`, built with the snapshot).
   */
  preparations(): Array<() => void> {
    const fields = Object.keys(NOTICE_FIELDS) as NoticeFieldName[];
    return [
      () => this.resourceBytes ?? this.measured,
      () => this.resources,
      () => this.order([]),
      () => this.order([{ field: "date", direction: "DESC" }]),
      ...[...TRIGRAM_FIELDS].map((field) => () => this.trigrams(field)),
      ...fields.map((field) => () => this.index(field)),
      ...fields
        .filter((field) => NOTICE_FIELDS[field] !== "timestamp")
        .map((field) => () => this.index(field, true)),
      ...fields.map((field) => () => this.ranksOf(field)),
    ];
  }

  /** Every notice's resource object as bytes, by position: what a page without a fieldset is written from. */
  get resources(): NoticeResourceBytes {
    if (this.resourceBytes === undefined) {
      this.resourceBytes = this.measured.write();
      this.measuredNotices = undefined;
      this.readNotices = undefined;
    }
    return this.resourceBytes;
  }

  private get measured(): MeasuredNotices {
    this.measuredNotices ??= NoticeResourceBytes.measure(this.readNotices!);
    return this.measuredNotices;
  }

  /** The notice at `position`, read back from its resource bytes (a new object each time). */
  notice(position: number): Notice {
    return this.resources.noticeAt(position, {
      createdAt: this.createdAt[position]!,
      updatedAt: this.updatedAt[position]!,
    });
  }

  /** The `date` of the notice at `position`. */
  dateOf(position: number): string | null {
    return this.dates[position]!;
  }

  /** The position of the notice with this id (ids are stored lowered), or undefined. */
  position(id: string): number | undefined {
    return this.positionOf.get(id);
  }

  /**
   * The conditions of a filter that the database must answer: text compared by order, when the
   * database's collation is not the order of code points.
   */
  conditionsForDatabase(node: FilterNode, found: FilterCondition[] = []): FilterCondition[] {
    if (this.rules.binaryCollation) return found;
    if (node.kind === "group") {
      for (const member of node.members) this.conditionsForDatabase(member, found);
    } else if (isTextual(node.field) && ORDERING_OPERATORS.has(node.operator)) found.push(node);
    return found;
  }

  /**
   * The notices a filter matches, as a membership array (1 for a match) and their number, or
   * undefined for an empty root group (every notice). `resolved` holds the database's answer for
   * each condition that `conditionsForDatabase` named, as membership arrays.
   */
  async matching(
    node: FilterNode,
    resolved: ReadonlyMap<FilterCondition, Uint8Array>,
  ): Promise<Matches | undefined> {
    if (node.kind === "group" && node.members.length === 0) return undefined;
    // What the database answered is part of the filter's result, so such filters are not kept.
    // Kept by a digest of the filter: a filter of many conditions is kilobytes of text, which
    // would outlive the young generation with every kept entry.
    const key = resolved.size === 0 ? hash("md5", JSON.stringify(node), "base64url") : undefined;
    const kept = key === undefined ? undefined : this.matches.get(key, this.version);
    if (kept) return kept;
    let sole: FilterNode = node;
    while (sole.kind === "group" && sole.members.length === 1) sole = sole.members[0]!;
    const conditions = sole.kind === "condition" ? [sole] : sole.conjunction === "AND" ? sole.members : [];
    let positions =
      sole.kind === "group" && sole.conjunction === "OR"
        ? this.anyOf(sole.members, resolved)
        : this.allOf(conditions, resolved);
    if (positions === undefined) {
      positions = positionsOf(await this.evaluate(node, resolved, new TurnShare()));
    }
    const matches: Matches = { count: positions.length, positions, places: new Map(), walked: new Set() };
    if (key !== undefined && this.asked.askedBefore(key))
      this.matches.set(key, matches, this.version, Math.max(64, positions.length * 20));
    return matches;
  }

  /**
   * A node's membership array; the caller may change it. A filter of many conditions takes
   * milliseconds of the event loop (64 `CONTAINS` conditions, about 10 ms), so the walk gives the
   * loop back between members once `share`'s slice is spent, and other requests are answered
   * meanwhile instead of waiting for the whole filter.
   */
  private async evaluate(
    node: FilterNode,
    resolved: ReadonlyMap<FilterCondition, Uint8Array>,
    share: TurnShare,
  ): Promise<Uint8Array> {
    if (node.kind === "condition") {
      const answered = resolved.get(node);
      return answered ? answered.slice() : this.condition(node);
    }
    const [head, ...rest] = node.members;
    if (head === undefined) return new Uint8Array(this.size).fill(node.conjunction === "AND" ? 1 : 0);
    const result = await this.evaluate(head, resolved, share);
    const size = this.size;
    for (const member of rest) {
      await share.yieldIfSpent();
      // A condition of an OR adds its matches in place, without an array of its own.
      if (node.conjunction === "OR" && member.kind === "condition" && !resolved.has(member)) {
        this.addMatches(member, result);
        continue;
      }
      const part = await this.evaluate(member, resolved, share);
      if (node.conjunction === "AND") intersectInto(result, part, size);
      else uniteInto(result, part, size);
    }
    return result;
  }

  /** Sets `members[position]` to 1 for every notice matching `condition`; leaves the others as they are. */
  private addMatches(condition: FilterCondition, members: Uint8Array): void {
    const source = this.source(condition);
    if (source?.exact) {
      for (const records of source.records)
        for (let at = 0; at < records.length; at++) members[records[at]!] = 1;
      return;
    }
    const key = conditionKey(condition);
    let kept = this.conditionMatches.get(key, this.version);
    if (kept === undefined && this.asked.askedBefore(`condition\u0000${key}`))
      kept = this.testAndKeep(condition, source, key);
    if (kept) {
      for (let at = 0; at < kept.length; at++) members[kept[at]!] = 1;
      return;
    }
    const candidates = source?.records[0];
    const pattern = this.patternOf(condition);
    if (pattern) {
      addPatternMatches(members, pattern, candidates);
      return;
    }
    const test = this.positionTest(condition);
    if (candidates) {
      for (let at = 0; at < candidates.length; at++) {
        const position = candidates[at]!;
        if (members[position] === 0 && test(position)) members[position] = 1;
      }
    } else
      for (let position = 0; position < this.size; position++)
        if (members[position] === 0 && test(position)) members[position] = 1;
  }

  /**
   * The notices matching any of `members` when each is a condition an index answers (its records)
   * or narrows (its candidates, tested, or its matches kept from an earlier request): their records
   * united, each once, in the time of their number rather than a pass over every notice; else
   * undefined.
   */
  private anyOf(
    members: readonly FilterNode[],
    resolved: ReadonlyMap<FilterCondition, Uint8Array>,
  ): Int32Array | undefined {
    const lists: Int32Array[] = [];
    for (const member of members) {
      if (member.kind !== "condition" || resolved.has(member)) return undefined;
      const source = this.source(member);
      if (!source) return undefined;
      if (source.exact) lists.push(...source.records);
      else {
        const key = conditionKey(member);
        const kept = this.conditionMatches.get(key, this.version);
        if (kept) lists.push(kept);
        else if (this.asked.askedBefore(`condition\u0000${key}`))
          lists.push(this.testAndKeep(member, source, key));
        else lists.push(this.testedMatches(member, source));
      }
    }
    return unique(lists, this.size);
  }

  /** `testedMatches`, kept among the snapshot's condition matches under `key` (`conditionKey`). */
  private testAndKeep(condition: FilterCondition, source: Source | undefined, key: string): Int32Array {
    const found = this.testedMatches(condition, source);
    this.conditionMatches.set(key, found, this.version, 64 + 4 * found.length);
    return found;
  }

  /** The positions of the notices matching a condition that no index answers exactly, each tested. */
  private testedMatches(condition: FilterCondition, source: Source | undefined): Int32Array {
    const candidates = source?.records[0];
    const pattern = this.patternOf(condition);
    if (pattern) return patternMatches(pattern, candidates);
    const test = this.positionTest(condition);
    const found: number[] = [];
    if (candidates) {
      for (let at = 0; at < candidates.length; at++) if (test(candidates[at]!)) found.push(candidates[at]!);
    } else for (let position = 0; position < this.size; position++) if (test(position)) found.push(position);
    return Int32Array.from(found);
  }

  private condition(condition: FilterCondition): Uint8Array {
    const result = new Uint8Array(this.size);
    this.addMatches(condition, result);
    return result;
  }

  /**
   * The notices matching every one of `members` when all are conditions and one of them has an
   * index (or several bound one field's range, `sharedRange`): the fewest records so found, kept
   * when the other conditions' tests pass; else undefined. No pass over every notice.
   */
  private allOf(
    members: readonly FilterNode[],
    resolved: ReadonlyMap<FilterCondition, Uint8Array>,
  ): Int32Array | undefined {
    let best:
      | { covered: readonly FilterCondition[]; field: NoticeFieldName; source: Source; size: number }
      | undefined;
    for (const member of members) {
      if (member.kind !== "condition" || resolved.has(member)) return undefined;
      const source = this.source(member);
      if (!source) continue;
      const size = source.records.reduce((sum, records) => sum + records.length, 0);
      if (!best || size < best.size)
        best = { covered: source.exact ? [member] : [], field: member.field, source, size };
    }
    const range = this.sharedRange(members as readonly FilterCondition[]);
    if (range && (!best || range.records.length < best.size))
      best = {
        covered: range.conditions,
        field: range.conditions[0]!.field,
        source: { records: [range.records], exact: true },
        size: range.records.length,
      };
    if (!best) return undefined;
    const { covered, field, source } = best;
    const tests = (members as FilterCondition[])
      .filter((member) => !covered.includes(member))
      .map((member) => this.positionTest(member));
    if (tests.length > 0 && best.size > FEW_CANDIDATES) return undefined;
    const single = source.records.length === 1 && !isList(field);
    // The index's own records when nothing is left to test: read only, as every match set is.
    if (tests.length === 0) return single ? source.records[0]! : unique(source.records, this.size);
    const candidates = single ? source.records[0]!.slice() : unique(source.records, this.size);
    // A loop, not `filter` with a closure made per candidate (up to FEW_CANDIDATES a request): under
    // the distinct notice workload those closures were the notice thread's largest allocation.
    let kept = 0;
    testing: for (let at = 0; at < candidates.length; at++) {
      const position = candidates[at]!;
      for (const test of tests) if (!test(position)) continue testing;
      candidates[kept++] = position;
    }
    // A copy of its own size: matches may be kept, and weighed by their length.
    return kept === candidates.length ? candidates : candidates.slice(0, kept);
  }

  /**
   * Two or more range conditions (`>`, `>=`, `<`, `<=`, `BETWEEN`) of an AND on one field holding
   * one ordered value per notice, as one range of the field's index: the records between the
   * tightest lower and upper bounds, and the conditions it answers. A date range written as `>=`
   * and `<=` then reads one slice of the index, as `BETWEEN` does, instead of two membership
   * arrays over every notice. Undefined when no field has two. With several such fields, the one
   * with the fewest records.
   */
  private sharedRange(
    members: readonly FilterCondition[],
  ): { conditions: FilterCondition[]; records: Int32Array } | undefined {
    const byField = new Map<NoticeFieldName, FilterCondition[]>();
    for (const member of members) {
      if (!RANGE_OPERATORS.has(member.operator) || isList(member.field)) continue;
      const kind = NOTICE_FIELDS[member.field];
      if (kind !== "timestamp" && kind !== "date" && !this.rules.binaryCollation) continue;
      const same = byField.get(member.field);
      if (same) same.push(member);
      else byField.set(member.field, [member]);
    }
    let best: { conditions: FilterCondition[]; records: Int32Array } | undefined;
    for (const [field, conditions] of byField) {
      if (conditions.length < 2) continue;
      let low: Bound | undefined;
      let high: Bound | undefined;
      for (const condition of conditions) {
        const { operator } = condition;
        const [first, second] = this.operands(condition) as [IndexedValue, IndexedValue];
        if (operator === "BETWEEN" || operator === ">" || operator === ">=")
          low = tighter(low, { value: first, inclusive: operator !== ">" }, 1);
        if (operator === "BETWEEN" || operator === "<" || operator === "<=")
          high = tighter(
            high,
            { value: operator === "BETWEEN" ? second : first, inclusive: operator !== "<" },
            -1,
          );
      }
      const records = this.index(field).between(
        low?.value,
        low?.inclusive ?? false,
        high?.value,
        high?.inclusive ?? false,
      );
      if (!best || records.length < best.records.length) best = { conditions, records };
    }
    return best;
  }

  /**
   * Where a condition's notices can be found without testing every notice: its records from an
   * index (`exact`), or candidates that hold a pattern's three-character sequences, to be tested.
   */
  private source(condition: FilterCondition): Source | undefined {
    if (condition.operator === "IS NULL") return undefined;
    const operands = this.operands(condition);
    const found = this.indexed(condition, operands);
    if (found) return { records: found, exact: true };
    const candidates = this.candidates(condition.field, condition.operator, String(operands[0]));
    return candidates ? { records: [candidates], exact: false } : undefined;
  }

  /** Whether the notice at a position satisfies a condition (the database decides none of it). */
  private positionTest(condition: FilterCondition): (position: number) => boolean {
    const { field, operator } = condition;
    if (operator === "IS NULL" || operator === "IS NOT NULL") {
      const present = this.presence(field);
      return operator === "IS NOT NULL" ? present : (position) => !present(position);
    }
    const pattern = this.patternOf(condition);
    if (pattern) {
      const { values, text } = pattern;
      return (position) => holdsPattern(values[position]!, pattern.operator, text);
    }
    const operands = this.operands(condition);
    // Code-unit order is code-point order unless a surrogate is among the values or the operands.
    const byUnits = this.unitOrdered(field) && !operands.some((operand) => SURROGATE.test(String(operand)));
    const test = valueTest(operator, operands, byUnits ? compareUnits : compareValues);
    // Each value read where it is kept: no array made per notice tested.
    const stored = this.stored(field);
    if (stored.list) {
      const at = stored.at;
      return (position) => at(position).some(test);
    }
    const at = stored.at;
    return (position) => {
      const value = at(position);
      return value !== null && test(value);
    };
  }

  /**
   * A pattern condition (`STARTS_WITH`, `CONTAINS`, `ENDS_WITH`) as what its tests read: the
   * field's values by position (text, or a list of texts), the operator and the lowered pattern;
   * undefined for any other condition. The tests of candidates go through `holdsPattern`, one
   * function for every field, where a test made per condition (`positionTest`) was a different
   * function each time, so that the engine dropped its compiled loop at each new kind of
   * condition: the first two or three tests after a start cost 0.5 to 1 ms, later ones 0.1.
   */
  private patternOf(condition: FilterCondition): PatternCondition | undefined {
    const { field, operator } = condition;
    if (!isPatternOperator(operator)) return undefined;
    const kind = NOTICE_FIELDS[field];
    if (kind === "timestamp") return undefined;
    const values: ReadonlyArray<TextValues> =
      kind === "date"
        ? this.dates
        : isList(field)
          ? this.lists[field]
          : this.scalars[field as ScalarTextField];
    return { values, operator, text: String(this.operands(condition)[0]) };
  }

  /** Whether the notice at a position has a value in a field (a list: at least one). */
  private presence(field: NoticeFieldName): (position: number) => boolean {
    const stored = this.stored(field);
    if (stored.list) {
      const at = stored.at;
      return (position) => at(position).length > 0;
    }
    const at = stored.at;
    return (position) => at(position) !== null;
  }

  /**
   * A condition's operands as its field compares them: moments as numbers, dates as their
   * YYYY-MM-DD text (which no case folding changes), text as the database lowers it.
   */
  private operands(condition: FilterCondition): IndexedValue[] {
    const kind = NOTICE_FIELDS[condition.field];
    return condition.values.map((value) =>
      kind === "timestamp" ? Number(value) : kind === "date" ? String(value) : this.lower(String(value)),
    );
  }

  /**
   * The records satisfying a condition, from the field's index, for the operators an index answers
   * (equality, IN, their negations as the runs between, IS NOT NULL, the patterns, and where the
   * order is code-point order, ranges); undefined for the others. A record may be listed more than
   * once.
   */
  private indexed(condition: FilterCondition, operands: readonly IndexedValue[]): Int32Array[] | undefined {
    const { field, operator } = condition;
    const kind = NOTICE_FIELDS[field];
    const ordered = kind === "timestamp" || kind === "date" || this.rules.binaryCollation;
    const [first, second] = operands as [IndexedValue, IndexedValue];
    const present = (records: Int32Array | undefined) => (records ? [records] : []);
    switch (operator) {
      case "=":
        return present(this.index(field).equal(first));
      case "IN":
        return operands.flatMap((operand) => present(this.index(field).equal(operand)));
      case "<>":
      case "NOT IN":
        return this.index(field).except(operands);
      case "IS NOT NULL":
        return [this.index(field).all()];
      case "BETWEEN":
        return ordered ? [this.index(field).between(first, true, second, true)] : undefined;
      case "NOT BETWEEN":
        return ordered
          ? [
              this.index(field).between(undefined, false, first, false),
              this.index(field).between(second, false, undefined, false),
            ]
          : undefined;
      case ">":
      case ">=":
        return ordered ? [this.index(field).between(first, operator === ">=", undefined, false)] : undefined;
      case "<":
      case "<=":
        return ordered ? [this.index(field).between(undefined, false, first, operator === "<=")] : undefined;
      case "STARTS_WITH":
        return [this.index(field).startingWith(String(first))];
      case "ENDS_WITH":
        return [this.index(field, true).endingWith(String(first))];
      case "CONTAINS": {
        const pattern = String(first);
        const found = this.containing(field, pattern);
        if (found) return [found];
        // The records holding a three-character pattern's one sequence are exactly its matches.
        const records = pattern.length === 3 ? this.candidates(field, operator, pattern) : undefined;
        return records ? [records] : undefined;
      }
      default:
        return undefined;
    }
  }

  /**
   * The records of a field's joined values holding `pattern` (`JoinedValues.containing`), kept as a
   * tested condition's matches are, from the second request on: the search reads the whole text.
   * None for a pattern of three characters or more on a field with a trigram index, whose
   * candidates (`candidates`) cost less.
   */
  private containing(field: NoticeFieldName, pattern: string): Int32Array | undefined {
    const joined = this.joined.get(field);
    if (joined === undefined || hasTrigramCandidates(field, pattern)) return undefined;
    const key = `joined\u0000${field}\u0000${pattern}`;
    const kept = this.conditionMatches.get(key, this.version);
    if (kept) return kept;
    const found = joined.containing(pattern);
    if (found && this.asked.askedBefore(key))
      this.conditionMatches.set(key, found, this.version, 64 + 4 * found.length);
    return found;
  }

  /** A field's values at a position, as its conditions compare them: none when absent. */
  private valuesOf(field: NoticeFieldName): (position: number) => readonly IndexedValue[] {
    const stored = this.stored(field);
    if (stored.list) return stored.at;
    const at = stored.at;
    return (position) => {
      const value = at(position);
      return value === null ? [] : [value];
    };
  }

  /**
   * Where a field's values are kept, as its conditions compare them: a value or null per notice
   * (moments as numbers, dates as text, text lowered), or a list per notice.
   */
  private stored(field: NoticeFieldName): StoredValues {
    switch (field) {
      case "created":
      case "updated": {
        const times = field === "created" ? this.createdAt : this.updatedAt;
        return { list: false, at: (position) => times[position]! };
      }
      case "date": {
        const dates = this.dates;
        return { list: false, at: (position) => dates[position] ?? null };
      }
      case "acquired-entities":
      case "tags": {
        const lists = this.lists[field];
        return { list: true, at: (position) => lists[position]! };
      }
      default: {
        const scalars = this.scalars[field];
        return { list: false, at: (position) => scalars[position] ?? null };
      }
    }
  }

  /**
   * A field's index of values (with `backwards`, ordered from their ends, for ENDS_WITH), built on
   * first use.
   */
  private index(field: NoticeFieldName, backwards = false): FieldIndex {
    const name = backwards ? `${field}:backwards` : field;
    let index = this.indexes.get(name);
    if (index === undefined) {
      const values = this.valuesOf(field);
      index = backwards
        ? new FieldIndex(values, this.size, compareFromEnd)
        : new FieldIndex(
            values,
            this.size,
            compareValues,
            this.unitOrdered(field) ? compareUnits : compareValues,
          );
      this.indexes.set(name, index);
    }
    return index;
  }

  /**
   * Whether no value of a field holds a surrogate, so that code-unit order (the engine's own string
   * comparison, several times faster than `compareCodePoints`) is its code-point order.
   */
  private unitOrdered(field: NoticeFieldName): boolean {
    let known = this.withoutSurrogates.get(field);
    if (known === undefined) {
      const values = this.valuesOf(field);
      known = true;
      for (let position = 0; position < this.size && known; position++)
        for (const value of values(position))
          if (typeof value === "string" && SURROGATE.test(value)) known = false;
      this.withoutSurrogates.set(field, known);
    }
    return known;
  }

  /**
   * The notices that may satisfy a pattern condition, from the field's trigram index
   * (`TRIGRAM_FIELDS` only). An index per field would cost megabytes each (one record a distinct
   * sequence of each value); another text field's `CONTAINS` searches its joined values
   * (`JoinedValues`), and its `STARTS_WITH` and `ENDS_WITH` use its indexes.
   */
  private candidates(field: NoticeFieldName, operator: string, pattern: string | undefined) {
    if (pattern === undefined || !isPatternOperator(operator) || !hasTrigramCandidates(field, pattern))
      return undefined;
    return this.trigrams(field).candidates(pattern);
  }

  /** A field's index of three-character sequences, built on first use. */
  private trigrams(field: NoticeFieldName): TrigramIndex {
    let index = this.grams.get(field);
    if (index === undefined) {
      const values = this.valuesOf(field);
      index = new TrigramIndex((position) => values(position).map(String), this.size);
      this.grams.set(field, index);
    }
    return index;
  }

  /**
   * The positions of a page: the `offset`-th to the `offset + limit - 1`-th notice of `matches`
   * (every notice when undefined) in the order of `sort` (empty: newest created first), ties broken
   * by id. The matches' places in the order are set in a bitset (`placeBits`), a bit a notice, and
   * the page read off it, a 32-bit word's count at a time up to the offset: no sort and no pass
   * over every notice, whatever the matches' number or the offset.
   */
  page(matches: Matches | undefined, sort: readonly SortKey[], offset: number, limit: number): number[] {
    const total = matches === undefined ? this.size : matches.count;
    const end = Math.min(total, offset + limit);
    if (offset >= end) return [];
    const sorted = this.order(sort);
    const { name, order } = sorted;
    if (matches === undefined) return Array.from(order.subarray(offset, end));
    const kept = matches.places.get(name);
    if (kept) return Array.from(kept.subarray(offset, end), (place) => order[place]!);
    const bits = placeBits(matches.positions, placesIn(sorted), this.size);
    if (matches.walked.has(name)) {
      // A second page of these matches in this order: their places are kept for the next ones.
      const places = placesBetween(bits, 0, total);
      matches.places.set(name, places);
      return Array.from(places.subarray(offset, end), (place) => order[place]!);
    }
    matches.walked.add(name);
    return Array.from(placesBetween(bits, offset, end), (place) => order[place]!);
  }

  /** The permutation of the notices in a sort's order, kept per snapshot. */
  private order(sort: readonly SortKey[]): SortOrder {
    const keys = sortKeys(sort);
    const name = keys.map((key) => `${key.field}:${key.direction}`).join(",");
    const known = this.orders.get(name);
    if (known) return known;
    // Ties broken by id: the positions in id order (made once), then sorted stably by each key from
    // the last to the first, each a counting sort of the key's ranks (28,000 notices: about 0.1 ms
    // a key, where a comparison sort took 5 to 10 ms).
    // Keys after one whose values are all distinct (an id, a title) decide no tie: not sorted by.
    this.idOrder ??= sortedByRanks(identity(this.size), this.ranksOf("id"), false);
    let order = this.idOrder;
    const deciding = keys.findIndex((key) => this.distinct(this.ranksOf(key.field)));
    for (let at = deciding === -1 ? keys.length - 1 : deciding; at >= 0; at--)
      order = sortedByRanks(order, this.ranksOf(keys[at]!.field), keys[at]!.direction === "DESC");
    if (this.orders.size >= ORDERS_KEPT) this.orders.delete(this.orders.keys().next().value!);
    const kept: SortOrder = { name, order };
    this.orders.set(name, kept);
    return kept;
  }

  /** Whether no two notices share a rank: ranks 0 to size - 1, each once. */
  private distinct(ranks: FieldRanks): boolean {
    let known = this.distinctRanks.get(ranks);
    if (known === undefined) {
      const seen = new Uint8Array(this.size);
      known = ranks.length === this.size;
      for (let at = 0; at < ranks.length && known; at++) {
        const rank = ranks[at]!;
        if (rank >= this.size || seen[rank] === 1) known = false;
        else seen[rank] = 1;
      }
      this.distinctRanks.set(ranks, known);
    }
    return known;
  }

  /**
   * A field's ranks: from the database when its collation decides, else computed here in code-point
   * order with absent values last, as the database orders them.
   */
  private ranksOf(field: NoticeFieldName): FieldRanks {
    const given = this.rules.ranks?.get(field);
    if (given) return given;
    let ranks = this.ranks.get(field);
    if (ranks) return ranks;
    // A list sorts by its first value; absent values sort last.
    const stored = this.stored(field);
    const keys = Array.from({ length: this.size }, (_, position) =>
      stored.list ? (stored.at(position)[0] ?? null) : stored.at(position),
    );
    const order = this.unitOrdered(field) ? compareUnits : compareValues;
    const compare = (a: number, b: number) => {
      const left = keys[a]!;
      const right = keys[b]!;
      if (left === right) return 0;
      if (left === null) return 1;
      if (right === null) return -1;
      return order(left, right);
    };
    const positions = identity(this.size).sort(compare);
    ranks = new Int32Array(this.size);
    let rank = 0;
    for (let index = 0; index < positions.length; index++) {
      if (index > 0 && compare(positions[index - 1]!, positions[index]!) !== 0) rank++;
      ranks[positions[index]!] = rank;
    }
    this.ranks.set(field, ranks);
    return ranks;
  }
}

/** How the database lowers text and, when it does not order text by code point, its orders. */
export interface TextRules {
  lower: (text: string) => string;
  /** Whether the database orders text by code point (SQLite, PostgreSQL's C collation). */
  binaryCollation: boolean;
  /** The database's ranks of each text and list field, when `binaryCollation` is false. */
  ranks?: ReadonlyMap<NoticeFieldName, FieldRanks>;
}

/** The keys a sort orders by; none means newest created first. */
/**
 * A request's share of the event loop: `yieldIfSpent` gives the loop back (to I/O and other
 * requests) once `SLICE_MS` have passed since the last time it did.
 */
class TurnShare {
  private since = performance.now();

  async yieldIfSpent(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/** How long a filter's walk holds the event loop at most before giving it back, in milliseconds. */
const SLICE_MS = 2;

function sortKeys(sort: readonly SortKey[]): readonly SortKey[] {
  return sort.length > 0 ? sort : [{ field: "created", direction: "DESC" }];
}

/** Whether a pattern on `field` has candidates from a trigram index: the field has one, and the pattern a sequence. */
function hasTrigramCandidates(field: NoticeFieldName, pattern: string): boolean {
  return TRIGRAM_FIELDS.has(field) && pattern.length >= 3;
}

/** One end of a range: its value, and whether the value itself is in the range. */
interface Bound {
  readonly value: IndexedValue;
  readonly inclusive: boolean;
}

/**
 * The tighter of two lower bounds (`direction` 1: the greater value) or upper bounds (-1: the
 * smaller); at equal values, the exclusive one.
 */
function tighter(bound: Bound | undefined, other: Bound, direction: 1 | -1): Bound {
  if (bound === undefined) return other;
  const order = compareValues(other.value, bound.value) * direction;
  return order > 0 || (order === 0 && !other.inclusive) ? other : bound;
}

/** A notice's values of a text field: one (or none), or a list field's. */
type TextValues = string | null | readonly string[];

/** A pattern condition as its tests read it (`NoticeSnapshot.patternOf`). */
interface PatternCondition {
  /** The field's values, by position. */
  readonly values: ReadonlyArray<TextValues>;
  readonly operator: PatternOperator;
  /** The pattern, lowered as the values are. */
  readonly text: string;
}

/**
 * The positions among `candidates` (every notice when undefined) whose values hold the pattern.
 * Apart from the tests of other conditions, so that what the engine compiles here is never dropped
 * for another kind of test.
 */
function patternMatches(
  { values, operator, text }: PatternCondition,
  candidates: Int32Array | undefined,
): Int32Array {
  const found: number[] = [];
  if (candidates) {
    for (let at = 0; at < candidates.length; at++)
      if (holdsPattern(values[candidates[at]!]!, operator, text)) found.push(candidates[at]!);
  } else
    for (let position = 0; position < values.length; position++)
      if (holdsPattern(values[position]!, operator, text)) found.push(position);
  return Int32Array.from(found);
}

/** Sets `members[position]` to 1 for the positions among `candidates` (every notice when undefined) whose values hold the pattern. */
function addPatternMatches(
  members: Uint8Array,
  { values, operator, text }: PatternCondition,
  candidates: Int32Array | undefined,
): void {
  if (candidates) {
    for (let at = 0; at < candidates.length; at++) {
      const position = candidates[at]!;
      if (members[position] === 0 && holdsPattern(values[position]!, operator, text)) members[position] = 1;
    }
  } else
    for (let position = 0; position < values.length; position++)
      if (members[position] === 0 && holdsPattern(values[position]!, operator, text)) members[position] = 1;
}

/** Whether `value` (or one of a list's values) holds `pattern` as `operator` asks. */
function holdsPattern(value: TextValues, operator: PatternOperator, pattern: string): boolean {
  if (value === null) return false;
  if (typeof value === "string") return patternIn(value, operator, pattern);
  for (let at = 0; at < value.length; at++) if (patternIn(value[at]!, operator, pattern)) return true;
  return false;
}

function patternIn(value: string, operator: PatternOperator, pattern: string): boolean {
  return operator === "CONTAINS"
    ? value.includes(pattern)
    : operator === "STARTS_WITH"
      ? value.startsWith(pattern)
      : value.endsWith(pattern);
}

/** A condition's key among a snapshot's kept condition matches. */
function conditionKey(condition: FilterCondition): string {
  return `${condition.field}\u0000${condition.operator}\u0000${condition.values.join("\u0001")}`;
}

/** The records of several lists, each once. */
function unique(lists: readonly Int32Array[], size: number): Int32Array {
  const seen = new Uint8Array(size);
  const result = new Int32Array(
    Math.min(
      size,
      lists.reduce((sum, records) => sum + records.length, 0),
    ),
  );
  let count = 0;
  for (const records of lists)
    for (let at = 0; at < records.length; at++) {
      const record = records[at]!;
      if (seen[record] === 1) continue;
      seen[record] = 1;
      result[count++] = record;
    }
  return result.slice(0, count);
}

/** 0 to `size - 1`, in order. */
function identity(size: number): Int32Array {
  const positions = new Int32Array(size);
  for (let position = 0; position < size; position++) positions[position] = position;
  return positions;
}

/**
 * `order` sorted stably by `ranks` (ascending, or descending with `descending`): a counting sort,
 * since ranks are small whole numbers (at most one a notice).
 */
function sortedByRanks(order: Int32Array, ranks: FieldRanks, descending: boolean): Int32Array {
  let highest = 0;
  for (let at = 0; at < ranks.length; at++) if (ranks[at]! > highest) highest = ranks[at]!;
  const starts = new Int32Array(highest + 2);
  // A position's key is `base + sign * rank`: its rank, or with `descending` the highest less it.
  const base = descending ? highest : 0;
  const sign = descending ? -1 : 1;
  for (let at = 0; at < order.length; at++) starts[base + sign * ranks[order[at]!]! + 1]!++;
  for (let key = 1; key < starts.length; key++) starts[key]! += starts[key - 1]!;
  const sorted = new Int32Array(order.length);
  for (let at = 0; at < order.length; at++) {
    const position = order[at]!;
    sorted[starts[base + sign * ranks[position]!]!++] = position;
  }
  return sorted;
}

/** Each position's index in a sort's order, made once per order. */
function placesIn(sorted: SortOrder): Int32Array {
  if (sorted.rankOf === undefined) {
    const { order } = sorted;
    const rankOf = new Int32Array(order.length);
    for (let index = 0; index < order.length; index++) rankOf[order[index]!] = index;
    sorted.rankOf = rankOf;
  }
  return sorted.rankOf;
}

/** Any UTF-16 surrogate, half of a code point above U+FFFF. */
const SURROGATE = /[\ud800-\udfff]/;

/** Numbers by value, text by UTF-16 code units: `compareValues` where no text holds a surrogate. */
function compareUnits(left: IndexedValue, right: IndexedValue): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function isList(field: NoticeFieldName): field is ListField {
  return field === "acquired-entities" || field === "tags";
}

/** Whether a field's values compare as text in the database's collation. */
function isTextual(field: NoticeFieldName): boolean {
  const kind = NOTICE_FIELDS[field];
  return kind === "text" || kind === "id" || kind === "array";
}

/** Lowers ASCII letters only, as SQLite's LIKE folds case. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Numbers by value, text as UTF-8 bytes compare (SQLite's and the C locale's order): by code point. */
function compareValues(left: IndexedValue, right: IndexedValue): number {
  if (typeof left === "number" && typeof right === "number") return left < right ? -1 : left > right ? 1 : 0;
  return compareCodePoints(String(left), String(right));
}

/**
 * Code-point order. UTF-16 code units give it everywhere but between a surrogate pair and a unit
 * from U+E000 up, so only strings holding a surrogate are compared code point by code point.
 */
export function compareCodePoints(left: string, right: string): number {
  if (left === right) return 0;
  const length = Math.min(left.length, right.length);
  for (let at = 0; at < length; at++) {
    let a = left.charCodeAt(at);
    let b = right.charCodeAt(at);
    if (a === b) continue;
    // UTF-16 units order code points except where a surrogate (D800-DFFF, half of a code point
    // above FFFF) meets a unit from E000 up: move the surrogates above them.
    if (a >= 0xd800 && b >= 0xd800) {
      a = a >= 0xe000 ? a - 0x800 : a + 0x2000;
      b = b >= 0xe000 ? b - 0x800 : b + 0x2000;
    }
    return a < b ? -1 : 1;
  }
  return left.length < right.length ? -1 : left.length > right.length ? 1 : 0;
}

/**
 * One value's test for an operator with its (lowered) operands; ordering operators compare with
 * `compare`. IS NULL, IS NOT NULL and the pattern operators (`holdsPattern`) are decided by the caller.
 */
function valueTest<Value extends string | number>(
  operator: FilterCondition["operator"],
  operands: readonly Value[],
  compare: (left: Value, right: Value) => number,
): (value: Value) => boolean {
  const [first, second] = operands as [Value, Value];
  switch (operator) {
    case "=":
      return (value) => value === first;
    case "<>":
      return (value) => value !== first;
    case ">":
      return (value) => compare(value, first) > 0;
    case ">=":
      return (value) => compare(value, first) >= 0;
    case "<":
      return (value) => compare(value, first) < 0;
    case "<=":
      return (value) => compare(value, first) <= 0;
    case "BETWEEN":
      return (value) => compare(value, first) >= 0 && compare(value, second) <= 0;
    case "NOT BETWEEN":
      return (value) => compare(value, first) < 0 || compare(value, second) > 0;
    case "IN": {
      const set = new Set<Value>(operands);
      return (value) => set.has(value);
    }
    case "NOT IN": {
      const set = new Set<Value>(operands);
      return (value) => !set.has(value);
    }
    default:
      return () => false;
  }
}

// The passes over every notice live outside the async `evaluate`, where V8 optimizes them as loops.

/** A bitset of `size` bits with the bit of each of `positions`' place in an order (`rankOf`) set. */
function placeBits(positions: Int32Array, rankOf: Int32Array, size: number): Uint32Array {
  const bits = new Uint32Array((size + 31) >>> 5);
  for (let at = 0; at < positions.length; at++) {
    const place = rankOf[positions[at]!]!;
    bits[place >>> 5]! |= 1 << (place & 31);
  }
  return bits;
}

/**
 * The places whose bits are set, ascending, from the `from`-th set bit up to (not including) the
 * `to`-th: the words before the `from`-th are skipped by their counts.
 */
function placesBetween(bits: Uint32Array, from: number, to: number): Int32Array {
  const places = new Int32Array(Math.max(0, to - from));
  let seen = 0;
  let word = 0;
  for (; word < bits.length; word++) {
    const count = bitCount(bits[word]!);
    if (seen + count > from) break;
    seen += count;
  }
  let at = 0;
  for (; word < bits.length && seen < to; word++) {
    let remaining = bits[word]!;
    while (remaining !== 0 && seen < to) {
      const lowest = remaining & -remaining;
      remaining ^= lowest;
      if (seen >= from) places[at++] = (word << 5) | (31 - Math.clz32(lowest));
      seen++;
    }
  }
  // Fewer set bits than asked for (matches listed twice) would leave zeros at the end: not places.
  return at === places.length ? places : places.subarray(0, at);
}

/** The number of bits set in a 32-bit word. */
function bitCount(word: number): number {
  let count = word - ((word >>> 1) & 0x55555555);
  count = (count & 0x33333333) + ((count >>> 2) & 0x33333333);
  return Math.imul((count + (count >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * The positions whose member is 1, in order. Members are 0 or 1, so a 32-bit word of four members
 * holds as many bits as members: words are counted and skipped whole, four members at a time.
 */
function positionsOf(members: Uint8Array): Int32Array {
  const words = new Uint32Array(
    members.buffer,
    members.byteOffset,
    members.byteOffset % 4 === 0 ? members.length >>> 2 : 0,
  );
  const rest = words.length << 2;
  let count = 0;
  for (let word = 0; word < words.length; word++) {
    const value = words[word]!;
    if (value !== 0) count += bitCount(value);
  }
  for (let position = rest; position < members.length; position++) count += members[position]!;
  const positions = new Int32Array(count);
  let at = 0;
  for (let word = 0; word < words.length; word++) {
    if (words[word] === 0) continue;
    for (let position = word << 2, end = position + 4; position < end; position++)
      if (members[position] === 1) positions[at++] = position;
  }
  for (let position = rest; position < members.length; position++)
    if (members[position] === 1) positions[at++] = position;
  return positions;
}

/** `result &= part`, position by position, over the first `size`. */
function intersectInto(result: Uint8Array, part: Uint8Array, size: number): void {
  for (let position = 0; position < size; position++) result[position]! &= part[position]!;
}

/** `result |= part`, position by position, over the first `size`. */
function uniteInto(result: Uint8Array, part: Uint8Array, size: number): void {
  for (let position = 0; position < size; position++) result[position]! |= part[position]!;
}
