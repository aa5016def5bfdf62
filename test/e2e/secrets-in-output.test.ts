/**
 * No secret in anything a run writes or answers (issue 16, item 2): the server and the CLI are run
 * on each dialect with known secrets (the database password, the key-hashing secret, an API key,
 * the upstream's key and password), everything they print and every answer the server gives is
 * kept, and none of the secrets may be found in it. The SQLite files, which hold the key-hashing
 * secret, are created readable by their owner only.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmod, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openDatabase } from "../../src/store/open-database.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { type CliResult, runCli } from "../support/cli.js";
import { DIALECTS, type Dialect, freshDatabase } from "../support/dialects.js";
import { fetchRaw, type TestResponse } from "../support/https-client.js";
import { rawRequest } from "../support/raw-request.js";
import { localServeFlags, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

/** A secret no output could hold by chance. */
function secret(label: string): string {
  return `${label}${randomBytes(12).toString("hex")}`;
}

/** Everything a run wrote or received, by where it came from. */
class Haystack {
  private readonly pieces: Array<{ source: string; text: string }> = [];

  add(source: string, text: string): void {
    this.pieces.push({ source, text });
  }

  addCli(source: string, result: CliResult, options: { keyLine?: boolean } = {}): void {
    // `keys create` prints the new key, by design, alone on its last line: everything else counts.
    const stdout = options.keyLine
      ? result.stdout.trimEnd().split("\n").slice(0, -1).join("\n")
      : result.stdout;
    this.add(`${source} (stdout)`, stdout);
    this.add(`${source} (stderr)`, result.stderr);
  }

  addAnswer(source: string, answer: TestResponse): void {
    this.add(source, `${answer.status}\n${JSON.stringify(answer.headers)}\n${answer.body}`);
  }

  /** Fails naming each piece that holds one of `secrets`, with the text around it. */
  assertHoldsNone(secrets: Record<string, string>): void {
    const found: string[] = [];
    for (const [name, value] of Object.entries(secrets)) {
      for (const piece of this.pieces) {
        const at = piece.text.indexOf(value);
        if (at !== -1)
          found.push(`${name} in ${piece.source}: ...${piece.text.slice(Math.max(0, at - 120), at + 80)}...`);
      }
    }
    assert.deepEqual(found, [], found.join("\n\n"));
  }
}

/** A fresh database of the dialect; a PostgreSQL one is reached with `password` in its URL. */
async function databaseWithPassword(dialect: Dialect, directory: string, name: string, password: string) {
  if (dialect === "sqlite") return join(directory, `${name}.db`);
  // The test cluster trusts local connections, so the password is not checked; it is given in the
  // URL all the same, as an operator would, and must never be shown.
  const url = new URL(await freshDatabase("postgres"));
  url.password = password;
  return url.toString();
}

/** The mode bits of every file of a SQLite database (`ftcapi.db`, its -wal, -shm and counter files). */
async function sqliteFileModes(directory: string, base: string): Promise<Record<string, string>> {
  const modes: Record<string, string> = {};
  for (const name of (await readdir(directory)).filter((file) => file.startsWith(base)).sort()) {
    modes[name] = ((await stat(join(directory, name))).mode & 0o777).toString(8);
  }
  return modes;
}

describe("no secret in output, logs or answers", () => {
  for (const dialect of DIALECTS) {
    it(`${dialect}: the server, its answers and the CLI show none of the secrets they were given`, async () => {
      const directory = await makeTempDirectory();
      const secrets: Record<string, string> = {
        "database password": secret("dbpw"),
        "configured key secret": secret("keysecret-configured-"),
        "upstream password": secret("upw"),
      };
      const seen = new Haystack();
      const db = await databaseWithPassword(dialect, directory, "ftcapi", secrets["database password"]!);

      const csv = join(directory, "notices.csv");
      const generated = await runCli(["generate", "notices", "--rows", "30", "--seed", "4", "--out", csv]);
      assert.equal(generated.code, 0, generated.stderr);
      const imported = await runCli(["import", "notices", "--db", db, csv]);
      seen.addCli("import notices", imported);
      assert.equal(imported.code, 0, imported.stderr);
      const created = await runCli(["keys", "create", "--db", db, "--email", "owner@example.com"]);
      seen.addCli("keys create", created, { keyLine: true });
      assert.equal(created.code, 0, created.stderr);
      const key = created.stdout.trim().split("\n").at(-1)!;
      secrets["API key"] = key;

      // The key-hashing secret the first command made and kept in the database.
      const database = openDatabase(db);
      try {
        const stored = await new SettingsStore(database).get("api_key_hmac_secret");
        assert.ok(stored, "the key-hashing secret is kept in the database");
        secrets["stored key secret"] = stored;
      } finally {
        await database.close();
      }

      for (const [source, args] of [
        [
          "keys create --key-secret",
          [
            "keys",
            "create",
            "--db",
            db,
            "--email",
            "other@example.com",
            "--key-secret",
            secrets["configured key secret"]!,
          ],
        ],
        ["keys list", ["keys", "list", "--db", db]],
        ["keys usage", ["keys", "usage", key.slice(0, 6), "--db", db]],
        ["keys disable (no such key)", ["keys", "disable", "zzzzzz", "--db", db]],
        ["import (no such file)", ["import", "dnc", "--db", db, join(directory, "missing.csv")]],
        [
          "keys list (unreachable PostgreSQL)",
          ["keys", "list", "--db", `postgres://ftcapi:${secrets["database password"]}@127.0.0.1:1/ftcapi`],
        ],
        [
          "mirror (an upstream that is not http(s))",
          [
            "mirror",
            "--upstream",
            `ftp://mirror:${secrets["upstream password"]}@127.0.0.1/`,
            "--api-key",
            key,
          ],
        ],
        [
          "serve (unreachable PostgreSQL)",
          [
            "serve",
            ...localServeFlags(`postgres://ftcapi:${secrets["database password"]}@127.0.0.1:1/ftcapi`),
          ],
        ],
      ] as const) {
        seen.addCli(source, await runCli([...args]), { keyLine: source === "keys create --key-secret" });
      }

      const server = await startServeProcess(localServeFlags(db, "--log-level", "debug"), 60_000, directory);
      let stopped = false;
      try {
        if (dialect === "postgres")
          assert.match(
            server.output(),
            /ftcapi is serving postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+/,
          );
        const ca = await readFile(server.certPath!, "utf8");
        const https = server.httpsUrl;
        const notices = "/v0/hsr-early-termination-notices";
        const targets = [
          `/v0/dnc-complaints?api_key=${key}&items_per_page=1`,
          `/v0/dnc-complaints?api_key=${key}&items_per_page=abc`,
          `/v0/dnc-complaints?api_key=${key}&bogus=1`,
          `/v0/dnc-complaints?api_key=${key}&api_key=${key}`,
          `/v0/dnc-complaints?api%5Fkey=${key}&items_per_page=1`,
          `/v0/dnc-complaints?api_key=${key}x`,
          `/v0/dnc-complaints/no-such-id?api_key=${key}`,
          `${notices}?api_key=${key}&page[limit]=2&sort=-date`,
          `${notices}?api_key=${key}&filter[nope]=1`,
          `${notices}?api_key=${key}&sort=bogus`,
          `${notices}/no-such-id?api_key=${key}`,
          `${notices}/%?api_key=${key}`,
          `/v0/nothing-here?api_key=${key}`,
          `/v0/status?api_key=${key}`,
          `/v0/status?api_key=${key}&extra=1`,
          `/openapi.json?api_key=${key}`,
          `/health/live?api_key=${key}`,
          `/health/ready?api_key=${key}`,
          `/signup?api_key=${key}`,
          `${https}/v0/dnc-complaints?api_key=${key}&items_per_page=1`,
        ];
        for (const target of targets) {
          for (const origin of [https, server.httpUrl]) {
            seen.addAnswer(`GET ${origin}${target}`, await rawRequest(origin, target, { ca }));
          }
        }
        for (const method of ["POST", "OPTIONS", "DELETE"]) {
          seen.addAnswer(
            `${method} /v0/dnc-complaints?api_key=`,
            await rawRequest(https, `/v0/dnc-complaints?api_key=${key}`, { ca, method }),
          );
        }
        for (const origin of [https, server.httpUrl]) {
          seen.addAnswer(
            `GET ${origin} with X-Api-Key`,
            await fetchRaw(`${origin}/v0/dnc-complaints?items_per_page=zz`, {
              ca,
              headers: { "X-Api-Key": key },
            }),
          );
        }

        // Mirror this server into another database: the upstream key by flag and by variable, the
        // upstream's password in its URL; then a key the upstream refuses.
        const mirrorDb = await databaseWithPassword(
          dialect,
          directory,
          "mirror",
          secrets["database password"]!,
        );
        const upstream = new URL(https);
        upstream.username = "mirror";
        upstream.password = secrets["upstream password"]!;
        const mirrorFlags = [
          "--upstream",
          upstream.toString(),
          "--ca",
          server.certPath!,
          "--collection",
          "notices",
        ];
        const mirrored = await runCli(["mirror", ...mirrorFlags, "--db", mirrorDb, "--api-key", key]);
        seen.addCli("mirror", mirrored);
        assert.equal(mirrored.code, 0, mirrored.stderr);
        seen.addCli(
          "mirror (key in the environment)",
          await runCli(["mirror", ...mirrorFlags, "--db", mirrorDb], {
            env: { FTCAPI_UPSTREAM_API_KEY: key },
          }),
        );
        const refused = await runCli(["mirror", ...mirrorFlags, "--db", mirrorDb, "--retries", "0"], {
          env: { FTCAPI_UPSTREAM_API_KEY: `${key}x` },
        });
        seen.addCli("mirror (refused key)", refused);
        assert.equal(refused.code, 1, refused.stdout);

        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(await server.stop(), 0);
        stopped = true;
        seen.add("serve (stdout)", server.output());
        seen.add("serve (stderr)", server.errorOutput());
        assert.match(server.output(), /"statusCode":200/, "requests were logged");
      } finally {
        if (!stopped) await server.stop();
      }
      seen.assertHoldsNone(secrets);

      if (dialect === "sqlite") {
        const modes = await sqliteFileModes(directory, "ftcapi.db");
        assert.ok(Object.keys(modes).length >= 2, JSON.stringify(modes));
        for (const [file, mode] of Object.entries(modes)) assert.equal(mode, "600", `${file} is ${mode}`);
      }
    });
  }

  it("SQLite: serve creates its database files 0600, and leaves an existing file's mode as it is", async () => {
    const directory = await makeTempDirectory();
    const server = await startServeProcess(localServeFlags(join(directory, "new.db")), 60_000, directory);
    assert.equal(await server.stop(), 0);
    const created = await sqliteFileModes(directory, "new.db");
    assert.ok("new.db" in created && "new.db-counters" in created, JSON.stringify(created));
    for (const [file, mode] of Object.entries(created)) assert.equal(mode, "600", `${file} is ${mode}`);

    // An operator's choice (here: readable by the group for backups) is kept, neither widened nor changed.
    const existing = join(directory, "existing.db");
    await writeFile(existing, "");
    await chmod(existing, 0o640);
    const listed = await runCli(["keys", "list", "--db", existing]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal((await sqliteFileModes(directory, "existing.db"))["existing.db"], "640");
  });
});
