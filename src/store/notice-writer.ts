import { type Kysely, sql } from "kysely";
import { NOTICES } from "../domain/collections.js";
import { type Notice, noticeContentDigest } from "../domain/notice.js";
import { commitStatements, noteCommitted } from "./collection-commit.js";
import type { CommitOptions } from "./commit-options.js";
import { type Database, type IndexDefinition, WRITE_CACHE_KIB } from "./database.js";
import type { NoticeTable, NoticeValueTable, Schema } from "./schema.js";

export interface NoticeWriteResult {
  added: number;
  changed: number;
  unchanged: number;
}

/** The collection's tables, whose secondary indexes a load into an empty collection builds at its end. */
const NOTICE_TABLES = ["notices", "notice_values"] as const;

/** Rows per multi-row INSERT: well under both engines' limits on bound parameters. */
const ROWS_PER_INSERT = 200;

export interface NoticeWriteOptions extends CommitOptions {
  /**
   * Keep each notice's revision and update time exactly as given (a mirror copying an upstream):
   * a stored notice is replaced when its content, revision or update time differs.
   */
  asGiven?: boolean;
}

/** Where this transaction first met an id: the file's line of the notice it kept. */
interface ImportLineTable {
  id: string;
  line: number;
}

/**
 * Writes notices in one transaction per unit of work (one imported file, one mirrored page):
 * `begin`, any number of `write` calls, then `commit` (which reports the outcome) or `rollback`;
 * `close` releases the connection. A notice not yet stored is added as given; one whose content is
 * unchanged is left alone entirely; a changed one gets the next revision number (or the file's, if
 * higher) and a new update time: the file's, when it is later than the stored one, else
 * `nowSeconds` (with `asGiven`, the given ones). Memory does not grow with the notices written.
 */
export class NoticeWriter {
  private db: Kysely<Schema> | undefined;
  private release: (() => void) | undefined;
  private held: Promise<void> | undefined;
  private tracking = false;
  private restoreTempStore: number | undefined;
  private restoreCacheSize: number | undefined;
  /** The indexes dropped for a load into an empty collection, built again at `commit`. */
  private dropped: IndexDefinition[] = [];
  private result: NoticeWriteResult = { added: 0, changed: 0, unchanged: 0 };

  constructor(
    private readonly database: Database,
    private readonly nowSeconds: number,
    private readonly options: Pick<NoticeWriteOptions, "asGiven"> = {},
  ) {}

  /**
   * Opens the transaction. With `trackLines`, the writer also keeps, inside the transaction, the
   * line each id was first given on (see `claimLines`).
   */
  async begin(trackLines = false): Promise<void> {
    if (this.db) throw new Error("A write is already open");
    // One connection for the whole unit of work: Kysely lends it for as long as `held` is pending.
    const lent = new Promise<Kysely<Schema>>((resolve, reject) => {
      this.held = this.database.db
        .connection()
        .execute(
          (db) =>
            new Promise<void>((done) => {
              this.release = done;
              resolve(db);
            }),
        )
        .catch(reject);
    });
    const db = await lent;
    this.db = db;
    this.result = { added: 0, changed: 0, unchanged: 0 };
    this.tracking = trackLines;
    if (this.database.dialect === "sqlite") {
      // A small page cache while a file is written, as for complaints (see WRITE_CACHE_KIB there):
      // a load appends in the order of the file, and the connection's own cache returns at `close`.
      const rows = await sql<{ cache_size: number }>`pragma main.cache_size`.execute(db);
      this.restoreCacheSize = Number(rows.rows[0]?.cache_size ?? -2000);
      await sql.raw(`pragma main.cache_size = -${WRITE_CACHE_KIB}`).execute(db);
    }
    if (trackLines && this.database.dialect === "sqlite") {
      // The store keeps SQLite's temporary tables in memory (openDatabase); the ids of a file of
      // millions of notices must not be, so this connection's temporary tables go to a temporary
      // file (unlinked by SQLite as it opens it, so a killed import leaves nothing) with a small
      // cache, until `close` restores the setting. It cannot change inside a transaction.
      const rows = await sql<{ temp_store: number }>`pragma temp_store`.execute(db);
      this.restoreTempStore = Number(rows.rows[0]?.temp_store ?? 0);
      await sql.raw("pragma temp_store = FILE").execute(db);
      await sql.raw("pragma temp.cache_size = -8192").execute(db);
    }
    // IMMEDIATE: take SQLite's write lock at once, so a concurrent writer waits instead of failing.
    await sql.raw(this.database.dialect === "sqlite" ? "begin immediate" : "begin").execute(db);
    // Into an empty collection (a first import, the demo data, a mirror's first page): every index
    // built once at the end costs half what updating ten of them row by row does (100,000 notices:
    // 9 s against 20 s on SQLite). Dropped inside the transaction, so a failed or killed load leaves
    // them as they were.
    const empty = !(await db.selectFrom("notices").select("id").limit(1).executeTakeFirst());
    this.dropped = empty ? await this.database.secondaryIndexes(NOTICE_TABLES) : [];
    for (const index of this.dropped) await sql.raw(`drop index "${index.name}"`).execute(db);
    if (trackLines) {
      // A temporary table rather than a map in memory or a column of `notices`: it lives and dies
      // with the transaction (PostgreSQL drops it at commit or rollback; SQLite's is dropped before
      // commit and rolled back with the rest), is indexed by id, spills to disk like any table, and
      // remembers ids whose notice was left unchanged, which a marker on written rows could not.
      await sql
        .raw(
          this.database.dialect === "sqlite"
            ? "create temporary table notice_import_lines (id text primary key, line integer not null)"
            : "create temporary table notice_import_lines (id text primary key, line bigint not null) on commit drop",
        )
        .execute(db);
    }
  }

  /**
   * Records the line each id (distinct within the call) is given on in this transaction, and
   * returns, for the ids already given earlier in it, the line of that first time (those are not
   * recorded again). Only after `begin(true)`.
   */
  async claimLines(entries: readonly { id: string; line: number }[]): Promise<Map<string, number>> {
    const db = this.open("claimLines").withTables<{ notice_import_lines: ImportLineTable }>();
    if (!this.tracking) throw new Error("claimLines() needs begin(true)");
    const earlier = new Map<string, number>();
    for (let start = 0; start < entries.length; start += ROWS_PER_INSERT) {
      const chunk = entries.slice(start, start + ROWS_PER_INSERT);
      const stored = await db
        .selectFrom("notice_import_lines")
        .select(["id", "line"])
        .where(
          "id",
          "in",
          chunk.map((entry) => entry.id),
        )
        .execute();
      for (const row of stored) earlier.set(row.id, Number(row.line));
      const fresh = chunk.filter((entry) => !earlier.has(entry.id));
      if (fresh.length > 0)
        await db
          .insertInto("notice_import_lines")
          .values(fresh.map(({ id, line }) => ({ id, line })))
          .execute();
    }
    return earlier;
  }

  /** Writes notices (ids distinct within the call) in the open transaction. */
  async write(notices: readonly Notice[]): Promise<void> {
    const db = this.open("write");
    for (let start = 0; start < notices.length; start += ROWS_PER_INSERT) {
      await writeChunk(
        db,
        notices.slice(start, start + ROWS_PER_INSERT),
        this.nowSeconds,
        this.options,
        this.result,
      );
    }
  }

  /**
   * Commits and reports what was added, changed, unchanged. When notices were added or changed,
   * the collection's update time and version change in the same transaction (and this process's
   * readers see it at once), as does a mirror's mark if given.
   */
  async commit(options?: CommitOptions): Promise<NoticeWriteResult> {
    const db = this.open("commit");
    const changed = this.result.added + this.result.changed > 0;
    for (const index of this.dropped) await sql.raw(index.create).execute(db);
    this.dropped = [];
    for (const statement of commitStatements(this.database, NOTICES, changed, options))
      await db.executeQuery(statement);
    if (this.tracking && this.database.dialect === "sqlite")
      await sql.raw("drop table temp.notice_import_lines").execute(db);
    await sql.raw("commit").execute(db);
    noteCommitted(this.database, NOTICES, changed);
    this.tracking = false;
    return { ...this.result };
  }

  /** Undoes everything written since `begin`; harmless when nothing is open. */
  async rollback(): Promise<void> {
    if (!this.db) return;
    try {
      await sql.raw("rollback").execute(this.db);
    } catch {
      // No transaction open any more (it failed to begin, or already ended): nothing to undo.
    }
    this.tracking = false;
    this.dropped = [];
  }

  /** Releases the connection (rolling back first if a transaction is still open). */
  async close(): Promise<void> {
    const db = this.db;
    if (!db) return;
    if (this.restoreCacheSize !== undefined) {
      await sql.raw(`pragma main.cache_size = ${this.restoreCacheSize}`).execute(db);
      this.restoreCacheSize = undefined;
    }
    if (this.restoreTempStore !== undefined) {
      try {
        await sql.raw(`pragma temp_store = ${this.restoreTempStore}`).execute(db);
      } catch {
        // Still inside a transaction that failed to end: leave the setting, the connection is closing.
      }
      this.restoreTempStore = undefined;
    }
    this.db = undefined;
    this.release?.();
    await this.held;
  }

  private open(operation: string): Kysely<Schema> {
    if (!this.db) throw new Error(`${operation}() outside begin()/commit()`);
    return this.db;
  }
}

/**
 * Writes notices in one transaction (a convenience over `NoticeWriter` for a list already in
 * memory, such as a mirrored page or the demo data).
 */
export async function writeNotices(
  database: Database,
  notices: readonly Notice[],
  nowSeconds: number,
  options: NoticeWriteOptions = {},
): Promise<NoticeWriteResult> {
  const writer = new NoticeWriter(database, nowSeconds, { asGiven: options.asGiven });
  try {
    await writer.begin();
    await writer.write(notices);
    return await writer.commit({ mirror: options.mirror });
  } catch (err) {
    await writer.rollback();
    throw err;
  } finally {
    await writer.close();
  }
}

async function writeChunk(
  db: Kysely<Schema>,
  chunk: readonly Notice[],
  nowSeconds: number,
  options: NoticeWriteOptions,
  result: NoticeWriteResult,
): Promise<void> {
  if (chunk.length === 0) return;
  const stored = new Map(
    (
      await db
        .selectFrom("notices")
        .select(["id", "revision", "updated_at", "content_digest"])
        .where(
          "id",
          "in",
          chunk.map((notice) => notice.id),
        )
        .execute()
    ).map((row) => [row.id, row]),
  );
  const rows: NoticeTable[] = [];
  const values: NoticeValueTable[] = [];
  for (const notice of chunk) {
    const digest = noticeContentDigest(notice);
    const before = stored.get(notice.id);
    if (
      before &&
      before.content_digest === digest &&
      (!options.asGiven ||
        (Number(before.revision) === notice.revision && Number(before.updated_at) === notice.updatedAt))
    ) {
      result.unchanged++;
      continue;
    }
    let row = toRow(notice, digest);
    if (before && options.asGiven) {
      await db.deleteFrom("notices").where("id", "=", notice.id).execute();
      await db.deleteFrom("notice_values").where("notice_id", "=", notice.id).execute();
      result.changed++;
    } else if (before) {
      const previousUpdate = Number(before.updated_at);
      row = {
        ...row,
        revision: Math.max(Number(before.revision) + 1, notice.revision),
        updated_at:
          notice.updatedAt > previousUpdate ? notice.updatedAt : Math.max(nowSeconds, previousUpdate),
      };
      await db.deleteFrom("notices").where("id", "=", notice.id).execute();
      await db.deleteFrom("notice_values").where("notice_id", "=", notice.id).execute();
      result.changed++;
    } else {
      result.added++;
    }
    rows.push(row);
    notice.acquiredEntities.forEach((value, position) => {
      values.push({ notice_id: notice.id, field: "acquired-entities", position, value });
    });
    notice.tags.forEach((value, position) => {
      values.push({ notice_id: notice.id, field: "tags", position, value });
    });
  }
  if (rows.length > 0) await db.insertInto("notices").values(rows).execute();
  for (let start = 0; start < values.length; start += ROWS_PER_INSERT * 2) {
    await db
      .insertInto("notice_values")
      .values(values.slice(start, start + ROWS_PER_INSERT * 2))
      .execute();
  }
}

function toRow(notice: Notice, digest: string): NoticeTable {
  return {
    id: notice.id,
    revision: notice.revision,
    title: notice.title,
    transaction_number: notice.transactionNumber,
    acquiring_party: notice.acquiringParty,
    acquired_party: notice.acquiredParty,
    date: notice.date,
    created_at: notice.createdAt,
    updated_at: notice.updatedAt,
    content_digest: digest,
  };
}
