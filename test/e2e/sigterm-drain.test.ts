/**
 * SIGTERM drains (issue 16, item 6): under load on 20 kept-alive connections, every request already
 * on a connection when the signal arrives, and every request sent on an open connection 1 to 10 ms
 * after it, is answered (200; once the process serving it heard the signal, with `Connection:
 * close`, after which the client sends nothing more on it); then the process exits 0. Half the connections send requests back to back through the signal; the other half
 * pause just before it, idle and kept alive, and send theirs 1 to 10 ms after it. Nothing is
 * retried: a request on a connection the server closed counts as failed.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { type RawAnswer, RawConnection } from "../support/raw-connection.js";
import { importFiles } from "../support/seed.js";
import { localServeFlags, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const CONNECTIONS = 20;
/** Load before the signal, so that it lands among requests in flight. */
const LOAD_MS = 1500;
/** The drain must not wait for anything but the connections it serves. */
const EXIT_WITHIN_MS = 10_000;

async function seededDatabase(): Promise<string> {
  const directory = await makeTempDirectory();
  const db = join(directory, "ftcapi.db");
  const csv = join(directory, "complaints.csv");
  await writeComplaintCsv({ rows: 2000, days: 10, seed: 5, endSeconds: Date.UTC(2021, 6, 9) / 1000 }, csv);
  await importFiles(db, { complaints: [csv] });
  return db;
}

for (const workers of [1, 2]) {
  describe(`SIGTERM under load (${workers} worker${workers > 1 ? "s" : ""})`, () => {
    it("answers every request on an open connection, then exits 0", async () => {
      const server = await startServeProcess(
        localServeFlags(await seededDatabase(), "--workers", String(workers), "--disable-rate-limits"),
      );
      const ca = await readFile(server.certPath!, "utf8");
      const exited = new Promise<number | null>((resolve) =>
        server.child.on("exit", (code) => resolve(code)),
      );
      const connections = await Promise.all(
        Array.from({ length: CONNECTIONS }, () => RawConnection.open(server.httpsUrl, { ca })),
      );
      let signalAt: number | undefined;
      let signalled: () => void = () => {};
      const signal = new Promise<void>((resolve) => {
        signalled = resolve;
      });
      const pauseAt = performance.now() + LOAD_MS - 200;
      const failures: string[] = [];
      let answered = 0;
      let afterSignal = 0;

      const load = async (connection: RawConnection, index: number) => {
        const sentAfter = 1 + (index % 10); // ms after the signal: 1 to 10
        const pauses = index % 2 === 1;
        let keptOpenAfterSignal = 0;
        for (let request = 0; ; request++) {
          if (pauses && signalAt === undefined && performance.now() > pauseAt) await signal;
          const path = `/v0/dnc-complaints?items_per_page=${1 + ((index + request) % 50)}`;
          if (signalAt !== undefined) {
            const wait = signalAt + sentAfter - performance.now();
            if (wait > 0) await sleep(wait);
          }
          const sentAt = performance.now();
          let answer: RawAnswer;
          try {
            answer = await connection.request(server.httpsUrl, path, { "X-Api-Key": "DEMO_KEY" });
          } catch (err) {
            failures.push(`connection ${index}, request ${request}: ${(err as Error).message}`);
            return;
          }
          answered++;
          if (answer.status !== 200) failures.push(`connection ${index}: ${answer.status} ${answer.body}`);
          const sentAfterSignal = signalAt !== undefined && sentAt >= signalAt;
          if (sentAfterSignal) afterSignal++;
          // The server closes this connection now; a client would open another.
          if (answer.headers.connection?.toLowerCase() === "close") return;
          if (sentAfterSignal) {
            // Answered before the signal reached the process serving it (a worker hears it from
            // its primary): the connection stays open, so the next request must be answered too.
            if (++keptOpenAfterSignal > 500) {
              failures.push(`connection ${index}: never answered with Connection: close`);
              return;
            }
            await sleep(2);
          }
        }
      };

      const loads = connections.map((connection, index) => load(connection, index));
      await sleep(LOAD_MS);
      signalAt = performance.now();
      server.child.kill("SIGTERM");
      signalled();
      await Promise.all(loads);
      const code = await Promise.race([exited, sleep(EXIT_WITHIN_MS).then(() => "still running")]);
      for (const connection of connections) connection.destroy();
      if (code === "still running") server.child.kill("SIGKILL");

      assert.deepEqual(failures, [], `${failures.length} of ${answered + failures.length} requests failed`);
      assert.ok(answered > CONNECTIONS * 2, `only ${answered} requests answered`);
      assert.ok(afterSignal >= CONNECTIONS / 2, `only ${afterSignal} requests were sent after the signal`);
      assert.equal(code, 0, server.output());
    });
  });
}
