import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../support/cli.js";
import { startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

describe("limits across worker processes", () => {
  it("with a limit of L and 50 concurrent connections over 4 workers, exactly L requests succeed", async () => {
    const directory = await makeTempDirectory();
    const db = join(directory, "ftcapi.db");
    const created = await runCli([
      "keys",
      "create",
      "--db",
      db,
      "--email",
      "load@example.com",
      "--limit-per-hour",
      "120",
    ]);
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim().split("\n").at(-1)!;
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
      const agent = new Agent({ keepAlive: true, maxSockets: 50, ca });
      const statuses = new Map<number, number>();
      const send = () =>
        new Promise<void>((resolve, reject) => {
          const req = request(
            `${server.httpsUrl}/v0/dnc-complaints?items_per_page=1`,
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
      let remaining = 400;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (remaining > 0) {
            remaining--;
            await send();
          }
        }),
      );
      agent.destroy();
      assert.equal(statuses.get(200), 120, JSON.stringify([...statuses]));
      assert.equal(statuses.get(429), 280, JSON.stringify([...statuses]));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
