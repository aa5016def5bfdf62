import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { SERVE_OPTIONS, type ServeOption, serveConfig } from "../../src/config.js";
import { REPO_ROOT } from "../support/cli.js";

/** The README's `ftcapi serve` table: the rows between its heading and the next heading. */
function readmeServeRows(): string[] {
  const readme = readFileSync(`${REPO_ROOT}README.md`, "utf8");
  const section = readme.slice(readme.indexOf("### `ftcapi serve`"));
  return section
    .slice(0, section.indexOf("\n#", 5))
    .split("\n")
    .filter((line) => line.startsWith("| `--"));
}

describe("serve options are said once (SERVE_OPTIONS)", () => {
  it("the README's table names every option with its variable and default", () => {
    const rows = readmeServeRows();
    for (const option of Object.values(SERVE_OPTIONS) as ServeOption[]) {
      const name = option.flag.split(" ")[0]!;
      const named = new RegExp(`[\\s\`,]${name}[\\s\`]`);
      const row = rows.find((line) => named.test(line.split(" | ")[0]!));
      assert.ok(row, `README has no row for ${name}`);
      const suffix = option.variable.replace(/^FTCAPI_DEMO_LIMIT_PER_/, "..._PER_");
      assert.ok(
        row.includes(option.variable) || row.includes(suffix),
        `${name}: ${option.variable} missing in ${row}`,
      );
      if (option.defaultText !== undefined)
        assert.ok(
          row.includes(`\`${option.defaultText}\``),
          `${name}: default ${option.defaultText} missing in ${row}`,
        );
    }
  });

  it("serveConfig's defaults are the table's", () => {
    const config = serveConfig({}, {});
    assert.equal(config.db, SERVE_OPTIONS.db.defaultText);
    assert.equal(config.host, SERVE_OPTIONS.host.defaultText);
    assert.equal(config.port, Number(SERVE_OPTIONS.port.defaultText));
    assert.equal(config.httpPort, Number(SERVE_OPTIONS.httpPort.defaultText));
    assert.equal(config.logLevel, SERVE_OPTIONS.logLevel.defaultText);
    assert.equal(config.workers, Number(SERVE_OPTIONS.workers.defaultText));
    assert.equal(config.rateLimitPerHour, Number(SERVE_OPTIONS.rateLimitPerHour.defaultText));
    assert.equal(config.rateLimitWindowSeconds, Number(SERVE_OPTIONS.rateLimitWindowSeconds.defaultText));
    assert.equal(config.demoLimitPerHour, Number(SERVE_OPTIONS.demoLimitPerHour.defaultText));
    assert.equal(config.demoLimitPerDay, Number(SERVE_OPTIONS.demoLimitPerDay.defaultText));
    assert.equal(config.signupLimitPerHour, Number(SERVE_OPTIONS.signupLimitPerHour.defaultText));
    assert.equal(config.statementTimeoutMs, Number(SERVE_OPTIONS.statementTimeoutMs.defaultText));
    assert.equal(config.maxConnections, Number(SERVE_OPTIONS.maxConnections.defaultText));
    assert.equal(config.headerTimeoutMs, Number(SERVE_OPTIONS.headerTimeoutMs.defaultText));
    assert.equal(config.keepAliveTimeoutMs, Number(SERVE_OPTIONS.keepAliveTimeoutMs.defaultText));
    assert.equal(config.metricsHost, SERVE_OPTIONS.metricsHost.defaultText);
    assert.equal(config.metricsPort, undefined, "no metrics listener unless asked for");
  });

  it("the notices are on a thread of their own unless --no-notice-thread or the variable says otherwise", () => {
    assert.equal(serveConfig({}, {}).noticeThread, true);
    assert.equal(serveConfig({ noticeThread: false }, {}).noticeThread, false);
    assert.equal(serveConfig({}, { FTCAPI_NOTICE_THREAD: "false" }).noticeThread, false);
    assert.equal(serveConfig({ noticeThread: true }, { FTCAPI_NOTICE_THREAD: "0" }).noticeThread, true);
  });

  it("the SQLite file is read into the file cache at start unless --no-warm-file-cache or the variable says otherwise", () => {
    assert.equal(serveConfig({}, {}).warmFileCache, true);
    assert.equal(serveConfig({ warmFileCache: false }, {}).warmFileCache, false);
    assert.equal(serveConfig({}, { FTCAPI_WARM_FILE_CACHE: "false" }).warmFileCache, false);
    assert.equal(serveConfig({ warmFileCache: true }, { FTCAPI_WARM_FILE_CACHE: "0" }).warmFileCache, true);
  });

  it("a variable is read when no flag is given, and the flag wins", () => {
    assert.equal(serveConfig({}, { FTCAPI_PORT: "9443" }).port, 9443);
    assert.equal(serveConfig({ port: "7443" }, { FTCAPI_PORT: "9443" }).port, 7443);
    assert.equal(serveConfig({}, { FTCAPI_METRICS_PORT: "9464" }).metricsPort, 9464);
    assert.equal(serveConfig({ metricsPort: "0" }, {}).metricsPort, 0);
    assert.throws(() => serveConfig({ metricsPort: "metrics" }, {}), /--metrics-port must be a port number/);
  });

  it("--read-threads is 0 (reads on the event loop) or at least 2 (a quick lane and a long one)", () => {
    assert.equal(serveConfig({}, {}).readThreads, 2);
    assert.equal(serveConfig({ readThreads: "0" }, {}).readThreads, 0);
    assert.equal(serveConfig({}, { FTCAPI_READ_THREADS: "3" }).readThreads, 3);
    assert.throws(
      () => serveConfig({ readThreads: "1" }, {}),
      /--read-threads must be 0 .* or at least 2; got '1'/,
    );
    assert.throws(() => serveConfig({ readThreads: "two" }, {}), /--read-threads must be a whole number/);
    assert.equal(serveConfig({}, {}).quickReadBudgetMs, 25);
    assert.throws(
      () => serveConfig({ quickReadBudgetMs: "0" }, {}),
      /--quick-read-budget-ms must be a whole number, at least 1/,
    );
  });

  it("--read-thread-cache-mb is each read thread's page cache, 4 MB unless told, at least 1", () => {
    assert.equal(serveConfig({}, {}).readThreadCacheMb, 4);
    assert.equal(serveConfig({ readThreadCacheMb: "16" }, {}).readThreadCacheMb, 16);
    assert.equal(serveConfig({}, { FTCAPI_READ_THREAD_CACHE_MB: "32" }).readThreadCacheMb, 32);
    assert.throws(
      () => serveConfig({ readThreadCacheMb: "0" }, {}),
      /--read-thread-cache-mb must be a whole number, at least 1/,
    );
  });
});
