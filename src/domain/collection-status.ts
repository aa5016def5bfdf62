import { nextPublicationAfter, type PublicationSchedule } from "./publication-calendar.js";

/** What is known about one collection, for `GET /v0/status`. */
export interface CollectionFacts {
  /** The collection's name: its path's last part, such as `dnc-complaints`. */
  name: string;
  path: string;
  records: number;
  /** The newest record's created date, as the collection formats it; undefined when empty. */
  newestCreated: string | undefined;
  /** When the content last changed (seconds); undefined when no import or mirror was recorded. */
  lastUpdatedSeconds: number | undefined;
  /** When a mirror run last finished (seconds); undefined when never mirrored. */
  lastMirroredSeconds: number | undefined;
  schedule: PublicationSchedule;
}

export interface CollectionStatusResource {
  type: "collection_status";
  id: string;
  attributes: {
    path: string;
    "record-count": number;
    "newest-created-date": string | null;
    "last-updated": string | null;
    "last-mirrored": string | null;
    "next-update-due": string;
    overdue: boolean;
    schedule: string;
  };
}

export interface StatusDocument {
  data: CollectionStatusResource[];
  meta: { time: string };
  links: { self: string };
}

/**
 * The status of each collection. `next-update-due` is the first scheduled publication after the
 * last update (after now when none is recorded): when it has passed, the copy missed a
 * publication and `overdue` is true. For a schedule whose publications may be empty (notices), a
 * mirror run that finished after a due time and found nothing also counts: the due time is then
 * the first publication after the later of the last update and the last mirror run.
 */
export function statusDocument(
  facts: readonly CollectionFacts[],
  nowMillis: number,
  selfUrl: string,
): StatusDocument {
  return {
    data: facts.map((fact) => {
      const seen = fact.schedule.mayBeEmpty
        ? Math.max(fact.lastUpdatedSeconds ?? -Infinity, fact.lastMirroredSeconds ?? -Infinity)
        : (fact.lastUpdatedSeconds ?? -Infinity);
      const due = nextPublicationAfter(Number.isFinite(seen) ? seen * 1000 : nowMillis, fact.schedule);
      return {
        type: "collection_status",
        id: fact.name,
        attributes: {
          path: fact.path,
          "record-count": fact.records,
          "newest-created-date": fact.newestCreated ?? null,
          "last-updated": isoSeconds(fact.lastUpdatedSeconds),
          "last-mirrored": isoSeconds(fact.lastMirroredSeconds),
          "next-update-due": new Date(due).toISOString(),
          overdue: due < nowMillis,
          schedule: fact.schedule.description,
        },
      };
    }),
    meta: { time: new Date(nowMillis).toISOString() },
    links: { self: selfUrl },
  };
}

function isoSeconds(seconds: number | undefined): string | null {
  return seconds === undefined ? null : new Date(seconds * 1000).toISOString();
}
