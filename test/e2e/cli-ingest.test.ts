import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { generatedOnce, reportedPeakMegabytes, runCli } from "../support/cli.js";
import { readComplaintCsv } from "../support/complaint-rows.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { makeTempDirectory } from "../support/test-server.js";

const HEADER =
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall";

describe("ftcapi generate dnc", () => {
  let directory: string;
  before(async () => {
    directory = await makeTempDirectory();
  });

  const generate = async (name: string, ...flags: string[]) => {
    const out = join(directory, name);
    const result = await runCli(["generate", "dnc", "--out", out, ...flags]);
    assert.equal(result.code, 0, result.stderr);
    return readFile(out);
  };
  const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

  it("is deterministic for its arguments", async () => {
    const args = ["--rows", "3000", "--days", "10", "--end", "2024-01-01"];
    const first = await generate("a.csv", ...args, "--seed", "5");
    const again = await generate("b.csv", ...args, "--seed", "5");
    const other = await generate("c.csv", ...args, "--seed", "6");
    assert.equal(sha(first), sha(again));
    assert.notEqual(sha(first), sha(other));
  });

  it("writes the FTC's exact format with the real data's texture", async () => {
    const bytes = await generate(
      "texture.csv",
      "--rows",
      "20000",
      "--days",
      "30",
      "--end",
      "2024-06-01",
      "--seed",
      "9",
    );
    const text = bytes.toString("utf8");
    assert.ok(text.startsWith(`${HEADER}\r\n`));
    assert.equal(text.split("\r\n").length, 20_002, "CRLF line ends, one line a row");
    const rows = await readComplaintCsv(join(directory, "texture.csv"));
    assert.equal(rows.length, 20_000);
    const share = (test: (row: (typeof rows)[number]) => boolean) => rows.filter(test).length / rows.length;
    const emptyPhones = share((row) => row.phone === "");
    assert.ok(emptyPhones > 0.03 && emptyPhones < 0.07, `empty phones ${emptyPhones}`);
    for (const row of rows) {
      if (row.phone !== "") assert.match(row.phone, /^\d{7,15}$/);
      assert.ok(row.created >= "2024-05-02 00:00:00" && row.created < "2024-06-01 00:00:00", row.created);
      assert.match(row.violation, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00$/);
    }
    const subjects = new Set(rows.map((row) => row.subject));
    assert.equal(subjects.size, 15);
    assert.ok(subjects.has("Warranties  & protection plans"), "double spaces kept");
    assert.ok(
      text.includes('"Reducing your debt (credit cards, mortgage, student loans)"'),
      "quoted where a comma needs it",
    );
    assert.deepEqual(new Set(rows.map((row) => row.robocall)), new Set(["Y", "N", ""]));
    const byState = new Map<string, number>();
    for (const row of rows) byState.set(row.state, (byState.get(row.state) ?? 0) + 1);
    const ranked = [...byState].sort((a, b) => b[1] - a[1]);
    assert.equal(ranked[0]![0], "California");
    assert.equal(ranked[1]![0], "Texas");
    assert.ok(share((row) => row.city === "") > 0.25);
    assert.ok(
      rows.some((row) => row.city !== "" && row.city === row.city.toLowerCase()),
      "some cities in lower case",
    );
    assert.ok(share((row) => row.violation <= row.created) > 0.98);
    assert.ok(
      rows.some((row) => row.violation < "2022-06-01"),
      "violations up to years before",
    );
    assert.ok(
      rows.some((row) => row.violation > row.created),
      "and rarely after",
    );
  });
});

/** Complaints in the large file: enough that holding the file, its rows or their ids would show. */
const LARGE_ROWS = 300_000;
/**
 * Allowed growth of the peak resident memory from a 300-row file to the large one. A streaming
 * import still fills fixed-size buffers a small file never does (SQLite's 16 MB write cache, the
 * parsing thread's capped heap, V8's heap slack, the tallies of counts not yet written, which the
 * writer flushes at a fixed size). Measured with the built CLI: 84 MB for 300 rows and 170 MB for
 * 300,000 on SQLite, 181 MB since the `violated_on` and minute counts (migrations 015 and 016),
 * and 201 MB for 1.2 million; 83 and 129 MB on PostgreSQL. Since the state violation counts
 * (migration 017), 193 to 204 MB for 300,000 against 185 to 197 before, in alternating runs, and
 * 205 MB for 1.2 million against 210: the resident memory climbs while rows stream (V8's heap
 * grows until it collects), and a slightly longer write climbs a little further, to the same
 * plateau. Since the city and area code counts and the subject's violation counts (migrations
 * 029 and 030, four more tallies with about one entry a complaint each, flushed at the same
 * size), 208 to 222 MB for 300,000 against 199 to 203 MB with the build before, in alternating
 * runs (a run of the whole suite measured 213 against 88 for the small file). Since the place
 * violation counts (migration 031, two or three more entries a complaint in the same flushes),
 * 222 to 233 MB for 300,000 against 88 and 89 for 300 in four runs. Holding this file's rows as objects
 * would cost nearly twice the margin.
 */
const PEAK_GROWTH_LIMIT_MB = 150;

for (const dialect of DIALECTS) {
  describe(`ftcapi import dnc (${dialect})`, () => {
    let directory: string;
    before(async () => {
      directory = await makeTempDirectory();
    });

    it("streams a large extract: peak memory stays near a small file's", async (t) => {
      const large = await generatedOnce("dnc", LARGE_ROWS, directory);
      const small = join(directory, "small.csv");
      const made = await runCli(["generate", "dnc", "--rows", "300", "--seed", "9", "--out", small]);
      assert.equal(made.code, 0, made.stderr);
      const run = async (file: string) => {
        const result = await runCli([
          "import",
          "dnc",
          "--quiet",
          "--report-memory",
          "--db",
          await freshDatabase(dialect),
          file,
        ]);
        assert.equal(result.code, 0, result.stderr);
        return result;
      };
      const smallRun = await run(small);
      const largeRun = await run(large);
      assert.match(largeRun.stdout, new RegExp(`${LARGE_ROWS} rows, ${LARGE_ROWS} added, 0 already present`));
      const smallMegabytes = reportedPeakMegabytes(smallRun.stderr);
      const largeMegabytes = reportedPeakMegabytes(largeRun.stderr);
      t.diagnostic(
        `peak RSS: ${smallMegabytes} MB for 300 complaints, ${largeMegabytes} MB for ${LARGE_ROWS}`,
      );
      assert.ok(
        largeMegabytes < smallMegabytes + PEAK_GROWTH_LIMIT_MB,
        `peak ${largeMegabytes} MB for the large file against ${smallMegabytes} MB for a small one`,
      );
    });

    it("imports, and a second import of the same file adds nothing", async () => {
      const db = await freshDatabase(dialect);
      const csv = join(directory, "generated.csv");
      assert.equal(
        (await runCli(["generate", "dnc", "--rows", "2500", "--seed", "2", "--out", csv])).code,
        0,
      );
      const first = await runCli(["import", "dnc", "--db", db, csv]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /2500 rows, 2500 added, 0 already present, 0 rejected/);
      const progressLine = /generated\.csv: 2500 rows \(100%\), \d+ rows\/s, \d+ s elapsed/;
      assert.doesNotMatch(first.stderr, progressLine, "a short import off a terminal prints no progress");
      // Off a terminal, progress is a plain line at most every --progress-seconds.
      const again = await runCli(["import", "dnc", "--db", db, "--progress-seconds", "0", csv]);
      assert.match(again.stdout, /2500 rows, 0 added, 2500 already present, 0 rejected/);
      assert.match(again.stderr, progressLine);
      const quiet = await runCli(["import", "dnc", "--db", db, "--quiet", "--progress-seconds", "0", csv]);
      assert.doesNotMatch(quiet.stderr, progressLine);
      const refused = await runCli(["import", "dnc", "--db", db, "--progress-seconds", "soon", csv]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /--progress-seconds.*number of seconds/);
    });

    it("reads .gz files and LF line ends; an overlapping extract adds only what is new", async () => {
      const db = await freshDatabase(dialect);
      const lines = [
        "2025550100,2024-01-02 10:00:00,2024-01-01 09:00:00,Austin,Texas,512,Other,Y",
        "2025550101,2024-01-02 11:00:00,2024-01-01 09:00:00,Austin,Texas,512,Other,N",
        "2025550102,2024-01-03 11:00:00,2024-01-02 09:00:00,Dallas,Texas,214,Other,",
      ];
      const daily = join(directory, "daily.csv.gz");
      await writeFile(daily, gzipSync(`${HEADER}\n${lines.slice(0, 2).join("\n")}\n`));
      const weekly = join(directory, "weekly.csv");
      await writeFile(weekly, `${HEADER}\r\n${lines.join("\r\n")}\r\n`);
      const result = await runCli(["import", "dnc", "--db", db, daily, weekly]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /daily\.csv\.gz: 2 rows, 2 added/);
      assert.match(result.stdout, /weekly\.csv: 3 rows, 1 added, 2 already present/);
      assert.match(result.stdout, /total: 2 of 2 files, 5 rows, 3 added, 2 already present, 0 rejected/);
    });

    it("refuses a file with another header, writing nothing of it", async () => {
      const db = await freshDatabase(dialect);
      const wrong = join(directory, "wrong.csv");
      await writeFile(wrong, "phone,created\r\n2025550100,2024-01-02 10:00:00\r\n");
      const empty = join(directory, "empty.csv");
      await writeFile(empty, "");
      const binary = join(directory, "binary.csv");
      await writeFile(
        binary,
        Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x22, 0x0a, 0x22, 0x22, 0x41]),
      );
      for (const file of [wrong, empty, binary]) {
        const result = await runCli(["import", "dnc", "--db", db, file]);
        assert.equal(result.code, 1, file);
        assert.match(result.stderr, new RegExp(`error: ${file.replace(/[.]/g, "\\.")}: `));
      }
      const wrongHeader = await runCli(["import", "dnc", "--db", db, wrong]);
      assert.match(wrongHeader.stderr, /expected 'Company_Phone_Number,Created_Date/);
    });

    it("keeps identical rows far apart in an unordered file as separate complaints, once", async () => {
      const db = await freshDatabase(dialect);
      const file = join(directory, "unordered.csv");
      const copy = "5550001111,2024-01-01 00:00:05,2023-12-31 09:00:00,Austin,Texas,512,Other,Y";
      const start = Date.UTC(2024, 0, 1) / 1000;
      const rows = Array.from({ length: 60_000 }, (_, index) => {
        const created = new Date((start + index * 30) * 1000).toISOString().replace("T", " ").slice(0, 19);
        return `55500${String(index).padStart(5, "0")},${created},2023-12-31 09:00:00,Austin,Texas,512,Other,Y`;
      });
      // The second copy comes 20 days of complaints after the first, in a file otherwise in order.
      await writeFile(file, `${[HEADER, copy, "not,a,row", ...rows, copy].join("\r\n")}\r\n`);
      const first = await runCli(["import", "dnc", "--db", db, file]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /60003 rows, 60002 added, 0 already present, 1 rejected/);
      assert.equal(first.stderr.match(/unordered\.csv:3: /g)?.length, 1, "the bad row is reported once");
      const again = await runCli(["import", "dnc", "--db", db, file]);
      assert.match(again.stdout, /60003 rows, 0 added, 60002 already present, 1 rejected/);
    });

    it("reports unreadable rows with file and line, counts them, and keeps messy values as published", async () => {
      const db = await freshDatabase(dialect);
      const file = join(directory, "messy.csv");
      await writeFile(
        file,
        [
          HEADER,
          "833number,2024-01-02 10:00:00,2024-01-01 09:00:00,,Texas,512,Other,Y",
          "2025550100,yesterday,2024-01-01 09:00:00,,Texas,512,Other,Y",
          "2025550100,2024-01-02 10:00:00,2024-01-01 09:00:00,,Texas",
          "2025550100,2024-01-02 10:00:00,2024-01-01 09:00:00,,Texas,512,Other,Y",
          "",
        ].join("\r\n"),
      );
      const result = await runCli(["import", "dnc", "--db", db, file]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /4 rows, 2 added, 0 already present, 2 rejected/);
      assert.match(result.stderr, /messy\.csv:3: Created_Date is not a time/);
      assert.match(result.stderr, /messy\.csv:4: expected 8 fields, found 5/);
      const strict = await runCli(["import", "dnc", "--strict", "--db", await freshDatabase(dialect), file]);
      assert.equal(strict.code, 1);
      assert.match(strict.stderr, /line 3: .*nothing of this file was written/);
    });

    it("--strict refusing a row after thousands already written leaves nothing of the file", async () => {
      const file = join(directory, "late-bad-row.csv");
      const start = Date.UTC(2024, 0, 1) / 1000;
      const rows = Array.from({ length: 4500 }, (_, index) => {
        const created = new Date((start + index * 60) * 1000).toISOString().replace("T", " ").slice(0, 19);
        return `55501${String(index).padStart(5, "0")},${created},2023-12-31 09:00:00,Austin,Texas,512,Other,Y`;
      });
      await writeFile(
        file,
        `${[HEADER, ...rows, "2025550100,later,2024-01-01 09:00:00,,Texas,512,Other,Y"].join("\r\n")}\r\n`,
      );
      const seed = join(directory, "seed.csv");
      await writeFile(
        seed,
        `${HEADER}\r\n5550009999,2023-06-01 10:00:00,2023-06-01 09:00:00,Austin,Texas,512,Other,Y\r\n`,
      );
      // Into an empty table and into one that holds rows: the two ways a file is written.
      for (const seeded of [false, true]) {
        const db = await freshDatabase(dialect);
        if (seeded) assert.equal((await runCli(["import", "dnc", "--db", db, seed])).code, 0);
        const strict = await runCli(["import", "dnc", "--strict", "--db", db, file]);
        assert.equal(strict.code, 1, strict.stdout);
        assert.match(strict.stderr, /line 4502: .*nothing of this file was written/);
        const after = await runCli(["import", "dnc", "--db", db, file]);
        assert.equal(after.code, 0, after.stderr);
        assert.match(
          after.stdout,
          /4501 rows, 4500 added, 0 already present, 1 rejected/,
          `seeded: ${seeded}`,
        );
      }
    });

    it("treats a repeated id alike whether the database is empty (indexes built at the end) or not", async () => {
      // Ids begin with the created time, clamped to 1970; fields holding the separators the id is
      // derived through make rows B and C share an id under different created times (both before 1970).
      const [unit, record] = ["\u001f", "\u001e"];
      const [t1, t2, violation] = ["1960-01-01 00:00:00", "1950-01-01 00:00:00", "1949-01-01 00:00:00"];
      const a = [`"1${unit}${t1}"`, t2, violation, "Springfield", "Ohio", "937", "Other", "Y"];
      const b = ["1", t1, t2, `"${violation}${unit}Springfield"`, "Ohio", "937", "Other", "Y"];
      const c = [...a.slice(0, 7), `"Y${record}1"`];
      const file = join(directory, "repeated-id.csv");
      await writeFile(file, `${[HEADER, a.join(","), b.join(","), c.join(",")].join("\r\n")}\r\n`);
      const other = join(directory, "other.csv");
      await writeFile(
        other,
        `${HEADER}\r\n2025550100,2024-01-02 10:00:00,2024-01-01 09:00:00,Austin,Texas,512,Other,Y\r\n`,
      );

      const empty = await freshDatabase(dialect);
      const intoEmpty = await runCli(["import", "dnc", "--db", empty, file]);
      assert.equal(intoEmpty.code, 0, intoEmpty.stderr);
      assert.match(intoEmpty.stdout, /3 rows, 2 added, 1 already present, 0 rejected/);
      const holding = await freshDatabase(dialect);
      assert.equal((await runCli(["import", "dnc", "--db", holding, other])).code, 0);
      const intoHolding = await runCli(["import", "dnc", "--db", holding, file]);
      assert.match(intoHolding.stdout, /3 rows, 2 added, 1 already present, 0 rejected/);
      const again = await runCli(["import", "dnc", "--db", empty, file]);
      assert.match(again.stdout, /3 rows, 0 added, 3 already present, 0 rejected/);
    });
  });
}
