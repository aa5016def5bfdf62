import { sql, type Transaction } from "kysely";
import { NOTICES } from "../domain/collections.js";
import { type CountResult, selectGroups } from "../domain/count-options.js";
import type { Notice } from "../domain/notice.js";
import type { NoticeCountQuery } from "../domain/notice-count-query.js";
import { decodeQuery, noticeDocument } from "../domain/notice-envelope.js";
import { NOTICE_FIELDS, type NoticeFieldName } from "../domain/notice-fields.js";
import { isPatternOperator, OPERATORS } from "../domain/notice-filter-node.js";
import { type FilterCondition, type NoticeQuery, parseNoticeQuery } from "../domain/notice-query.js";
import { formatTimestamp } from "../domain/time.js";
import { CollectionVersion } from "./collection-version.js";
import type { Database } from "./database.js";
import type { NoticeListRequest, NoticePage, NoticeReader } from "./notice-reader.js";
import { asciiLower, type FieldRanks, NoticeSnapshot, type TextRules } from "./notice-snapshot.js";
import { compileNoticeFilter, noticeSortExpressions } from "./notice-sql.js";
import { PageBufferPool } from "./page-buffer-pool.js";
import type { NoticeTable, Schema } from "./schema.js";
import { TurnGate } from "./turn-gate.js";

/** Notices read per statement when a snapshot is read. */
const SNAPSHOT_BATCH_ROWS = 5_000;

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

/** Pages of the default order `warm` writes and discards, `WARM_PAGE_STEP` notices apart. */
const WARM_PAGES = 40;
const WARM_PAGE_STEP = 500;

/**
 * Requests `warm` answers and discards after those pages, each a few times, so that the engine has
 * compiled each kind of filter, sort and page before a client's first one of its kind (run cold,
 * such a first request cost 3 to 15 ms where a later one costs under 1): every operator on a field
 * of each kind, groups, plain parameters, sorts and a fieldset.
 */
const WARM_QUERIES = [
  ...(
    [
      ["title", "inc", "zeta"],
      ["acquired-entities", "l.p.", "inc."],
      ["date", "2010-01-01", "2012-06-30"],
      ["created", "2014-01-01T00:00:00Z", "2015-01-01T00:00:00Z"],
    ] as const
  ).flatMap(([field, first, second]) =>
    OPERATORS.filter((operator) => field !== "created" || !isPatternOperator(operator)).map((operator) => {
      const condition = `filter[w][condition][path]=${field}&filter[w][condition][operator]=${encodeURIComponent(operator)}`;
      if (operator.startsWith("IS ")) return condition;
      if (operator.includes("BETWEEN") || operator.endsWith("IN"))
        return `${condition}&filter[w][condition][value][]=${first}&filter[w][condition][value][]=${second}`;
      return `${condition}&filter[w][condition][value]=${first}`;
    }),
  ),
  "title=capital&keywords=%22fund%20iii%22",
  "filter[o][group][conjunction]=OR&filter[x][condition][path]=title&filter[x][condition][operator]=CONTAINS&filter[x][condition][value]=inc&filter[x][condition][memberOf]=o&filter[y][condition][path]=acquiring-party&filter[y][condition][operator]=STARTS_WITH&filter[y][condition][value]=a&filter[y][condition][memberOf]=o",
  // An AND of an OR group (one member a list field's CONTAINS) and a range; a group in a group.
  "filter[o][group][conjunction]=OR&filter[x][condition][path]=acquiring-party&filter[x][condition][operator]=STARTS_WITH&filter[x][condition][value]=b&filter[x][condition][memberOf]=o&filter[y][condition][path]=acquired-entities&filter[y][condition][operator]=CONTAINS&filter[y][condition][value]=ent&filter[y][condition][memberOf]=o&filter[d][condition][path]=date&filter[d][condition][operator]=BETWEEN&filter[d][condition][value][]=2005-01-01&filter[d][condition][value][]=2015-12-31",
  "filter[o][group][conjunction]=OR&filter[i][group][conjunction]=AND&filter[i][group][memberOf]=o&filter[x][condition][path]=acquired-party&filter[x][condition][operator]=CONTAINS&filter[x][condition][value]=fund&filter[x][condition][memberOf]=i&filter[y][condition][path]=created&filter[y][condition][operator]=%3E&filter[y][condition][value]=1400000000&filter[y][condition][memberOf]=i&filter[z][condition][path]=tags&filter[z][condition][operator]=IS%20NOT%20NULL&filter[z][condition][memberOf]=o",
  "sort=title&page[offset]=1000",
  "sort=-date,acquiring-party&page[offset]=20000",
  "sort_by=changed&sort_order=ASC",
  "fields[early_termination_notice]=title,date&page[offset]=50",
];
const WARM_ROUNDS = 3;

/**
 * Reads notices. The whole collection (about 28,000 notices, the size of the real one) is read
 * once per version into a `NoticeSnapshot` held in memory, which answers every filter, sort and
 * page without the database: a list request costs microseconds whatever its filter, and the
 * snapshot is read again, in one transaction, when the collection's version changes (another
 * process's import within the version's poll interval, this process's at once).
 */
export class NoticeStore implements NoticeReader {
  readonly collection = NOTICES;
  /** Pages are filtered and written on the event loop: one at a time, each on a turn of its own. */
  private readonly pages = new TurnGate();
  private snapshot: NoticeSnapshot | undefined;
  private loading: Promise<NoticeSnapshot> | undefined;
  private rules: Promise<Omit<TextRules, "ranks">> | undefined;

  /** The notices' change detection, shared with this process's other caches of them. */
  readonly version: CollectionVersion;
  private readonly afterPreparations: (() => void) | undefined;
  /** Memory for list pages, used again once they are sent (`release`, `recycle`). */
  private readonly pageMemory = new PageBufferPool();

  /**
   * `afterPreparations`: called through the page gate once a new snapshot's preparations are built
   * (the notice thread collects its heap there: `collectGarbage`).
   */
  constructor(
    private readonly database: Database,
    { afterPreparations }: { afterPreparations?: () => void } = {},
  ) {
    this.version = new CollectionVersion(database, NOTICES);
    this.afterPreparations = afterPreparations;
  }

  listBytes(request: NoticeListRequest, atVersion: number): Promise<Buffer> {
    // Decoded and parsed in its turn: a request waiting for the gate holds its query, not its parse.
    return this.pages.run(async () => {
      const pairs = decodeQuery(request.rawQuery).filter(([name]) => name !== "api_key");
      const query = parseNoticeQuery(
        request.parameters === undefined ? pairs : decodeQuery(request.parameters),
      );
      const { snapshot, positions, total } = await this.found(query, atVersion);
      const { collectionUrl, path } = request;
      const links = { collectionUrl, path, pairs, query, paged: true };
      if (query.fields !== undefined) {
        // A fieldset is rare: its page is written through objects.
        const records = positions.map((position) => snapshot.notice(position));
        const text = JSON.stringify(noticeDocument(records, total, links));
        const page = this.pageMemory.take(Buffer.byteLength(text));
        page.write(text);
        return page;
      }
      return snapshot.resources.document(positions, total, links, this.take);
    });
  }

  private readonly take = (size: number) => this.pageMemory.take(size);

  release(body: Buffer): void {
    if (body.byteOffset === 0) this.recycle(body.buffer as ArrayBuffer);
  }

  /** Takes the memory of a page released elsewhere (by the event loop, of the notice thread's pages) back. */
  recycle(memory: ArrayBuffer): void {
    this.pageMemory.give(memory);
  }

  /** A page of the notices the query matches, from the snapshot of `atVersion` or a newer one. */
  async list(query: NoticeQuery, atVersion = 0): Promise<NoticePage> {
    const { snapshot, positions, total } = await this.found(query, atVersion);
    return { total, records: positions.map((position) => snapshot.notice(position)) };
  }

  /** The page's positions in the snapshot it was found in, and the filter's total. */
  private async found(query: NoticeQuery, atVersion: number) {
    let snapshot = await this.current({ atLeast: atVersion });
    let resolved = await this.resolveInDatabase(snapshot, query);
    if (resolved === undefined) {
      // The collection changed between the snapshot and the database's answer: read both again.
      snapshot = await this.current({ after: snapshot.version });
      resolved = (await this.resolveInDatabase(snapshot, query)) ?? new Map();
    }
    const matches = await snapshot.matching(query.filter, resolved);
    const positions = snapshot.page(matches, query.sort, query.offset, query.limit);
    const total = matches === undefined ? snapshot.size : matches.count;
    return { snapshot, positions, total };
  }

  /**
   * Every notice the query matches, in its order, from one snapshot (its offset and limit are
   * ignored): the notices are already held in memory, so an export holds references only.
   */
  export(query: NoticeQuery): Promise<NoticePage> {
    return this.list({ ...query, offset: 0, limit: Number.MAX_SAFE_INTEGER });
  }

  /**
   * Notices matching the query's filter counted by the year (`YYYY`) or month (`YYYY-MM`) of their
   * `date`, those without a date under null (`GET /v0/hsr-early-termination-notices/counts`).
   */
  async countGroups(query: NoticeCountQuery): Promise<CountResult> {
    let snapshot = await this.current();
    const listQuery = { filter: query.filter, sort: [], offset: 0, limit: 0, fields: undefined };
    let resolved = await this.resolveInDatabase(snapshot, listQuery);
    if (resolved === undefined) {
      snapshot = await this.current({ after: snapshot.version });
      resolved = (await this.resolveInDatabase(snapshot, listQuery)) ?? new Map();
    }
    const matches = await snapshot.matching(query.filter, resolved);
    const length = query.by[0] === "year" ? 4 : 7;
    const counts = new Map<string | null, number>();
    const tally = (position: number) => {
      const date = snapshot.dateOf(position);
      const key = date === null || date === undefined ? null : date.slice(0, length);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
    if (matches === undefined) for (let position = 0; position < snapshot.size; position++) tally(position);
    else for (const position of matches.positions) tally(position);
    const groups = [...counts].map(([key, count]) => ({ values: [key], count }));
    return selectGroups(groups, query);
  }

  /** The notice with this id (ids are stored lowered), or undefined. */
  async findById(id: string): Promise<Notice | undefined> {
    const snapshot = await this.current();
    const position = snapshot.position(id);
    return position === undefined ? undefined : snapshot.notice(position);
  }

  /**
   * Reads the snapshot of the current version now, so that the first request does not wait for it,
   * with what its common requests use built (`NoticeSnapshot.preparations`), and writes a few
   * pages and requests of each kind (`WARM_QUERIES`) of it, discarded, so that the first requests
   * after a start do not run code before the engine has compiled it (the first pages cost 2 to 10
   * times a later one).
   */
  async warm(): Promise<void> {
    // Through the page gate, as requests are: the first page reads the snapshot, which queues its
    // preparations behind it, and every later page waits for them.
    const collectionUrl = `https://localhost${NOTICES.path}`;
    for (let page = 0; page < WARM_PAGES; page++) {
      const rawQuery = `page%5Boffset%5D=${page * WARM_PAGE_STEP}`;
      await this.listBytes({ rawQuery, collectionUrl, path: collectionUrl }, 0);
    }
    for (let round = 0; round < WARM_ROUNDS; round++)
      for (const rawQuery of WARM_QUERIES)
        await this.listBytes({ rawQuery, collectionUrl, path: collectionUrl }, 0);
  }

  /**
   * The snapshot of the collection's current version (or, with `after`, of a version newer than
   * that), read when this process holds none as new. Concurrent callers share one read.
   */
  private async current(options: { after?: number; atLeast?: number } = {}): Promise<NoticeSnapshot> {
    let { version } = await this.version.current({ fresh: options.after !== undefined });
    // A caller that saw a newer version than this reader did (another thread's reader of the same
    // process) reads the version again now rather than within its poll interval.
    if (options.atLeast !== undefined && version < options.atLeast)
      version = (await this.version.current({ fresh: true })).version;
    const wanted = Math.max(version, (options.after ?? -1) + 1, options.atLeast ?? 0);
    if (this.snapshot && this.snapshot.version >= wanted) return this.snapshot;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    const loaded = await this.loading;
    if (!this.snapshot || loaded.version > this.snapshot.version) {
      this.snapshot = loaded;
      // Built through the gate, one step a turn: requests that arrive meanwhile go between them.
      for (const step of loaded.preparations()) void this.pages.run(async () => step());
      const after = this.afterPreparations;
      if (after) void this.pages.run(async () => after());
    }
    return this.snapshot;
  }

  /** Every notice and its values, and the version they are at, in one read transaction. */
  private async load(): Promise<NoticeSnapshot> {
    this.rules ??= this.textRules();
    const rules = await this.rules;
    const read = async (trx: Transaction<Schema>) => {
      const versionRow = await trx
        .selectFrom("collection_updates")
        .select("version")
        .where("collection", "=", NOTICES.name)
        .executeTakeFirst();
      // In batches by id within the one transaction, so that no statement of the read meets the
      // statement budget on a loaded machine, however large the collection.
      const rows: NoticeRow[] = [];
      const values: Array<{ notice_id: string; field: string; value: string }> = [];
      for (let after: string | undefined; ; ) {
        let batchQuery = trx.selectFrom("notices").select(SELECTED).orderBy("id").limit(SNAPSHOT_BATCH_ROWS);
        if (after !== undefined) batchQuery = batchQuery.where("id", ">", after);
        const batch = await batchQuery.execute();
        if (batch.length === 0) break;
        for (const row of batch) rows.push(row);
        const batchValues = await trx
          .selectFrom("notice_values")
          .select(["notice_id", "field", "value"])
          .where(
            "notice_id",
            "in",
            batch.map((row) => row.id),
          )
          .orderBy("notice_id")
          .orderBy("field")
          .orderBy("position")
          .execute();
        for (const value of batchValues) values.push(value);
        if (batch.length < SNAPSHOT_BATCH_ROWS) break;
        after = batch[batch.length - 1]!.id;
      }
      const notices = withValues(rows, values);
      const ranks = rules.binaryCollation ? undefined : await databaseRanks(trx, notices);
      return new NoticeSnapshot(Number(versionRow?.version ?? 0), notices, { ...rules, ranks });
    };
    if (this.database.dialect === "postgres")
      return this.database.db.transaction().setIsolationLevel("repeatable read").execute(read);
    return this.database.db.transaction().execute(read);
  }

  /**
   * How this database lowers text (`lower()` folds ASCII only on SQLite and in PostgreSQL's C
   * locale, every letter in others) and whether it orders text by code point, asked once.
   */
  private async textRules(): Promise<Omit<TextRules, "ranks">> {
    const { rows } = await sql<{
      lowered: string;
      binary: number | boolean;
    }>`select lower(${"\u00C9A"}) as lowered, (${"B"} < ${"a"} and ${"a-c"} < ${"ab"}) as binary`.execute(
      this.database.db,
    );
    const row = rows[0]!;
    return {
      lower: row.lowered === "\u00C9a" ? asciiLower : (text) => text.toLowerCase(),
      binaryCollation: row.binary === 1 || row.binary === true,
    };
  }

  /**
   * The database's answer to the conditions it must decide (text compared in its collation), as
   * membership arrays of the snapshot; undefined when the collection has moved past the snapshot.
   */
  private async resolveInDatabase(
    snapshot: NoticeSnapshot,
    query: NoticeQuery,
  ): Promise<Map<FilterCondition, Uint8Array> | undefined> {
    const conditions = snapshot.conditionsForDatabase(query.filter);
    const resolved = new Map<FilterCondition, Uint8Array>();
    if (conditions.length === 0) return resolved;
    return this.database.db
      .transaction()
      .setIsolationLevel("repeatable read")
      .execute(async (trx) => {
        const row = await trx
          .selectFrom("collection_updates")
          .select("version")
          .where("collection", "=", NOTICES.name)
          .executeTakeFirst();
        if (Number(row?.version ?? 0) !== snapshot.version) return undefined;
        for (const condition of conditions) {
          const ids = await trx
            .selectFrom("notices")
            .select("notices.id")
            .where(compileNoticeFilter(condition, this.database.dialect))
            .execute();
          const members = new Uint8Array(snapshot.size);
          for (const { id } of ids) {
            const position = snapshot.position(id);
            if (position !== undefined) members[position] = 1;
          }
          resolved.set(condition, members);
        }
        return resolved;
      });
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
}

type NoticeRow = Pick<NoticeTable, (typeof SELECTED)[number]>;

/** Notices from their rows and their list values (ordered by notice, field and position). */
function withValues(
  rows: readonly NoticeRow[],
  values: ReadonlyArray<{ notice_id: string; field: string; value: string }>,
): Notice[] {
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

/**
 * The database's order of every field whose values it compares as text, as ranks of the notices'
 * positions (equal values share a rank), for a collation other than code-point order.
 */
async function databaseRanks(
  trx: Transaction<Schema>,
  notices: readonly Notice[],
): Promise<Map<NoticeFieldName, FieldRanks>> {
  const positionOf = new Map(notices.map((notice, position) => [notice.id, position]));
  const ranks = new Map<NoticeFieldName, FieldRanks>();
  for (const field of Object.keys(NOTICE_FIELDS) as NoticeFieldName[]) {
    const kind = NOTICE_FIELDS[field];
    if (kind !== "text" && kind !== "id" && kind !== "array") continue;
    const { absent, value } = noticeSortExpressions(field);
    let select = trx.selectFrom("notices").select(["notices.id", value.as("sort_value")]);
    if (absent) select = select.orderBy(absent);
    const rows = await select.orderBy(value).orderBy("notices.id").execute();
    const fieldRanks = new Int32Array(notices.length);
    let rank = 0;
    let previous: unknown = Symbol("none");
    for (const row of rows) {
      const sortValue = (row as { sort_value: unknown }).sort_value ?? null;
      if (sortValue !== previous) rank++;
      previous = sortValue;
      const position = positionOf.get(row.id);
      if (position !== undefined) fieldRanks[position] = rank;
    }
    ranks.set(field, fieldRanks);
  }
  return ranks;
}
