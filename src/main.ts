import cluster from "node:cluster";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { createKey, ensureDemoKey, loadKeySecret } from "./access/api-keys.js";
import { KeyVerifier } from "./access/key-verifier.js";
import { RateLimiter } from "./access/rate-limiter.js";
import type { ServeConfig } from "./config.js";
import { buildApp } from "./http/build-app.js";
import { CollectionFreshness } from "./http/collection-freshness.js";
import { createLogger } from "./http/create-logger.js";
import { loadCertificate, loadOrCreateCertificate, type TlsFiles } from "./http/tls-certificate.js";
import { DEMO_NOTICES, loadDemoData, loadDemoNotices } from "./ingest/demo-data.js";
import { ComplaintStore } from "./store/complaint-store.js";
import type { Database } from "./store/database.js";
import { FreshnessStore } from "./store/freshness-store.js";
import { KeyStore } from "./store/key-store.js";
import { migrate } from "./store/migrate.js";
import { NoticeStore } from "./store/notice-store.js";
import { openDatabase } from "./store/open-database.js";
import { SettingsStore } from "./store/settings-store.js";

export interface RunningServer {
  httpsUrl: string;
  httpUrl: string;
  certPath: string;
  /** Stops accepting, lets requests in flight finish, closes the database. */
  stop(): Promise<void>;
}

/**
 * Runs `serve`: in this process, or with `workers` > 1 as a node:cluster primary that prepares the
 * database and certificate once and forks workers sharing the ports. In a worker, starts that
 * worker's server and reports to the primary. The caller prints the banner when `isPrimary`.
 */
export async function serve(
  config: ServeConfig,
  log: (line: string) => void,
): Promise<RunningServer & { isPrimary: boolean }> {
  if (config.workers <= 1) return { ...(await startServer(config, log)), isPrimary: true };
  if (cluster.isWorker) {
    const server = await startServer({ ...config, demo: false }, log);
    process.send?.({ type: "listening", httpsUrl: server.httpsUrl, httpUrl: server.httpUrl });
    return { ...server, isPrimary: false };
  }
  const { certPath } = (await prepareWithoutBudget(config, log)).tls;
  return { ...(await forkWorkers(config.workers, log)), certPath, isPrimary: true };
}

async function forkWorkers(
  count: number,
  log: (line: string) => void,
): Promise<Omit<RunningServer, "certPath">> {
  let stopping = false;
  const urls = await new Promise<{ httpsUrl: string; httpUrl: string }>((resolve, reject) => {
    let listening = 0;
    cluster.on("message", (_worker, message: { type?: string; httpsUrl: string; httpUrl: string }) => {
      if (message?.type !== "listening") return;
      listening++;
      if (listening === count) resolve(message);
    });
    cluster.on("exit", (worker, code, signal) => {
      if (stopping) return;
      if (listening < count) {
        reject(new Error(`worker ${worker.process.pid} exited (${signal ?? code}) while starting`));
        return;
      }
      log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      cluster.fork();
    });
    for (let index = 0; index < count; index++) cluster.fork();
  });
  return {
    ...urls,
    async stop() {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              worker.once("exit", () => resolve());
              worker.process.kill("SIGTERM");
            }),
        ),
      );
    },
  };
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

/** The composition root: config -> database -> migrations -> app -> listeners. */
export async function startServer(config: ServeConfig, log: (line: string) => void): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const { secret, tls } = await prepareWithoutBudget(config, log);
  // Requests run under the statement budget, so that a hung or slow database answers them 503
  // within it instead of holding them for the whole outage.
  const budget = { statementTimeoutMs: config.statementTimeoutMs };
  const database = openDatabase(config.db, budget);
  const readDatabase = config.dbReadUrl ? openDatabase(config.dbReadUrl, budget) : database;
  for (const opened of new Set([database, readDatabase])) {
    if (opened.dialect === "sqlite" && !opened.hasStatementBudget)
      log(
        "Warning: the SQLite statement budget was not built (no C compiler at install); statements run unbounded.",
      );
  }
  try {
    const complaints = new ComplaintStore(readDatabase);
    const notices = new NoticeStore(readDatabase);
    const keyStore = new KeyStore(database);

    let httpsServer: HttpsServer | undefined;
    const freshness = new CollectionFreshness([complaints, notices], new FreshnessStore(readDatabase));
    const rateLimiter = new RateLimiter(database.rateLimitStore(), {
      defaultLimitPerHour: config.rateLimitPerHour,
      keyWindowSeconds: config.rateLimitWindowSeconds,
      demoLimitPerHour: config.demoLimitPerHour,
      demoLimitPerDay: config.demoLimitPerDay,
    });
    const app = await buildApp({
      complaints,
      notices,
      freshness,
      keys: new KeyVerifier(keyStore, secret),
      rateLimiter,
      limitsEnabled: config.rateLimits,
      issueKey: async (signup) => (await createKey(keyStore, secret, signup)).key,
      signupsPerHour: config.signupLimitPerHour,
      logger,
      baseUrl: config.baseUrl,
      trustProxy: config.trustProxy,
      httpsPort: () => (httpsServer?.address() as AddressInfo | null)?.port ?? config.port,
      ready: async () =>
        (await database.ready()) && (readDatabase === database || (await readDatabase.ready())),
      serverFactory: (handler) => {
        httpsServer = createHttpsServer({ cert: tls.cert, key: tls.key }, handler);
        return httpsServer as unknown as HttpServer;
      },
    });
    await app.listen({ port: config.port, host: config.host });
    const httpsPort = (httpsServer!.address() as AddressInfo).port;
    const httpServer = createHttpServer((req, res) => app.routing(req, res));
    await new Promise<void>((resolve, reject) => {
      httpServer.once("error", reject);
      httpServer.listen(config.httpPort, config.host, () => resolve());
    });
    const httpPort = (httpServer.address() as AddressInfo).port;
    const shownHost = ["0.0.0.0", "::", ""].includes(config.host) ? "localhost" : config.host;
    return {
      httpsUrl: `https://${shownHost}:${httpsPort}`,
      httpUrl: `http://${shownHost}:${httpPort}`,
      certPath: tls.certPath,
      stop: async () => {
        await stopServer(app, httpServer);
        // Unused leased hits back to the shared counters, and the last usage written.
        await rateLimiter.close();
        await database.close();
        if (readDatabase !== database) await readDatabase.close();
      },
    };
  } catch (err) {
    await database.close();
    if (readDatabase !== database) await readDatabase.close();
    throw err;
  }
}

async function stopServer(app: { close(): PromiseLike<unknown> }, httpServer: HttpServer): Promise<void> {
  await Promise.all([
    app.close(),
    new Promise<void>((resolve) => {
      httpServer.close(() => resolve());
      httpServer.closeIdleConnections();
    }),
  ]);
}
