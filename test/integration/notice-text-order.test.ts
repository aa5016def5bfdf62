import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { stringify } from "csv-stringify/sync";
import { NOTICE_CSV_HEADER } from "../../src/domain/notice.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const PATH = "/v0/hsr-early-termination-notices";

/**
 * Parties and entities whose order differs between UTF-16 code units and code points: a character
 * above U+FFFF (stored as a surrogate pair, D83D DE00) sorts after U+FF01 by code point, as both
 * databases order text, but before it by code unit, as JavaScript compares strings.
 */
const PARTIES = [
  "alpha \u{1F600} corp",
  "alpha \uFF01 corp",
  "alpha z corp",
  "alpha \u00E9 corp",
  "alpha \u{1F600}\u{1F600} corp",
  "beta",
];
/** Acquired parties without a surrogate, one of them above U+E000: compared with operands that hold one. */
const TARGETS = PARTIES.map((_, index) => (index === 1 ? "target \uFF01" : `target ${index}`));
const ENTITIES = [
  "widgets \u{1F600}",
  "widgets \uFF01",
  "widgets z",
  "widgets \u00E9",
  "gadgets \u{1F600}",
  "x",
];

/** Code-point order, as SQLite and PostgreSQL's C collation order text. */
function byCodePoint(left: string, right: string): number {
  const a = Array.from(left, (character) => character.codePointAt(0)!);
  const b = Array.from(right, (character) => character.codePointAt(0)!);
  for (let at = 0; at < Math.min(a.length, b.length); at++) if (a[at] !== b[at]) return a[at]! - b[at]!;
  return a.length - b.length;
}

for (const dialect of DIALECTS) {
  describe(`notice text in code-point order, characters above U+FFFF included (${dialect})`, () => {
    let server: TestServer;
    let key: string;

    before(async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      const csv = join(directory, "notices.csv");
      const header = NOTICE_CSV_HEADER;
      const rows = PARTIES.map((party, index) => [
        `2020${String(index).padStart(4, "0")}`,
        party,
        TARGETS[index],
        ENTITIES[index],
        "2020-01-02",
        "2020-01-03T00:00:00+00:00",
        "2020-01-03T00:00:00+00:00",
      ]);
      await writeFile(csv, stringify([header, ...rows]));
      await importFiles(db, { notices: [csv] });
      key = await createTestKey(db, { email: "t@example.com", limitPerHour: "unlimited" });
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    async function attribute(query: string, name: string): Promise<unknown[]> {
      const res = await server.get(`${PATH}?${query}`, { "X-Api-Key": key });
      assert.equal(res.status, 200, `${query}: ${res.body}`);
      return res
        .json()
        .data.map((record: { attributes: Record<string, unknown> }) => record.attributes[name]);
    }
    /** A condition's parameters; a list of values as `value[]`. */
    const condition = (field: string, operator: string, value: string | string[]) =>
      `filter[c][condition][path]=${field}&filter[c][condition][operator]=${encodeURIComponent(operator)}` +
      (Array.isArray(value)
        ? value.map((item) => `&filter[c][condition][value][]=${encodeURIComponent(item)}`).join("")
        : `&filter[c][condition][value]=${encodeURIComponent(value)}`);

    it("sorts by code point in both directions", async () => {
      const ascending = [...PARTIES].sort(byCodePoint);
      assert.deepEqual(await attribute("sort=acquiring-party", "acquiring-party"), ascending);
      assert.deepEqual(await attribute("sort=-acquiring-party", "acquiring-party"), [...ascending].reverse());
      const entities = [...ENTITIES].sort(byCodePoint);
      assert.deepEqual(
        (await attribute("sort=acquired-entities", "acquired-entities")).map((list) => (list as string[])[0]),
        entities,
      );
    });

    it("finds values by equality, range, prefix and suffix by code point", async () => {
      const parties = async (query: string) =>
        ((await attribute(`${query}&sort=acquiring-party`, "acquiring-party")) as string[]).sort(byCodePoint);
      const expected = (test: (party: string) => boolean) => PARTIES.filter(test).sort(byCodePoint);
      assert.deepEqual(await parties(condition("acquiring-party", "=", PARTIES[0]!)), [PARTIES[0]]);
      assert.deepEqual(
        await parties(condition("acquiring-party", ">", "alpha \uFFFF")),
        expected((party) => byCodePoint(party, "alpha \uFFFF") > 0),
      );
      assert.deepEqual(
        await parties(condition("acquiring-party", "<", "alpha \u{1F600} corp")),
        expected((party) => byCodePoint(party, "alpha \u{1F600} corp") < 0),
      );
      assert.deepEqual(
        await parties(condition("acquiring-party", "STARTS_WITH", "alpha \u{1F600}")),
        expected((party) => party.startsWith("alpha \u{1F600}")),
      );
      assert.deepEqual(
        await parties(condition("acquiring-party", "ENDS_WITH", "\u{1F600} corp")),
        expected((party) => party.endsWith("\u{1F600} corp")),
      );
      // Tested on every notice (no index answers NOT BETWEEN), in code points though no value holds a surrogate.
      const targets = async (query: string) =>
        ((await attribute(query, "acquired-party")) as string[]).sort(byCodePoint);
      assert.deepEqual(
        await targets(condition("acquired-party", "NOT BETWEEN", ["target 0", "target \u{1F600}"])),
        TARGETS.filter(
          (target) => byCodePoint(target, "target 0") < 0 || byCodePoint(target, "target \u{1F600}") > 0,
        ).sort(byCodePoint),
      );
      const entities = async (query: string) =>
        ((await attribute(query, "acquired-entities")) as string[][])
          .map((list) => list[0]!)
          .sort(byCodePoint);
      assert.deepEqual(
        await entities(condition("acquired-entities", "ENDS_WITH", "\u{1F600}")),
        ENTITIES.filter((entity) => entity.endsWith("\u{1F600}")).sort(byCodePoint),
      );
      assert.deepEqual(await entities(condition("acquired-entities", "ENDS_WITH", "s z")), ["widgets z"]);
    });
  });
}
