import type { FastifyInstance, FastifyRequest } from "fastify";
import type { CollectionFacts } from "../domain/collection-status.js";
import type { Collection } from "../domain/collections.js";
import type { CollectionVersion } from "../store/collection-version.js";
import type { FreshnessStore } from "../store/freshness-store.js";

/**
 * A collection as the freshness features see it: the collection, its change detection (the same
 * `CollectionVersion` its store and answer cache use), and how to count it.
 */
export interface FreshCollection {
  readonly collection: Collection;
  readonly version: CollectionVersion;
  /** Every record of the collection, exactly. */
  recordCount(): Promise<number>;
  /** The newest record's created date, formatted as the collection formats it. */
  newestCreated(): Promise<string | undefined>;
  /** The newest record's created time (seconds), or undefined when there are none; for the metrics. */
  newestCreatedAt(): Promise<number | undefined>;
}

/**
 * When collections last changed, shared by `Last-Modified` and `/v0/status`: the update time of
 * each collection's version stamp, so an answer's Last-Modified always belongs to the version its
 * body was made from, and every process sees other processes' imports and mirrors.
 */
export class CollectionFreshness {
  constructor(
    readonly collections: readonly FreshCollection[],
    private readonly store: FreshnessStore,
  ) {}

  /** When the collection last changed (seconds), or undefined when unknown. */
  async lastUpdated(fresh: FreshCollection): Promise<number | undefined> {
    return (await fresh.version.current()).updatedAtSeconds;
  }

  /** Every collection's figures, read now (not within a poll interval): `/v0/status` promises exact ones. */
  async facts(): Promise<CollectionFacts[]> {
    return Promise.all(
      this.collections.map(async (fresh) => {
        const stamp = await fresh.version.current({ fresh: true });
        return {
          name: fresh.collection.name,
          path: fresh.collection.path,
          records: await fresh.recordCount(),
          newestCreated: await fresh.newestCreated(),
          lastUpdatedSeconds: stamp.updatedAtSeconds,
          lastMirroredSeconds: await this.store.lastChecked(fresh.collection.name),
          schedule: fresh.collection.schedule,
        };
      }),
    );
  }

  /** The collection a request's route belongs to. */
  collectionOf(req: FastifyRequest): FreshCollection | undefined {
    const route = req.routeOptions.url;
    if (route === undefined) return undefined;
    return this.collections.find(
      ({ collection }) => route === collection.path || route.startsWith(`${collection.path}/`),
    );
  }
}

/**
 * `Last-Modified` on every successful answer of a collection (the time of its last import or
 * mirror commit), and `304 Not Modified` for a `GET` whose `If-Modified-Since` is not older. Runs
 * after the handler, so bad parameters still get their 400.
 */
export function registerLastModified(app: FastifyInstance, freshness: CollectionFreshness): void {
  app.addHook("onSend", async (req, reply, payload) => {
    if (reply.statusCode !== 200 || (req.method !== "GET" && req.method !== "HEAD")) return payload;
    // An export (a stream, `Cache-Control: no-store`) is read from a snapshot of its own: neither
    // validator applies, and a 304 would leave its stream, and the snapshot, unread.
    if (reply.getHeader("Cache-Control") === "no-store") return payload;
    const collection = freshness.collectionOf(req);
    if (!collection) return payload;
    const updated = await freshness.lastUpdated(collection);
    if (updated === undefined) return payload;
    reply.header("Last-Modified", new Date(updated * 1000).toUTCString());
    const since = req.headers["if-modified-since"];
    const sinceMillis = since === undefined ? Number.NaN : Date.parse(since);
    if (!Number.isNaN(sinceMillis) && updated * 1000 <= sinceMillis) {
      reply.code(304);
      reply.removeHeader("Content-Length");
      return null;
    }
    return payload;
  });
}
