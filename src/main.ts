import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import type { FastifyInstance } from "fastify";
import { ensureDemoKey, loadKeySecret } from "./access/api-keys.js";
import { KeyVerifier } from "./access/key-verifier.js";
import type { ServeConfig } from "./config.js";
import { buildApp } from "./http/build-app.js";
import { createLogger } from "./http/create-logger.js";
import { loadCertificate, loadOrCreateCertificate } from "./http/tls-certificate.js";
import { loadDemoData } from "./ingest/demo-data.js";
import { ComplaintStore } from "./store/complaint-store.js";
import { type Database, openDatabase } from "./store/database.js";
import { KeyStore } from "./store/key-store.js";
import { migrate } from "./store/migrate.js";
import { SettingsStore } from "./store/settings-store.js";

export interface RunningServer {
  httpsUrl: string;
  httpUrl: string;
  certPath: string;
  /** Stops accepting, lets requests in flight finish, closes the database. */
  stop(): Promise<void>;
}

/** The composition root: config -> database -> migrations -> app -> listeners. */
export async function startServer(config: ServeConfig, log: (line: string) => void): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const database = openDatabase(config.db);
  try {
    await migrate(database);
    const complaints = new ComplaintStore(database);
    if (config.demo && (await complaints.count()) === 0) {
      log("First run: generating the demo dataset (200,000 complaints over the last 30 days)...");
      const result = await loadDemoData(database, dirname(database.location));
      log(`Demo dataset loaded: ${result.added} complaints.`);
    }
    const keyStore = new KeyStore(database);
    const secret = await loadKeySecret(new SettingsStore(database));
    await ensureDemoKey(keyStore, secret);

    const tls =
      config.tlsCert && config.tlsKey
        ? await loadCertificate(config.tlsCert, config.tlsKey)
        : await loadOrCreateCertificate(dirname(database.location));

    let httpsServer: HttpsServer | undefined;
    const app = await buildApp({
      complaints,
      keys: new KeyVerifier(keyStore, secret),
      logger,
      baseUrl: config.baseUrl,
      trustProxy: config.trustProxy,
      httpsPort: () => (httpsServer?.address() as AddressInfo | null)?.port ?? config.port,
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
      stop: () => stopServer(app, httpServer, database),
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}

async function stopServer(app: FastifyInstance, httpServer: HttpServer, database: Database): Promise<void> {
  await Promise.all([
    app.close(),
    new Promise<void>((resolve) => {
      httpServer.close(() => resolve());
      httpServer.closeIdleConnections();
    }),
  ]);
  await database.close();
}
