import cluster from "node:cluster";
import type { Server as HttpServer } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { getHeapStatistics } from "node:v8";
import { createKey, ensureDemoKey, loadKeySecret } from "./access/api-keys.js";
import { KeyVerifier } from "./access/key-verifier.js";
import { RateLimiter } from "./access/rate-limiter.js";
import type { ServeConfig } from "./config.js";
import { type AppDeps, buildApp } from "./http/build-app.js";
import { CollectionFreshness } from "./http/collection-freshness.js";
import { createLogger } from "./http/create-logger.js";
import { KeptAnswerLane } from "./http/kept-answer-lane.js";
import { createMetricsServer, METRICS_PATH } from "./http/metrics-server.js";
import { connectionsWithinFileLimit, ServerConnections } from "./http/server-connections.js";
import {
  clusterMetricsExposition,
  type MetricsExposition,
  type MetricsSources,
  ServerMetrics,
} from "./http/server-metrics.js";
import { loadCertificate, loadOrCreateCertificate, type TlsFiles } from "./http/tls-certificate.js";
import { warmUp } from "./http/warm-up.js";
import { DEMO_NOTICES, loadDemoData, loadDemoNotices } from "./ingest/demo-data.js";
import { collectGarbage } from "./store/collect-garbage.js";
import { ComplaintStore } from "./store/complaint-store.js";
import { type Database, isPostgresUrl, type OpenOptions } from "./store/database.js";
import { FreshnessStore } from "./store/freshness-store.js";
import { KeyStore } from "./store/key-store.js";
import { migrate } from "./store/migrate.js";
import type { NoticeReader } from "./store/notice-reader.js";
import { NoticeStore } from "./store/notice-store.js";
import { NoticeThread } from "./store/notice-thread.js";
import { openDatabase } from "./store/open-database.js";
import { SettingsStore } from "./store/settings-store.js";
import { megabytes, warmFileCache } from "./store/sqlite/warm-file-cache.js";

export interface RunningServer {
  httpsUrl: string;
  httpUrl: string;
  certPath: string;
  /** Where Prometheus scrapes (`http://HOST:PORT/metrics`), with `--metrics-port`; else undefined. */
  metricsUrl?: string;
  /**
   * Stops accepting, answers every request on a connection already open (with `Connection:
   * close`) until every connection has closed (http/server-connections.ts, `drain`), then closes
   * the database.
   */
  stop(): Promise<void>;
}

/**
 * Runs `serve`: in this process, or with `workers` > 1 as a node:cluster primary that prepares the
 * database and certificate once and forks workers sharing the ports. In a worker, starts that
 * worker's server and reports to the primary. The caller prints the banner when `isPrimary`.
 *
 * A server that cannot start (a port it cannot bind, a database it cannot reach) does not stay up
 * in part: in one process, everything opened is closed and the error thrown; a worker that cannot
 * start tells the primary why and exits 1, and the primary then stops every worker and throws
 * that reason. A listener that cannot bind names its address and option (see `listenOrExplain`).
 */
export async function serve(
  config: ServeConfig,
  log: (line: string) => void,
): Promise<RunningServer & { isPrimary: boolean }> {
  if (config.workers <= 1)
    return withFileCacheWarming(config, log, { ...(await startServer(config, log)), isPrimary: true });
  if (cluster.isWorker) return { ...(await startWorker(config, log)), isPrimary: false };
  const { certPath } = (await prepareWithoutBudget(config, log)).tls;
  // The primary alone listens for metrics, and answers with every worker's, aggregated.
  const metrics = await listenForMetrics(config, clusterMetricsExposition());
  try {
    const workers = await forkWorkers(config.workers, config.mallocArenaMax, log);
    const stop = async () => {
      await workers.stop();
      await metrics?.close();
    };
    return withFileCacheWarming(config, log, {
      ...workers,
      stop,
      certPath,
      metricsUrl: metrics?.url,
      isPrimary: true,
    });
  } catch (err) {
    await metrics?.close();
    throw err;
  }
}

/**
 * The server, with its SQLite file read into the operating system's file cache in the background
 * (`ServeConfig.warmFileCache`, store/sqlite/warm-file-cache.ts), once, by the process that serves or
 * by the primary for its workers; the outcome is logged. Stopping the server stops the reading first.
 */
function withFileCacheWarming<Server extends RunningServer>(
  config: ServeConfig,
  log: (line: string) => void,
  server: Server,
): Server {
  if (!config.warmFileCache || isPostgresUrl(config.db)) return server;
  const file = resolve(config.db);
  const controller = new AbortController();
  const warming = warmFileCache(file, { signal: controller.signal }).then(
    (outcome) => {
      if (outcome.warmed)
        log(
          `file cache: read ${file} (${megabytes(outcome.bytes)}) in ${outcome.seconds.toFixed(1)} s, so that first requests do not wait for the disk`,
        );
      else if (outcome.reason !== "stopped")
        log(`file cache: not read ahead: ${file} (${megabytes(outcome.bytes)}) is ${outcome.reason}`);
    },
    (err: unknown) => log(`file cache: not read ahead: ${(err as Error).message}`),
  );
  return {
    ...server,
    stop: async () => {
      controller.abort();
      await warming;
      await server.stop();
    },
  };
}

/** What a worker tells the primary once started (or not). */
type WorkerMessage =
  | { type: "listening"; httpsUrl: string; httpUrl: string }
  | { type: "failed"; reason: string };

/** When a worker could not start: how long the others get to stop on SIGTERM before they are killed. */
const FAILED_START_GRACE_MS = 5000;

async function startWorker(config: ServeConfig, log: (line: string) => void): Promise<RunningServer> {
  let server: RunningServer;
  try {
    server = await startServer({ ...config, demo: false }, log);
  } catch (err) {
    // The primary prints the reason once and stops the other workers; this one only leaves.
    await tellPrimary({ type: "failed", reason: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  await tellPrimary({ type: "listening", httpsUrl: server.httpsUrl, httpUrl: server.httpUrl });
  return server;
}

function tellPrimary(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });
}

/**
 * The node flags a serving process runs with (docs/deployment.md, Operations).
 * - V8's heap limits: the caches are bounded (about 30 MB of answers and filter matches, plus the
 *   notices), but without a heap limit V8 lets garbage grow the heap to gigabytes before it
 *   collects (a worker reached 840 MB under distinct load; 281 MB with these). A 4 MB semi-space
 *   instead of 8 took 11 to 26 MB off the peak under the distinct workloads at 20 million
 *   complaints. A larger one trades memory for the collections of promoted objects, about a fifth
 *   of the processor time under continuous distinct load: at 6 and 8 MB, 10 to 25% more requests a
 *   second after 10 s of load, but no more in the benchmark's 10-second runs, for some 20 MB more
 *   at peak (docs/performance.md, 2026-12-06, night).
 * - One V8 helper thread instead of four: on a 2-core machine the helpers (concurrent marking and
 *   sweeping, parallel scavenges) took the cores from the event loop mid-collection, while the
 *   notice thread and the load kept them busy. Beside a flood of costly notice requests
 *   `/health/live`'s p99 fell from 7.8 to 9.3 ms to 3.0 to 5.7 ms, peak memory under
 *   `bench:memory` from 297 to 271 MB, and the distinct workloads' rates did not fall
 *   (docs/performance.md).
 */
export const V8_SERVE_FLAGS = [
  "--max-old-space-size=160",
  "--max-semi-space-size=4",
  "--v8-pool-size=1",
] as const;

/**
 * The environment a serving process runs with, beside `V8_SERVE_FLAGS` (npm start, the systemd
 * unit, workers forked with `--workers`): glibc's allocator keeps an arena per thread that
 * allocates (the event loop, the read threads, the notice thread, libuv's pool), each holding the
 * memory freed in it; two arenas for all kept a worker's peak under the distinct workload at 20
 * million complaints some 6 MB lower, at no cost in requests a second (docs/performance.md,
 * 2026-12-06, night).
 */
export const SERVE_ENVIRONMENT = { MALLOC_ARENA_MAX: "2" } as const;

/** V8's heap limit in a process started without one is over this (a quarter of the machine's memory, at least 2 GB). */
const UNSET_HEAP_LIMIT_MB = 1024;

/** Whether this process runs with a heap limit of its own (`--max-old-space-size` on the command line or in NODE_OPTIONS). */
export function hasHeapLimit(): boolean {
  return getHeapStatistics().heap_size_limit / 1048576 <= UNSET_HEAP_LIMIT_MB;
}

/**
 * Forks `count` workers and resolves once all listen. Workers run with `V8_SERVE_FLAGS` unless the
 * primary was given a heap limit, which they then inherit, and with `SERVE_ENVIRONMENT`'s arena
 * limit unless the primary was started with one (`mallocArenaMax`). Until then, a worker that fails
 * or exits stops them all and rejects with its reason; after, a worker that exits is replaced.
 */
async function forkWorkers(
  count: number,
  mallocArenaMax: string | undefined,
  log: (line: string) => void,
): Promise<Omit<RunningServer, "certPath">> {
  // Workers inherit the primary's environment: the serving one is added only where it set none.
  const environment = mallocArenaMax === undefined ? SERVE_ENVIRONMENT : {};
  let stopping = false;
  const urls = await new Promise<{ httpsUrl: string; httpUrl: string }>((resolve, reject) => {
    let listening = 0;
    const fail = (reason: string) => {
      if (stopping) return;
      stopping = true;
      void stopWorkers(FAILED_START_GRACE_MS).then(() => reject(new Error(reason)));
    };
    cluster.on("message", (_worker, message: WorkerMessage | undefined) => {
      if (message?.type === "failed") {
        if (listening < count) fail(message.reason);
        else log(`a new worker could not start: ${message.reason}`);
        return;
      }
      if (message?.type !== "listening") return;
      listening++;
      if (listening === count) resolve(message);
    });
    cluster.on("exit", (worker, code, signal) => {
      if (stopping) return;
      if (listening < count) {
        fail(`worker ${worker.process.pid} exited (${signal ?? code}) while starting`);
        return;
      }
      log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      cluster.fork(environment);
    });
    if (!hasHeapLimit()) cluster.setupPrimary({ execArgv: [...process.execArgv, ...V8_SERVE_FLAGS] });
    for (let index = 0; index < count; index++) cluster.fork(environment);
  });
  return {
    ...urls,
    async stop() {
      stopping = true;
      await stopWorkers();
    },
  };
}

/** SIGTERM to every worker (and SIGKILL to one still there after `killAfterMs`, if given); resolves when all exited. */
async function stopWorkers(killAfterMs?: number): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) {
            resolve();
            return;
          }
          const kill =
            killAfterMs === undefined
              ? undefined
              : setTimeout(() => worker.process.kill("SIGKILL"), killAfterMs);
          worker.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          worker.process.kill("SIGTERM");
        }),
    ),
  );
}

/** Migrations, the demo dataset on first run, the key secret and DEMO_KEY. Idempotent. */
async function prepareStore(
  database: Database,
  config: ServeConfig,
  log: (line: string) => void,
): Promise<string> {
  await migrate(database);
  if (config.demo && (await new ComplaintStore(database).count()) === 0) {
    log("First run: generating the demo dataset (200,000 complaints over the last 30 days)...");
    const result = await loadDemoData(database);
    log(`Demo dataset loaded: ${result.added} complaints.`);
  }
  // Checked apart from the complaints, so that a demo database made before notices existed gets them.
  if (config.demo && (await new NoticeStore(database).count()) === 0) {
    log(
      `First run: generating the demo notices (${DEMO_NOTICES.rows.toLocaleString("en-US")} notices, 1999 to 2021)...`,
    );
    const result = await loadDemoNotices(database);
    log(`Demo notices loaded: ${result.added} notices.`);
  }
  const secret = await loadKeySecret(new SettingsStore(database), config.keySecret);
  await ensureDemoKey(new KeyStore(database), secret);
  return secret;
}

/**
 * `prepareStore` and the certificate, on a database opened for them alone and closed after: without
 * the request budget (`statementTimeoutMs`), since a migration (005-hour-counts reads every
 * complaint) or the demo load's COPY takes far longer than a request may and must not be cancelled.
 */
async function prepareWithoutBudget(
  config: ServeConfig,
  log: (line: string) => void,
): Promise<{ secret: string; tls: TlsFiles }> {
  const database = openDatabase(config.db);
  try {
    const secret = await prepareStore(database, config, log);
    return { secret, tls: await loadTls(config, database) };
  } finally {
    await database.close();
  }
}

/** Where files that belong with the data live (the self-signed certificate): beside a SQLite file, else ./data. */
function stateDirectory(database: Database): string {
  return database.dialect === "sqlite" ? dirname(database.location) : resolve("data");
}

function loadTls(config: ServeConfig, database: Database): Promise<TlsFiles> {
  return config.tlsCert && config.tlsKey
    ? loadCertificate(config.tlsCert, config.tlsKey)
    : loadOrCreateCertificate(stateDirectory(database));
}

/**
 * The databases a server reads and writes (the same one, or a PostgreSQL read replica for reads),
 * opened under the statement budget, so that a hung or slow database answers requests 503 within
 * it instead of holding them for the whole outage.
 */
function openServedDatabases(
  config: ServeConfig,
  log: (line: string) => void,
): { database: Database; readDatabase: Database; budget: OpenOptions } {
  const budget = {
    statementTimeoutMs: config.statementTimeoutMs,
    readThreads: config.readThreads,
    quickReadBudgetMs: config.quickReadBudgetMs,
    readThreadCacheKib: config.readThreadCacheMb * 1024,
  };
  const database = openDatabase(config.db, budget);
  const readDatabase = config.dbReadUrl ? openDatabase(config.dbReadUrl, budget) : database;
  for (const opened of new Set([database, readDatabase])) {
    if (opened.dialect === "sqlite" && !opened.hasStatementBudget)
      log(
        "Warning: the SQLite statement budget was not built (no C compiler at install); statements run unbounded.",
      );
  }
  return { database, readDatabase, budget };
}

/** The gateway's parts: the rate limiter, the key verifier, and the lane of kept answers using both. */
function gatewayOf(
  config: ServeConfig,
  database: Database,
  keyStore: KeyStore,
  secret: string,
  metrics: ServerMetrics | undefined,
  logger: ReturnType<typeof createLogger>,
): { rateLimiter: RateLimiter; keys: KeyVerifier; keptAnswers: KeptAnswerLane } {
  const rateLimiter = new RateLimiter(database.rateLimitStore(), {
    defaultLimitPerHour: config.rateLimitPerHour,
    keyWindowSeconds: config.rateLimitWindowSeconds,
    demoLimitPerHour: config.demoLimitPerHour,
    demoLimitPerDay: config.demoLimitPerDay,
  });
  const keys = new KeyVerifier(keyStore, secret);
  const keptAnswers = new KeptAnswerLane({
    keys,
    limiter: config.rateLimits ? rateLimiter : undefined,
    trustProxy: config.trustProxy,
    metrics,
    logger: logger.isLevelEnabled("info") ? logger : undefined,
  });
  return { rateLimiter, keys, keptAnswers };
}

/** The bounds of the server's connections, fitted within the process's file limit (warned when cut). */
function connectionsOf(
  config: ServeConfig,
  logger: ReturnType<typeof createLogger>,
  log: (line: string) => void,
): ServerConnections {
  const fitted = connectionsWithinFileLimit(config.maxConnections);
  if (fitted.warning) log(fitted.warning);
  return new ServerConnections(
    {
      maxConnections: fitted.maxConnections,
      headerTimeoutMs: config.headerTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    },
    logger,
  );
}

/** The Prometheus metrics of a server (`--metrics-port`), reading its stores' figures. */
function metricsOf(
  freshness: CollectionFreshness,
  database: Database,
  readDatabase: Database,
  complaints: ComplaintStore,
): ServerMetrics {
  return new ServerMetrics({
    freshness,
    pools: poolsOf(database, readDatabase),
    readPool: () => (database.dialect === "sqlite" ? database.readPool() : undefined),
    countSeries: () => complaints.countSeriesFigures(),
  });
}

/** The notice thread, if any, and the databases, closed. */
async function closeStores(
  notices: NoticeReader | undefined,
  database: Database,
  readDatabase: Database,
): Promise<void> {
  if (notices instanceof NoticeThread) await notices.close();
  await database.close();
  if (readDatabase !== database) await readDatabase.close();
}

/**
 * The metrics listener, in the primary process only: a worker's metrics go to the primary, which
 * alone listens for scrapes (see `serve`). Undefined without metrics.
 */
async function primaryMetricsListener(
  config: ServeConfig,
  metrics: ServerMetrics | undefined,
): Promise<MetricsListener | undefined> {
  if (!metrics || !cluster.isPrimary) return undefined;
  return listenForMetrics(config, () => metrics.exposition());
}

/** The notices' reader: answered from memory, on the event loop or on a thread of their own. */
function noticesOf(config: ServeConfig, readDatabase: Database, budget: OpenOptions): NoticeReader {
  return config.noticeThread
    ? new NoticeThread(readDatabase, NoticeThread.optionsFor(config.dbReadUrl ?? config.db, budget))
    : new NoticeStore(readDatabase);
}

/** Whether the database, and the read replica if there is one, answer (`/health/ready`). */
async function bothReady(database: Database, readDatabase: Database): Promise<boolean> {
  return (await database.ready()) && (readDatabase === database || (await readDatabase.ready()));
}

/** Binds the app's HTTPS listener, explaining a port in use. */
async function listenHttps(
  config: ServeConfig,
  started: Awaited<ReturnType<typeof buildApp>>,
): Promise<void> {
  await listenOrExplain(() => started.listen({ port: config.port, host: config.host }), {
    what: "HTTPS",
    option: "--port",
    host: config.host,
    port: config.port,
  });
}

/** Binds the plain HTTP listener (explaining a port in use), and answers its port. */
async function listenPlain(config: ServeConfig, server: HttpServer): Promise<number> {
  await listenOrExplain(() => listen(server, config.httpPort, config.host), {
    what: "plain HTTP",
    option: "--http-port",
    host: config.host,
    port: config.httpPort,
  });
  return (server.address() as AddressInfo).port;
}

/**
 * The app clients reach, served through `serverFactory`, built once the server's own warm-up
 * requests are answered (http/warm-up.ts; logged) and the start's garbage (the snapshot's reads,
 * the warm-up app and its answers) is collected in full: left, it made the first full collection,
 * with a marking step of about 12 ms, fall among the first clients' requests.
 */
async function warmedApp(
  deps: AppDeps,
  logger: ReturnType<typeof createLogger>,
  serverFactory: NonNullable<AppDeps["serverFactory"]>,
): Promise<Awaited<ReturnType<typeof buildApp>>> {
  const warmed = await warmUp(deps);
  if (warmed.unexpected > 0)
    logger.warn(`warm-up: ${warmed.unexpected} of ${warmed.requests} requests answered other than 200`);
  else logger.info(`warm-up: ${warmed.requests} requests answered in ${warmed.seconds.toFixed(2)} s`);
  collectGarbage();
  return buildApp({ ...deps, serverFactory });
}

/** The composition root: config -> database -> migrations -> app -> listeners. */
export async function startServer(config: ServeConfig, log: (line: string) => void): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const { secret, tls } = await prepareWithoutBudget(config, log);
  const { database, readDatabase, budget } = openServedDatabases(config, log);
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let notices: NoticeReader | undefined;
  let httpServer: HttpServer | undefined;
  let metricsListener: MetricsListener | undefined;
  const connections = connectionsOf(config, logger, log);
  try {
    const complaints = new ComplaintStore(readDatabase);
    notices = noticesOf(config, readDatabase, budget);
    // Read them before the first request waits for it.
    await notices.warm();
    await complaints.warm();
    const keyStore = new KeyStore(database);

    let httpsServer: HttpsServer | undefined;
    const freshness = new CollectionFreshness([complaints, notices], new FreshnessStore(readDatabase));
    const metrics =
      config.metricsPort === undefined ? undefined : metricsOf(freshness, database, readDatabase, complaints);
    const { rateLimiter, keys, keptAnswers } = gatewayOf(config, database, keyStore, secret, metrics, logger);
    const appDeps: AppDeps = {
      complaints,
      notices,
      freshness,
      metrics,
      keys,
      keptAnswers,
      rateLimiter,
      limitsEnabled: config.rateLimits,
      issueKey: async (signup) => (await createKey(keyStore, secret, signup)).key,
      signupsPerHour: config.signupLimitPerHour,
      logger,
      baseUrl: config.baseUrl,
      selfSignedCertPath: config.tlsCert ? undefined : resolve(tls.certPath),
      unknownParameters: config.ignoreUnknownParameters ? "ignore" : "refuse",
      trustProxy: config.trustProxy,
      httpsPort: () => (httpsServer?.address() as AddressInfo | null)?.port ?? config.port,
      ready: () => bothReady(database, readDatabase),
    };
    const started = await warmedApp(appDeps, logger, (handler) => {
      httpsServer = connections.createHttpsServer(tls, keptAnswers.before(handler));
      return httpsServer as unknown as HttpServer;
    });
    app = started;
    await listenHttps(config, started);
    const httpsPort = (httpsServer!.address() as AddressInfo).port;
    httpServer = connections.createHttpServer(keptAnswers.before(started.routing));
    const httpPort = await listenPlain(config, httpServer);
    metricsListener = await primaryMetricsListener(config, metrics);
    const shownHost = ["0.0.0.0", "::", ""].includes(config.host) ? "localhost" : config.host;
    return {
      httpsUrl: `https://${shownHost}:${httpsPort}`,
      httpUrl: `http://${shownHost}:${httpPort}`,
      certPath: tls.certPath,
      metricsUrl: metricsListener?.url,
      stop: async () => {
        await metricsListener?.close();
        // Every request on an open connection answered (Connection: close), every connection closed.
        await connections.drain();
        await started.close();
        // Unused leased hits back to the shared counters, and the last usage written.
        await rateLimiter.close();
        await closeStores(notices, database, readDatabase);
      },
    };
  } catch (err) {
    // Nothing stays up in part: a listener already bound closes with the databases.
    httpServer?.close();
    await metricsListener?.close();
    try {
      await app?.close();
    } catch {
      // The error that stopped the start is the one to report.
    }
    await closeStores(notices, database, readDatabase);
    throw err;
  }
}

/** One of the server's listeners, as its errors name it. */
interface Listener {
  /** "HTTPS" or "plain HTTP". */
  what: string;
  /** The option that chose the port. */
  option: "--port" | "--http-port" | "--metrics-port";
  /** The option that chose the address; `--host` unless given. */
  hostOption?: "--metrics-host";
  host: string;
  port: number;
}

/** `server.listen`, resolving once listening and rejecting with the error that kept it from it. */
function listen(server: HttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve();
    });
  });
}

/**
 * Runs `start` (a listen), turning a failure to bind into an error that names the address, the
 * option that chose it and what to do, such as `cannot listen for plain HTTP on 127.0.0.1:8080
 * (--http-port 8080): the port is already in use; stop what holds it or choose another with
 * --http-port`.
 */
async function listenOrExplain(start: () => Promise<unknown>, listener: Listener): Promise<void> {
  try {
    await start();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === "EADDRINUSE"
        ? `the port is already in use; stop what holds it or choose another with ${listener.option}`
        : code === "EACCES"
          ? `permission denied (ports below 1024 need privileges); choose another with ${listener.option}`
          : code === "EADDRNOTAVAIL"
            ? `${listener.host} is not an address of this machine; choose another with ${listener.hostOption ?? "--host"}`
            : (code ?? (err instanceof Error ? err.message : String(err)));
    const host = listener.host.includes(":") ? `[${listener.host}]` : listener.host;
    throw new Error(
      `cannot listen for ${listener.what} on ${host}:${listener.port} (${listener.option} ${listener.port}): ${reason}`,
    );
  }
}

/** The PostgreSQL pools the metrics report: the primary's and, with `--db-read-url`, the replica's. */
function poolsOf(database: Database, readDatabase: Database): MetricsSources["pools"] {
  return [...new Set([database, readDatabase])].flatMap((opened) =>
    opened.dialect === "postgres"
      ? [{ database: opened === database ? "primary" : "read", pool: opened.pool }]
      : [],
  );
}

/** The metrics listener, once bound. */
interface MetricsListener {
  /** `http://HOST:PORT/metrics`, with the port bound (`--metrics-port 0` picks one). */
  url: string;
  /** Stops listening and drops open scrape connections. */
  close(): Promise<void>;
}

/**
 * With `--metrics-port`, binds the metrics listener (plain HTTP, no key) on `--metrics-host`,
 * loopback by default, answering scrapes with `exposition`; without it, nothing (undefined).
 */
async function listenForMetrics(
  config: ServeConfig,
  exposition: () => Promise<MetricsExposition>,
): Promise<MetricsListener | undefined> {
  const { metricsPort: port, metricsHost: host } = config;
  if (port === undefined) return undefined;
  const server = createMetricsServer(exposition);
  await listenOrExplain(() => listen(server, port, host), {
    what: "metrics",
    option: "--metrics-port",
    hostOption: "--metrics-host",
    host,
    port,
  });
  const shownHost = ["0.0.0.0", "::", ""].includes(host)
    ? "localhost"
    : host.includes(":")
      ? `[${host}]`
      : host;
  return {
    url: `http://${shownHost}:${(server.address() as AddressInfo).port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
