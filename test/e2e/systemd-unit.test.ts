/**
 * The systemd unit shipped in docs/ (issue 17, item 5): it runs the server as node itself (npx and
 * npm do not pass SIGTERM on, so a stop would not drain), lets the drain finish, and
 * `systemd-analyze verify` accepts it without a warning. Where systemd-analyze is absent, the keys
 * are still checked and the verification is skipped, saying so.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { REPO_ROOT } from "../support/cli.js";
import { makeTempDirectory } from "../support/test-server.js";

const UNIT = join(REPO_ROOT, "docs/systemd/ftcapi.service");
const analyzer = spawnSync("systemd-analyze", ["--version"]).status === 0;
const NO_ANALYZER =
  "systemd-analyze is not installed (apt-get install systemd): the unit's keys are checked, not verified";

/** Every `Key=value` of a unit by section, as systemd reads them (comments and blank lines skipped). */
function unitKeys(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let section: Map<string, string[]> | undefined;
  for (const line of text.split("\n").map((raw) => raw.trim())) {
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = new Map();
      sections.set(header[1]!, section);
      continue;
    }
    const pair = /^([A-Za-z]+)=(.*)$/.exec(line);
    assert.ok(section && pair, `a Key=value line inside a section: ${line}`);
    section.set(pair[1]!, [...(section.get(pair[1]!) ?? []), pair[2]!]);
  }
  return sections;
}

/** `systemd-analyze verify FILE`: its status and what it printed (warnings go to standard error). */
function verify(file: string): { status: number | null; output: string } {
  const run = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

describe("docs/systemd/ftcapi.service", () => {
  let text: string;
  let service: Map<string, string[]>;

  before(async () => {
    text = await readFile(UNIT, "utf8");
    service = unitKeys(text).get("Service") ?? new Map();
  });

  it("starts the server as node dist/cli/ftcapi.js serve with a heap limit, never through npx or npm", async () => {
    const exec = service.get("ExecStart");
    assert.equal(exec?.length, 1, "one ExecStart");
    assert.match(exec[0]!, /^(\/usr\/bin\/env node|\/\S*\/node)( --\S+)* \S*\/dist\/cli\/ftcapi\.js serve\b/);
    // With V8's heap limit, as docs/deployment.md says (without it garbage grows the heap to gigabytes).
    assert.match(exec[0]!, / --max-old-space-size=\d+ /);
    assert.doesNotMatch(exec[0]!, /\b(npx|npm)\b/);
    const bin = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")).bin.ftcapi;
    assert.ok(exec[0]!.includes(`/${bin} `), `runs the package's bin, ${bin}`);
  });

  it("stops with SIGTERM to the main process and leaves the 30 s drain time to finish", () => {
    assert.deepEqual(service.get("KillSignal") ?? ["SIGTERM"], ["SIGTERM"]);
    assert.deepEqual(service.get("KillMode"), ["mixed"]);
    const timeout = Number(service.get("TimeoutStopSec")?.[0] ?? 90);
    assert.ok(timeout >= 35, `TimeoutStopSec ${timeout} leaves the drain its 30 s and more`);
    assert.deepEqual(service.get("Restart"), ["on-failure"]);
    assert.deepEqual(unitKeys(text).get("Install")?.get("WantedBy"), ["multi-user.target"]);
  });

  it("systemd-analyze verify accepts it without a warning", { skip: analyzer ? false : NO_ANALYZER }, () => {
    const result = verify(UNIT);
    assert.equal(result.status, 0, result.output);
    assert.equal(result.output, "", "no warning");
  });

  it("the same check refuses a broken unit (a misspelled key, a missing program)", {
    skip: analyzer ? false : NO_ANALYZER,
  }, async () => {
    const directory = await makeTempDirectory("ftcapi-systemd-");
    for (const [name, broken] of [
      ["misspelled.service", text.replace("KillMode=", "KilMode=")],
      ["missing.service", text.replace("ExecStart=/usr/bin/env node", "ExecStart=/nonexistent/node")],
    ] as const) {
      const file = join(directory, name);
      await writeFile(file, broken);
      const result = verify(file);
      assert.ok(result.status !== 0 || result.output !== "", `${name} is flagged`);
    }
  });
});
