import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RawServeOptions, serveConfig } from "../../src/config.js";
import { startServer } from "../../src/main.js";
import { fetchRaw, type TestResponse } from "./https-client.js";
import { checkAnswersFrom, stopCheckingAnswersFrom } from "./openapi-contract.js";

export interface TestServer {
  httpsUrl: string;
  httpUrl: string;
  ca: string;
  directory: string;
  db: string;
  /** GET (or another method) over HTTPS, trusting the server's certificate. */
  get(path: string, headers?: Record<string, string>, method?: string): Promise<TestResponse>;
  stop(): Promise<void>;
}

let sharedCertificateDirectory: Promise<string> | undefined;
function _certificateDirectory(): Promise<string> {
  sharedCertificateDirectory ??= makeTempDirectory("ftcapi-cert-");
  return sharedCertificateDirectory;
}

let processDirectory: string | undefined;

/**
 * A temporary directory for one test's database and certificate, inside one directory for this
 * test process that is deleted when the process exits (tests that fail or forget to clean up
 * leave nothing behind).
 */
export async function makeTempDirectory(prefix = "ftcapi-test-"): Promise<string> {
  if (!processDirectory) {
    const directory = mkdtempSync(join(tmpdir(), "ftcapi-tests-"));
    process.on("exit", () => rmSync(directory, { recursive: true, force: true }));
    processDirectory = directory;
  }
  return mkdtemp(join(processDirectory, prefix));
}

/**
 * Starts the real server (real SQLite, real HTTPS and HTTP sockets on free ports) in this process,
 * on the database at `db` (a fresh one in a temporary directory by default).
 */
export async function startTestServer(options: RawServeOptions & { db?: string } = {}): Promise<TestServer> {
  const directory = options.db ? undefined : await makeTempDirectory();
  const db = options.db ?? join(directory!, "ftcapi.db");
  const config = serveConfig(
    { host: "127.0.0.1", port: "0", httpPort: "0", logLevel: "silent", ...options, db },
    {},
  );
  const server = await startServer(config, () => {});
  const ca = await readFile(server.certPath, "utf8");
  // Every answer the shared request helpers receive from this server is checked against /openapi.json.
  checkAnswersFrom(server.httpsUrl, server.httpUrl);
  return {
    httpsUrl: server.httpsUrl,
    httpUrl: server.httpUrl,
    ca,
    directory: directory ?? "",
    db,
    get: (path, headers = {}, method = "GET") =>
      fetchRaw(`${server.httpsUrl}${path}`, { headers, ca, method }),
    async stop() {
      stopCheckingAnswersFrom(server.httpsUrl, server.httpUrl);
      await server.stop();
      if (directory) await rm(directory, { recursive: true, force: true });
    },
  };
}
