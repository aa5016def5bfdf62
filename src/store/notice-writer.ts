import { type CompiledQuery, type Kysely, sql } from "kysely";
import { type Notice, noticeContentDigest } from "../domain/notice.js";
import type { Database } from "./database.js";
import type { NoticeTable, NoticeValueTable, Schema } from "./schema.js";

export interface NoticeWriteResult {
  added: number;
  changed: number;
  unchanged: number;
}

/** Rows per multi-row INSERT: well under both engines' limits on bound parameters. */
const ROWS_PER_INSERT = 200;

export interface NoticeWriteOptions {
  /**
   * Statements to run in the same transaction just before it commits, chosen once the outcome is
   * known (the collection's update time when something changed, a mirror's cursor). Compiled by
   * the same database's Kysely.
   */
  also?: (result: NoticeWriteResult) => readonly CompiledQuery[];
  /**
   * Keep each notice's revision and update time exactly as given (a mirror copying an upstream):
   * a stored notice is replaced when its content, revision or update time differs.
   */
  asGiven?: boolean;
}

/**
 * Writes notices in one transaction (one imported file, one mirrored page): a notice not yet
 * stored is added as given; one whose content is unchanged is left alone entirely; a changed one
 * gets the next revision number (or the file's, if higher) and a new update time: the file's,
 * when it is later than the stored one, else `nowSeconds` (with `asGiven`, the given ones).
 */
export async function writeNotices(
  database: Database,
  notices: readonly Notice[],
  nowSeconds: number,
  options: NoticeWriteOptions = {},
): Promise<NoticeWriteResult> {
  const result: NoticeWriteResult = { added: 0, changed: 0, unchanged: 0 };
  await database.db.connection().execute(async (db) => {
    // IMMEDIATE: take SQLite's write lock at once, so a concurrent writer waits instead of failing.
    await sql.raw(database.dialect === "sqlite" ? "begin immediate" : "begin").execute(db);
    try {
      for (let start = 0; start < notices.length; start += ROWS_PER_INSERT) {
        await writeChunk(db, notices.slice(start, start + ROWS_PER_INSERT), nowSeconds, options, result);
      }
      for (const statement of options.also?.({ ...result }) ?? []) await db.executeQuery(statement);
      await sql.raw("commit").execute(db);
    } catch (err) {
      await sql.raw("rollback").execute(db);
      throw err;
    }
  });
  return result;
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
