import { NOTICES } from "../domain/collections.js";
import { type Notice, parseTimestamp } from "../domain/notice.js";
import { nowSeconds } from "../domain/time.js";
import type { Database } from "../store/database.js";
import { FreshnessStore } from "../store/freshness-store.js";
import { writeNotices } from "../store/notice-writer.js";
import type { MirroredNotice, NoticeCursor, NoticeSink } from "./notice-mirror.js";

/**
 * The notices store as a mirror's sink: each batch is written in one transaction together with
 * the mirror's cursor and, when something was added or changed, the collection's update time, so
 * a killed mirror leaves whole batches and its cursor at the last one. Notices keep the upstream's
 * ids, revisions and update times.
 */
export class StoreNoticeSink implements NoticeSink {
  private readonly freshness: FreshnessStore;

  constructor(private readonly database: Database) {
    this.freshness = new FreshnessStore(database);
  }

  async cursor(upstream: string): Promise<NoticeCursor | undefined> {
    const text = await this.freshness.mirrorCursor(upstream, NOTICES.name);
    if (text === undefined) return undefined;
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return {
      createdFrom: typeof parsed.createdFrom === "string" ? parsed.createdFrom : undefined,
      updatedFrom: typeof parsed.updatedFrom === "string" ? parsed.updatedFrom : undefined,
    };
  }

  async write(
    upstream: string,
    notices: readonly MirroredNotice[],
    cursor: NoticeCursor,
  ): Promise<{ added: number; changed: number; existing: number }> {
    const now = nowSeconds();
    // One upstream page can repeat a notice only if the upstream is inconsistent; keep the last.
    const byId = new Map(notices.map((notice) => [notice.id, storedNotice(notice)]));
    const written = await writeNotices(this.database, [...byId.values()], now, {
      asGiven: true,
      mirror: { upstream, cursor: JSON.stringify(cursor) },
    });
    return { added: written.added, changed: written.changed, existing: written.unchanged };
  }
}

/** A mirrored notice as the store keeps it: empty texts as absent values, times in seconds. */
function storedNotice(notice: MirroredNotice): Notice {
  const createdAt = parseTimestamp(notice.created);
  const updatedAt = parseTimestamp(notice.updated);
  if (createdAt === null || updatedAt === null)
    throw new Error(`${notice.id}: created or updated is not an ISO 8601 time`);
  const revision = notice.revision === undefined ? 1 : Number(notice.revision);
  return {
    id: notice.id,
    revision,
    title: notice.title,
    transactionNumber: notice.transactionNumber,
    acquiringParty: notice.acquiringParty === "" ? null : notice.acquiringParty,
    acquiredParty: notice.acquiredParty === "" ? null : notice.acquiredParty,
    acquiredEntities: notice.acquiredEntities,
    date: notice.date === "" ? null : notice.date,
    createdAt,
    updatedAt,
    tags: notice.tags,
  };
}
