import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

/** Sends `total` keyed requests over `connections` concurrent connections, spread over the servers; counts statuses. */
async function hammer(
  urls: string[],
  key: string,
  ca: string,
  total: number,
  connections: number,
): Promise<Map<number, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, ca });
  const statuses = new Map<number, number>();
  let remaining = total;
  let sent = 0;
  const send = (url: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        `${url}/v0/dnc-complaints?items_per_page=1`,
        { agent, headers: { "X-Api-Key": key } },
        (res) => {
          res.resume();
          res.on("end", () => {
            statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
            resolve();
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (remaining > 0) {
        remaining--;
        await send(urls[sent++ % urls.length]!);
      }
    }),
  );
  agent.destroy();
  return statuses;
}

async function keyWithLimit(db: string, limit: number): Promise<string> {
  const created = await runCli([
    "keys",
    "create",
    "--db",
    db,
    "--email",
    "load@example.com",
    "--limit-per-hour",
    String(limit),
  ]);
  assert.equal(created.code, 0, created.stderr);
  return created.stdout.trim().split("\n").at(-1)!;
}

describe("limits across processes", () => {
  it("with a limit of L and 50 concurrent connections over 4 workers, exactly L requests succeed", async () => {
    const directory = await makeTempDirectory();
    const db = join(directory, "ftcapi.db");
    const key = await keyWithLimit(db, 120);
    const server = await startServeProcess([
      "--db",
      db,
      "--port",
      "0",
      "--http-port",
      "0",
      "--host",
      "127.0.0.1",
      "--workers",
      "4",
      "--log-level",
      "warn",
    ]);
    try {
      const ca = await readFile(join(directory, "tls-cert.pem"), "utf8");
      const statuses = await hammer([server.httpsUrl], key, ca, 400, 50);
      assert.equal(statuses.get(200), 120, JSON.stringify([...statuses]));
      assert.equal(statuses.get(429), 280, JSON.stringify([...statuses]));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  for (const dialect of DIALECTS) {
    it(`two serve processes on one ${dialect} database share the limit exactly`, async () => {
      const directory = await makeTempDirectory();
      const db = dialect === "sqlite" ? join(directory, "ftcapi.db") : await freshDatabase(dialect);
      const key = await keyWithLimit(db, 90);
      const tls =
        dialect === "sqlite"
          ? []
          : await (async () => {
              // Both processes need the same certificate; make it once with the first.
              const first = await startServeProcess(
                ["--db", db, "--port", "0", "--http-port", "0", "--host", "127.0.0.1"],
                60_000,
                directory,
              );
              await first.stop();
              return [
                "--tls-cert",
                join(directory, "data", "tls-cert.pem"),
                "--tls-key",
                join(directory, "data", "tls-key.pem"),
              ];
            })();
      const flags = [
        "--db",
        db,
        "--port",
        "0",
        "--http-port",
        "0",
        "--host",
        "127.0.0.1",
        "--log-level",
        "warn",
        ...tls,
      ];
      const one = await startServeProcess(flags, 60_000, directory);
      const two = await startServeProcess(flags, 60_000, directory);
      try {
        const ca = await readFile(
          dialect === "sqlite" ? join(directory, "tls-cert.pem") : join(directory, "data", "tls-cert.pem"),
          "utf8",
        );
        const statuses = await hammer([one.httpsUrl, two.httpsUrl], key, ca, 300, 50);
        assert.equal(statuses.get(200), 90, JSON.stringify([...statuses]));
        assert.equal(statuses.get(429), 210, JSON.stringify([...statuses]));
      } finally {
        assert.equal(await one.stop(), 0);
        assert.equal(await two.stop(), 0);
      }
    });
  }
});
