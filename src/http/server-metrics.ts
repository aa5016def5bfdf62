import {
  type Aggregator,
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type PrometheusContentType,
} from "prom-client";
import { statusDocument } from "../domain/collection-status.js";
import type { ReadLaneFigures, ReadPoolFigures } from "../store/database.js";
import type { CountSeriesFigures } from "../store/dimension-counts.js";
import type { AnswerCache, AnswerCacheFigures, AnswerCacheWatcher } from "./answer-cache.js";
import type { CollectionFreshness } from "./collection-freshness.js";
import { databaseErrorCode } from "./database-error-code.js";

/** A database connection pool as the metrics read it; pg's `Pool` is one. */
export interface PoolFigures {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly options: { readonly max?: number };
}

/** What the metrics read when scraped, besides what requests report. */
export interface MetricsSources {
  /** The collections, for their freshness figures (read from the database at each scrape). */
  freshness: CollectionFreshness;
  /** The PostgreSQL pools, named by role (`primary`, `read`); none on SQLite. */
  pools: ReadonlyArray<{ readonly database: string; readonly pool: PoolFigures }>;
  /** The SQLite read threads' figures; undefined on PostgreSQL or with `--read-threads 0`. */
  readPool: () => ReadPoolFigures | undefined;
  /** The complaints' count series kept in memory. */
  countSeries: () => CountSeriesFigures;
}

/** Which limit refused a request: an API key's own (or the default), DEMO_KEY's, or sign-up's. */
export type RefusedLimit = "api_key" | "demo_key" | "signup";

/** A scrape's answer: the Prometheus text format and its content type. */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

/**
 * Request latency buckets, in seconds: ftcapi's queries take 1 to 20 ms, its slowest shapes a few
 * hundred (docs/performance.md), and a request past the statement budget (2 s) plus its margin
 * (1 s) is answered 503.
 */
const DURATION_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Request methods counted under their own name; any other is counted as `other`. */
const METHODS = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

/** One collection's figures at a scrape. */
interface CollectionFigures {
  name: string;
  records: number;
  version: number;
  lastUpdateSeconds: number | undefined;
  newestRecordSeconds: number | undefined;
  lastMirrorSeconds: number | undefined;
  nextUpdateDueSeconds: number;
  overdue: boolean;
}

/**
 * The serving process's Prometheus metrics (docs/metrics.md lists them): requests, latency,
 * refusals and database errors as requests report them; answer caches, pools and collections
 * read when scraped; and prom-client's process metrics. Every metric is kept in this instance's
 * registry, which also answers a node:cluster primary's requests for this worker's metrics
 * (`clusterMetricsExposition`), summed there unless the metric names another aggregator.
 */
export class ServerMetrics {
  private readonly registry = new AggregatorRegistry<PrometheusContentType>();
  private readonly caches: AnswerCache[] = [];
  private readonly requests: Counter<"route" | "method" | "status">;
  private readonly durations: Histogram<"route" | "method">;
  private readonly refusals: Counter<"limit">;
  private readonly databaseErrors: Counter<"code">;
  private readonly keptAnswers: Counter;
  /** The collections' figures being read for the scrape under way, shared by its gauges. */
  private reading: Promise<CollectionFigures[]> | undefined;

  constructor(private readonly sources: MetricsSources) {
    // In a worker, the primary's requests for metrics are answered from this registry.
    AggregatorRegistry.setRegistries(this.registry);
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.requests = new Counter({
      name: "ftcapi_http_requests_total",
      help: "Requests answered, by route pattern (unmatched: no route), method and status",
      labelNames: ["route", "method", "status"],
      registers,
    });
    this.durations = new Histogram({
      name: "ftcapi_http_request_duration_seconds",
      help: "Time from receiving a request to its answer, by route pattern and method",
      labelNames: ["route", "method"],
      buckets: DURATION_BUCKETS_SECONDS,
      registers,
    });
    this.refusals = new Counter({
      name: "ftcapi_rate_limit_refusals_total",
      help: "Requests refused with 429, by the limit that refused them: api_key, demo_key or signup",
      labelNames: ["limit"],
      registers,
    });
    this.databaseErrors = new Counter({
      name: "ftcapi_database_errors_total",
      help: "Database errors met by requests and scrapes, by driver code (SQLSTATE, SQLITE_*, network)",
      labelNames: ["code"],
      registers,
    });
    this.keptAnswers = new Counter({
      name: "ftcapi_kept_answers_total",
      help: "Requests answered from a kept response before the framework (also counted in ftcapi_http_requests_total)",
      registers,
    });
    new Gauge({
      name: "ftcapi_serving_processes",
      help: "Processes serving the API whose metrics this scrape holds (the workers, with --workers)",
      registers,
      collect() {
        this.set(1);
      },
    });
    this.registerCacheMetrics();
    this.registerPoolMetrics();
    this.registerReadLaneMetrics();
    this.registerCollectionMetrics();
    this.registerCountSeriesMetrics();
  }

  /** Counts an answered request: its route pattern (never the URL), method, status and duration. */
  requestAnswered(route: string, method: string, status: number, durationSeconds: number): void {
    const methodLabel = METHODS.has(method) ? method : "other";
    this.requests.inc({ route, method: methodLabel, status: String(status) });
    this.durations.observe({ route, method: methodLabel }, durationSeconds);
  }

  /** Counts a request answered from a kept response, before the framework (`KeptAnswerLane`). */
  keptAnswerSent(): void {
    this.keptAnswers.inc();
  }

  /** Counts a request refused by a rate limit. */
  rateLimitRefused(limit: RefusedLimit): void {
    this.refusals.inc({ limit });
  }

  /** Counts a database error under its code (`databaseErrorCode`). */
  databaseFailed(code: string): void {
    this.databaseErrors.inc({ code });
  }

  /** Given to the routes: each answer cache they make is reported at every scrape. */
  readonly watchAnswerCache: AnswerCacheWatcher = (cache) => {
    this.caches.push(cache);
  };

  /** The metrics of this process now, in the Prometheus text format. */
  async exposition(): Promise<MetricsExposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** The complaints' count series kept in memory: entries and their weight in bytes. */
  private registerCountSeriesMetrics(): void {
    const registers = [this.registry];
    const countSeries = () => this.sources.countSeries();
    new Gauge({
      name: "ftcapi_count_series_entries",
      help: "Complaint count series kept in memory (per filter value, and per combination of filters)",
      registers,
      collect() {
        this.set(countSeries().entries);
      },
    });
    new Gauge({
      name: "ftcapi_count_series_kept_bytes",
      help: "Bytes of the complaint count series kept in memory, their keys included",
      registers,
      collect() {
        this.set(countSeries().keptBytes);
      },
    });
  }

  private registerCacheMetrics(): void {
    const registers = [this.registry];
    const caches = () =>
      this.caches.map((cache) => [cache.version.collection.name, cache.figures()] as const);
    const counter = (name: string, help: string, figure: (figures: AnswerCacheFigures) => number) =>
      new Counter({
        name,
        help,
        labelNames: ["collection"],
        registers,
        // The cache counts; the counter shows its count.
        collect() {
          this.reset();
          for (const [collection, figures] of caches()) this.inc({ collection }, figure(figures));
        },
      });
    const gauge = (name: string, help: string, figure: (figures: AnswerCacheFigures) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["collection"],
        registers,
        collect() {
          this.reset();
          for (const [collection, figures] of caches()) this.set({ collection }, figure(figures));
        },
      });
    counter(
      "ftcapi_answer_cache_hits_total",
      "Answers served from the answer cache",
      (figures) => figures.hits,
    );
    counter(
      "ftcapi_answer_cache_misses_total",
      "Answers the answer cache did not hold",
      (figures) => figures.misses,
    );
    gauge("ftcapi_answer_cache_entries", "Answers kept in the answer cache", (figures) => figures.entries);
    gauge(
      "ftcapi_answer_cache_size_characters",
      "Characters of the answers kept",
      (figures) => figures.sizeCharacters,
    );
    gauge(
      "ftcapi_answer_cache_limit_characters",
      "Characters the cache keeps at most",
      (figures) => figures.limitCharacters,
    );
  }

  private registerPoolMetrics(): void {
    const registers = [this.registry];
    const { pools } = this.sources;
    new Gauge({
      name: "ftcapi_database_pool_connections",
      help: "PostgreSQL connections open, by database (primary, read) and state (busy, idle)",
      labelNames: ["database", "state"],
      registers,
      collect() {
        for (const { database, pool } of pools) {
          this.set({ database, state: "busy" }, pool.totalCount - pool.idleCount);
          this.set({ database, state: "idle" }, pool.idleCount);
        }
      },
    });
    new Gauge({
      name: "ftcapi_database_pool_max_connections",
      help: "PostgreSQL connections a pool opens at most, by database",
      labelNames: ["database"],
      registers,
      collect() {
        for (const { database, pool } of pools) this.set({ database }, pool.options.max ?? 10);
      },
    });
    new Gauge({
      name: "ftcapi_database_pool_waiting_clients",
      help: "Queries waiting for a free PostgreSQL connection, by database",
      labelNames: ["database"],
      registers,
      collect() {
        for (const { database, pool } of pools) this.set({ database }, pool.waitingCount);
      },
    });
  }

  private registerReadLaneMetrics(): void {
    const registers = [this.registry];
    const pool = () => this.sources.readPool();
    const lanes = () => pool()?.lanes ?? [];
    const gauge = (name: string, help: string, value: (figures: ReadLaneFigures) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["lane"],
        registers,
        collect() {
          for (const figures of lanes()) this.set({ lane: figures.lane }, value(figures));
        },
      });
    gauge(
      "ftcapi_sqlite_read_threads",
      "SQLite read threads, by lane (quick, long)",
      (figures) => figures.threads,
    );
    gauge(
      "ftcapi_sqlite_read_threads_busy",
      "SQLite read threads running a statement, by lane",
      (figures) => figures.busy,
    );
    gauge(
      "ftcapi_sqlite_reads_waiting",
      "SQLite statements waiting for a read thread, by lane",
      (figures) => figures.waiting,
    );
    new Counter({
      name: "ftcapi_sqlite_reads_total",
      help: "SQLite reads by lane: run by the read threads (quick; long, each after outrunning the quick lane's budget) or by the event loop itself (loop: inside a read transaction, never for a page; idle-loop: while it had nothing else to do, the few reads of a lone request)",
      labelNames: ["lane"],
      registers,
      collect() {
        this.reset();
        const figures = pool();
        if (figures === undefined) return;
        for (const lane of figures.lanes) this.inc({ lane: lane.lane }, lane.statements);
        this.inc({ lane: "loop" }, figures.loopReads);
        this.inc({ lane: "idle-loop" }, figures.idleLoopReads);
      },
    });
  }

  private registerCollectionMetrics(): void {
    const registers = [this.registry];
    const figures = () => this.collectionFigures();
    // Every process reads the same database: across workers, the largest value is the one.
    const gauge = (
      name: string,
      help: string,
      figure: (collection: CollectionFigures) => number | undefined,
      aggregator: Aggregator = "max",
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ["collection"],
        registers,
        aggregator,
        async collect() {
          this.reset();
          for (const collection of await figures()) {
            const value = figure(collection);
            if (value !== undefined) this.set({ collection: collection.name }, value);
          }
        },
      });
    gauge("ftcapi_collection_records", "Records in the collection", (collection) => collection.records);
    gauge(
      "ftcapi_collection_version",
      "Commits that changed the collection (imports, mirror batches); grows with each",
      (collection) => collection.version,
    );
    gauge(
      "ftcapi_collection_last_update_timestamp_seconds",
      "When an import or mirror last changed the collection (Unix time); absent before the first",
      (collection) => collection.lastUpdateSeconds,
    );
    gauge(
      "ftcapi_collection_newest_record_timestamp_seconds",
      "The newest record's created time (Unix time); absent when the collection is empty",
      (collection) => collection.newestRecordSeconds,
    );
    gauge(
      "ftcapi_collection_last_mirror_timestamp_seconds",
      "When a mirror run of the collection last finished (Unix time); absent when never mirrored",
      (collection) => collection.lastMirrorSeconds,
    );
    gauge(
      "ftcapi_collection_next_update_due_timestamp_seconds",
      "The first scheduled publication after the last update (Unix time), as /v0/status says",
      (collection) => collection.nextUpdateDueSeconds,
    );
    gauge(
      "ftcapi_collection_overdue",
      "1 when the collection missed a scheduled publication (/v0/status's overdue), else 0",
      (collection) => (collection.overdue ? 1 : 0),
    );
  }

  /**
   * The collections' figures, read once per scrape for all their gauges (they are collected
   * together). A database error is counted and leaves the gauges empty for that scrape, so that
   * the rest of the metrics are still served.
   */
  private collectionFigures(): Promise<CollectionFigures[]> {
    this.reading ??= readCollectionFigures(this.sources.freshness)
      .catch((err: unknown) => {
        this.databaseFailed(databaseErrorCode(err) ?? "other");
        return [];
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }
}

async function readCollectionFigures(freshness: CollectionFreshness): Promise<CollectionFigures[]> {
  const facts = await freshness.facts();
  const status = statusDocument(facts, Date.now(), "");
  return Promise.all(
    freshness.collections.map(async (fresh, index) => {
      const fact = facts[index]!;
      const attributes = status.data[index]!.attributes;
      return {
        name: fact.name,
        records: fact.records,
        version: (await fresh.version.current()).version,
        lastUpdateSeconds: fact.lastUpdatedSeconds,
        newestRecordSeconds: await fresh.newestCreatedAt(),
        lastMirrorSeconds: fact.lastMirroredSeconds,
        nextUpdateDueSeconds: Date.parse(attributes["next-update-due"]) / 1000,
        overdue: attributes.overdue,
      };
    }),
  );
}

/**
 * For a node:cluster primary with `--metrics-port`: a scrape asks every worker for its metrics (each
 * worker's `ServerMetrics` answers) and answers them aggregated, counters and histograms summed.
 * Rejects when a worker does not answer within 5 seconds.
 */
export function clusterMetricsExposition(): () => Promise<MetricsExposition> {
  const registry = new AggregatorRegistry<PrometheusContentType>();
  return async () => ({ contentType: registry.contentType, body: await registry.clusterMetrics() });
}
