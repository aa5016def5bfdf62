import type { FastifyInstance, FastifyRequest } from "fastify";
import type { CollectionFacts } from "../domain/collection-status.js";
import type { PublicationSchedule } from "../domain/publication-calendar.js";
import type { FreshnessStore } from "../store/freshness-store.js";

/**
 * A collection as the freshness features see it: its name and path, its schedule, and how to
 * count it. Each collection (complaints, notices) registers one.
 */
export interface FreshCollection {
  name: string;
  path: string;
  schedule: PublicationSchedule;
  count(): Promise<number>;
  /** The newest record's created date, formatted as the collection formats it. */
  newestCreated(): Promise<string | undefined>;
}

/** Update times are read at most this often per process: cheap per request, current within a second. */
const CACHE_MILLIS = 1000;

/**
 * Reads when collections last changed, shared by `Last-Modified` and `/v0/status`; from the
 * database, so every process sees imports and mirrors run by others.
 */
export class CollectionFreshness {
  private readonly cache = new Map<string, { value: number | undefined; readAt: number }>();

  constructor(
    readonly collections: readonly FreshCollection[],
    private readonly store: FreshnessStore,
  ) {}

  /** When the collection last changed (seconds), or undefined when unknown. */
  async lastUpdated(name: string): Promise<number | undefined> {
    const cached = this.cache.get(name);
    const now = Date.now();
    if (cached && now - cached.readAt < CACHE_MILLIS) return cached.value;
    const value = await this.store.lastUpdated(name);
    this.cache.set(name, { value, readAt: now });
    return value;
  }

  async facts(): Promise<CollectionFacts[]> {
    return Promise.all(
      this.collections.map(async (collection) => ({
        name: collection.name,
        path: collection.path,
        records: await collection.count(),
        newestCreated: await collection.newestCreated(),
        lastUpdatedSeconds: await this.store.lastUpdated(collection.name),
        lastMirroredSeconds: await this.store.lastChecked(collection.name),
        schedule: collection.schedule,
      })),
    );
  }

  /** The collection a request's route belongs to. */
  collectionOf(req: FastifyRequest): FreshCollection | undefined {
    const route = req.routeOptions.url;
    if (route === undefined) return undefined;
    return this.collections.find(
      (collection) => route === collection.path || route.startsWith(`${collection.path}/`),
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
    const collection = freshness.collectionOf(req);
    if (!collection) return payload;
    const updated = await freshness.lastUpdated(collection.name);
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
