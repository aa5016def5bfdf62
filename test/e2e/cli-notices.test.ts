import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import {
  cliEntry,
  createKeyWithCli,
  generatedOnce,
  REPO_ROOT,
  reportedPeakMegabytes,
  runCli,
} from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { makeTempDirectory, startTestServer } from "../support/test-server.js";

const HEADER = "transaction_number,acquiring_party,acquired_party,acquired_entities,date,created,updated";
const PATH = "/v0/hsr-early-termination-notices";

/** Notices in the large file: enough that holding the file, or its records, in memory would show. */
const LARGE_ROWS = 100_000;
/**
 * Allowed growth of the peak resident memory from a 300-row file to the large one. A streaming
 * import still fills fixed-size buffers a small file never does: SQLite's write cache (16 MB) and
 * the temporary store's (8 MB), V8's heap slack; measured at about 110 MB on SQLite (built, 81 MB
 * for 300 notices, 193 MB for 100,000, 200 MB for 200,000, 219 MB for 600,000) and 70 MB on
 * PostgreSQL. Reading the file whole, as the importer once did, costs about 570 MB more for
 * 200,000 notices, so about 285 MB for this file.
 */
const PEAK_GROWTH_LIMIT_MB = 200;

/** The large generated CSV, made once for every dialect. */
async function largeCsv(): Promise<string> {
  return generatedOnce("notices", LARGE_ROWS, await makeTempDirectory());
}

/**
 * Notices in the file an import is killed inside: enough that writing them into a collection that
 * is not empty takes several times the two seconds the test waits (about 8 s on SQLite here).
 */
const KILLED_ROWS = 40_000;

/** A saved page of the live list, as a client would have stored it. */
const LIVE_PAGE = {
  jsonapi: { version: "1.0", meta: { links: { self: { href: "http://jsonapi.org/format/1.0/" } } } },
  data: [
    {
      type: "early_termination_notice",
      id: "0254a428-d492-4d98-8bc6-e704bad804b7",
      links: {
        self: {
          href: "https://www.ftc.gov/v0/hsr-early-termination-notices/0254a428-d492-4d98-8bc6-e704bad804b7?resourceVersion=id%3A2358",
        },
      },
      attributes: {
        title: "20110718: Carl C. Icahn; Blockbuster Inc. - Debtor-in-Possession",
        created: "2013-09-24T20:05:39+00:00",
        updated: "2013-09-24T22:22:27+00:00",
        "acquired-party": "Blockbuster Inc. - Debtor-in-Possession",
        "acquiring-party": "Carl C. Icahn",
        date: "2011-04-11",
        "acquired-entities": ["Blockbuster Inc. - Debtor-in-Possession"],
        "transaction-number": "20110718",
      },
      relationships: { node_type: { data: null }, feeds_item: { data: [] } },
    },
    {
      type: "early_termination_notice",
      id: "633b56f1-a499-4ac5-903d-7e46427563f7",
      links: {
        self: {
          href: "https://www.ftc.gov/v0/hsr-early-termination-notices/633b56f1-a499-4ac5-903d-7e46427563f7?resourceVersion=id%3A2359",
        },
      },
      attributes: {
        title: "20110728: Charles W. Ergen; Blockbuster Inc. - Debtor-in-Possession",
        created: "2013-09-24T20:05:39+00:00",
        updated: "2013-09-24T22:22:27+00:00",
        "acquired-party": "Blockbuster Inc. - Debtor-in-Possession",
        "acquiring-party": "Charles W. Ergen",
        date: "2011-04-08",
        "acquired-entities": ["Blockbuster Inc. - Debtor-in-Possession"],
        "transaction-number": "20110728",
      },
      relationships: {},
    },
  ],
  meta: { count: 2 },
  links: { self: { href: "https://www.ftc.gov/v0/hsr-early-termination-notices" } },
};

describe("ftcapi generate notices", () => {
  let directory: string;
  before(async () => {
    directory = await makeTempDirectory();
  });

  const generate = async (name: string, ...flags: string[]) => {
    const out = join(directory, name);
    const result = await runCli(["generate", "notices", "--out", out, ...flags]);
    assert.equal(result.code, 0, result.stderr);
    return readFile(out);
  };
  const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

  it("is deterministic for its arguments", async () => {
    const first = await generate("a.csv", "--rows", "2000", "--seed", "5");
    const again = await generate("b.csv", "--rows", "2000", "--seed", "5");
    const other = await generate("c.csv", "--rows", "2000", "--seed", "6");
    assert.equal(sha(first), sha(again));
    assert.notEqual(sha(first), sha(other));
  });

  it("writes realistic notices in the import format", async () => {
    const bytes = await generate("texture.csv", "--rows", "28000", "--seed", "1");
    assert.ok(bytes.toString("utf8").startsWith(`${HEADER}\n`));
    const rows: string[][] = parse(bytes, { from_line: 2 });
    assert.equal(rows.length, 28_000);
    const share = (test: (row: string[]) => boolean) => rows.filter(test).length / rows.length;
    assert.equal(new Set(rows.map((row) => row[0])).size, rows.length, "transaction numbers are unique");
    let previous = "";
    for (const [transaction, acquiring, acquired, entities, date, created, updated] of rows as string[][]) {
      assert.match(transaction!, /^(199[89]|20[0-2]\d)\d{4,}$/, "the filing year, then a sequence");
      assert.ok(date! >= "1999-01-01" && date! <= "2021-02-05", date);
      assert.ok(date! >= previous, "in date order");
      previous = date!;
      assert.ok(acquiring && acquired && entities);
      assert.ok(!entities!.split(";").some((entity) => entity.trim() === ""));
      assert.match(created!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
      assert.ok(updated! >= created!);
      assert.ok(Number(transaction!.slice(0, 4)) <= Number(date!.slice(0, 4)));
    }
    const years = new Set(rows.map((row) => row[4]!.slice(0, 4)));
    assert.ok(years.has("1999") && years.has("2020"), "1999 to 2021");
    const several = share((row) => row[3]!.includes(";"));
    assert.ok(several > 0.1 && several < 0.5, `several entities on some: ${several}`);
    const people = share((row) => /^[A-Z][a-z]+ ([A-Z]\. )?[A-Z][a-z]+$/.test(row[1]!));
    assert.ok(people > 0.1 && people < 0.4, `individuals as acquirers: ${people}`);
    assert.ok(share((row) => row[2]!.endsWith(" - Debtor-in-Possession")) > 0.01);
    assert.ok(share((row) => /, L\.P\.$/.test(row[1]!)) > 0.05, "funds");
    assert.ok(share((row) => row[5]!.startsWith("2013-09-24")) > 0.4, "the 2013 bulk load of older notices");
  });
});

for (const dialect of DIALECTS) {
  describe(`ftcapi import notices (${dialect})`, () => {
    let directory: string;
    before(async () => {
      directory = await makeTempDirectory();
    });

    it("imports JSON:API pages and CSV; re-importing changes nothing; a changed notice gets a new revision", async () => {
      const db = await freshDatabase(dialect);
      const csv = join(directory, "notices.csv");
      assert.equal(
        (await runCli(["generate", "notices", "--rows", "300", "--seed", "3", "--out", csv])).code,
        0,
      );
      const page = join(directory, "page.json");
      await writeFile(page, JSON.stringify(LIVE_PAGE, null, 2));
      const first = await runCli(["import", "notices", "--db", db, csv, page]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(
        first.stdout,
        /notices\.csv \(csv\): 300 notices, 300 added, 0 changed, 0 unchanged, 0 rejected/,
      );
      assert.match(first.stdout, /page\.json \(json\): 2 notices, 2 added/);
      assert.match(first.stdout, /total: 2 of 2 files, 302 notices, 302 added/);
      const again = await runCli(["import", "notices", "--db", db, csv, page]);
      assert.match(
        again.stdout,
        /total: 2 of 2 files, 302 notices, 0 added, 0 changed, 302 unchanged, 0 rejected/,
      );

      // One CSV row with a new acquired party, one with a later update time given; one JSON record retitled.
      const lines = (await readFile(csv, "utf8")).trimEnd().split("\n");
      const target: string[] = parse(lines[5]!)[0]!;
      const changedTransaction = target[0]!;
      target[2] = "Renamed Holdings, Inc.";
      const quoted = (values: string[]) =>
        values.map((value) => `"${value.replaceAll('"', '""')}"`).join(",");
      lines[5] = quoted(target);
      const timed: string[] = parse(lines[6]!)[0]!;
      const timedTransaction = timed[0]!;
      timed[1] = "Another Acquirer LLC";
      timed[6] = "2022-01-02T03:04:05+00:00";
      lines[6] = quoted(timed);
      const changedCsv = join(directory, "changed.csv");
      await writeFile(changedCsv, `${lines.join("\n")}\n`);
      const retitled = structuredClone(LIVE_PAGE);
      retitled.data[0]!.attributes.title = "20110718: Carl C. Icahn; Blockbuster Inc.";
      const changedPage = join(directory, "changed.json");
      await writeFile(changedPage, JSON.stringify(retitled));
      const started = Math.floor(Date.now() / 1000);
      const changed = await runCli(["import", "notices", "--db", db, changedCsv, changedPage]);
      assert.equal(changed.code, 0, changed.stderr);
      assert.match(changed.stdout, /changed\.csv \(csv\): 300 notices, 0 added, 2 changed, 298 unchanged/);
      assert.match(changed.stdout, /changed\.json \(json\): 2 notices, 0 added, 1 changed, 1 unchanged/);

      const key = await createKeyWithCli(db);
      const server = await startTestServer({ db });
      try {
        const get = async (query: string) => {
          const res = await server.get(`${PATH}?${query}`, { "X-Api-Key": key });
          assert.equal(res.status, 200, res.body);
          return res.json().data[0];
        };
        const renamed = await get(`filter[transaction-number]=${changedTransaction}`);
        assert.equal(renamed.attributes["acquired-party"], "Renamed Holdings, Inc.");
        assert.ok(renamed.attributes.title.endsWith("; Renamed Holdings, Inc."));
        assert.ok(renamed.links.self.href.endsWith("?resourceVersion=id%3A2"), renamed.links.self.href);
        assert.ok(Date.parse(renamed.attributes.updated) / 1000 >= started, "updated at import time");
        const later = await get(`filter[transaction-number]=${timedTransaction}`);
        assert.equal(later.attributes.updated, "2022-01-02T03:04:05+00:00", "the file's later update time");
        assert.ok(later.links.self.href.endsWith("id%3A2"));
        const live = await get("filter[id]=0254a428-d492-4d98-8bc6-e704bad804b7");
        assert.equal(live.attributes.title, "20110718: Carl C. Icahn; Blockbuster Inc.");
        assert.ok(live.links.self.href.endsWith("?resourceVersion=id%3A2359"), "the live revision, plus one");
        const untouched = await get("filter[id]=633b56f1-a499-4ac5-903d-7e46427563f7");
        assert.ok(
          untouched.links.self.href.endsWith("?resourceVersion=id%3A2359"),
          "the live revision is kept",
        );
        assert.equal(untouched.attributes.updated, "2013-09-24T22:22:27+00:00");
        assert.deepEqual(untouched.attributes.tags, []);
      } finally {
        await server.stop();
      }
    });

    it("reports unreadable rows with file and line and counts them; --strict writes nothing of the file", async () => {
      const file = join(directory, "messy.csv");
      await writeFile(
        file,
        [
          HEADER,
          "20110718,Carl C. Icahn,Blockbuster Inc.,Blockbuster Inc.,2011-04-11,2013-09-24T20:05:39+00:00,2013-09-24T22:22:27+00:00",
          "2011X,Someone,Something,Something,2011-04-11,2013-09-24T20:05:39+00:00,",
          "20110719,Someone,Something,Something,2011-02-30,2013-09-24T20:05:39+00:00,",
          "20110720,Someone,Something",
          "20110721,Someone,Something,Something,2011-04-11,yesterday,",
          "20110722,Someone,Something,Something,2011-04-11,2013-09-24T20:05:39+00:00,2012-01-01T00:00:00+00:00",
          '20110718,Carl C. Icahn,"Blockbuster, again",Blockbuster Inc.,2011-04-11,2013-09-24T20:05:39+00:00,',
          '20110723,"Two; Entities Corp.",Target Co.,"Target Co.; Target Sub LLC ;",,2013-09-25 10:00:00,',
          "",
        ].join("\r\n"),
      );
      const db = await freshDatabase(dialect);
      const result = await runCli(["import", "notices", "--db", db, file]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /8 notices, 2 added, 0 changed, 0 unchanged, 6 rejected/);
      assert.match(result.stderr, /messy\.csv:3: transaction_number must be digits/);
      assert.match(result.stderr, /messy\.csv:4: date is not a date as YYYY-MM-DD: '2011-02-30'/);
      assert.match(result.stderr, /messy\.csv:5: expected 7 fields, found 3/);
      assert.match(result.stderr, /messy\.csv:6: created is not a time/);
      assert.match(result.stderr, /messy\.csv:7: updated .* is before created/);
      assert.match(result.stderr, /messy\.csv:8: transaction 20110718 .*already given on line 2/);

      const key = await createKeyWithCli(db);
      const server = await startTestServer({ db });
      try {
        const res = await server.get(`${PATH}?filter[transaction-number]=20110723`, { "X-Api-Key": key });
        const [record] = res.json().data;
        assert.deepEqual(record.attributes["acquired-entities"], ["Target Co.", "Target Sub LLC"]);
        assert.equal(record.attributes.date, null);
        assert.equal(record.attributes.created, "2013-09-25T10:00:00+00:00");
        assert.equal(record.attributes.updated, "2013-09-25T10:00:00+00:00");
      } finally {
        await server.stop();
      }

      const strictDb = await freshDatabase(dialect);
      const strict = await runCli(["import", "notices", "--strict", "--db", strictDb, file]);
      assert.equal(strict.code, 1);
      assert.match(strict.stderr, /error: .*messy\.csv: line 3: .*nothing of this file was written/);
      const afterwards = await runCli(["import", "notices", "--db", strictDb, file]);
      assert.match(afterwards.stdout, /2 added/, "the strict run wrote nothing");
    });

    it("streams a large CSV: peak memory stays near a small file's", async (t) => {
      const large = await largeCsv();
      const small = join(directory, "small.csv");
      assert.equal(
        (await runCli(["generate", "notices", "--rows", "300", "--seed", "9", "--out", small])).code,
        0,
      );
      const smallRun = await runCli([
        "import",
        "notices",
        "--report-memory",
        "--db",
        await freshDatabase(dialect),
        small,
      ]);
      assert.equal(smallRun.code, 0, smallRun.stderr);
      const largeRun = await runCli([
        "import",
        "notices",
        "--report-memory",
        "--db",
        await freshDatabase(dialect),
        large,
      ]);
      assert.equal(largeRun.code, 0, largeRun.stderr);
      assert.match(
        largeRun.stdout,
        new RegExp(`${LARGE_ROWS} notices, ${LARGE_ROWS} added, 0 changed, 0 unchanged, 0 rejected`),
      );
      const smallMegabytes = reportedPeakMegabytes(smallRun.stderr);
      const largeMegabytes = reportedPeakMegabytes(largeRun.stderr);
      t.diagnostic(`peak RSS: ${smallMegabytes} MB for 300 notices, ${largeMegabytes} MB for ${LARGE_ROWS}`);
      assert.ok(
        largeMegabytes < smallMegabytes + PEAK_GROWTH_LIMIT_MB,
        `peak ${largeMegabytes} MB for the large file against ${smallMegabytes} MB for a small one`,
      );
    });

    it("reports a transaction given twice in a file with both lines, across batches and re-imports; --strict rolls back the whole file", async () => {
      const file = join(directory, "repeated.csv");
      assert.equal(
        (await runCli(["generate", "notices", "--rows", "5000", "--seed", "12", "--out", file])).code,
        0,
      );
      const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
      const repeated = (parse(lines[1]!) as string[][])[0]![0]!;
      // Line 5002 repeats line 2, several write batches later.
      await writeFile(file, `${[...lines, lines[1]!].join("\n")}\n`);
      const compressed = join(directory, "repeated.csv.gz");
      await writeFile(compressed, gzipSync(await readFile(file)));
      const db = await freshDatabase(dialect);

      const strict = await runCli(["import", "notices", "--strict", "--db", db, compressed]);
      assert.equal(strict.code, 1);
      assert.match(
        strict.stderr,
        new RegExp(
          `repeated\\.csv\\.gz: line 5002: transaction ${repeated} .*already given on line 2 \\(--strict: nothing of this file was written\\)`,
        ),
      );
      const first = await runCli(["import", "notices", "--db", db, compressed]);
      assert.equal(first.code, 0, first.stderr);
      assert.match(
        first.stdout,
        /5001 notices, 5000 added, 0 changed, 0 unchanged, 1 rejected/,
        "the strict run wrote nothing",
      );
      assert.match(
        first.stderr,
        new RegExp(`repeated\\.csv\\.gz:5002: transaction ${repeated} .*already given on line 2`),
      );
      // Unchanged the second time, and still a repeat within its file.
      const again = await runCli(["import", "notices", "--db", db, file]);
      assert.match(again.stdout, /5001 notices, 0 added, 0 changed, 5000 unchanged, 1 rejected/);
      assert.match(again.stderr, /repeated\.csv:5002: .*already given on line 2/);
    });

    it("killed with SIGKILL inside a large file leaves nothing of it; the rerun completes with nothing twice", async () => {
      const large = await generatedOnce("notices", KILLED_ROWS, await makeTempDirectory());
      // The first 200 notices of the large file: committed before the kill, unchanged in it later.
      const first = join(directory, "first.csv");
      const head = (await readFile(large, "utf8")).split("\n", 201);
      await writeFile(first, `${head.join("\n")}\n`);
      const db = await freshDatabase(dialect);
      const importer = spawn(
        process.execPath,
        [...cliEntry(), "import", "notices", "--db", db, first, large],
        { cwd: REPO_ROOT },
      );
      let output = "";
      let killed = false;
      // Killed two seconds after the first file is reported committed: some batches into the large one
      // (which takes far longer; the assertion below checks it was not done).
      const onOutput = (chunk: Buffer) => {
        output += chunk;
        if (!killed && output.includes(`imported ${first}`)) {
          killed = true;
          setTimeout(() => importer.kill("SIGKILL"), 2000);
        }
      };
      importer.stdout.on("data", onOutput);
      importer.stderr.on("data", onOutput);
      await new Promise<void>((resolve) => importer.on("exit", () => resolve()));
      assert.ok(killed, `the importer was not killed:\n${output}`);
      assert.doesNotMatch(output, /large\.csv \(csv\)/, "the large file was not reported done");

      const rerun = await runCli(["import", "notices", "--db", db, first, large]);
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(rerun.stdout, /first\.csv \(csv\): 200 notices, 0 added, 0 changed, 200 unchanged/);
      assert.match(
        rerun.stdout,
        new RegExp(
          `large\\.csv \\(csv\\): ${KILLED_ROWS} notices, ${KILLED_ROWS - 200} added, 0 changed, 200 unchanged, 0 rejected`,
        ),
        "nothing of the killed file had been written",
      );
      const key = await createKeyWithCli(db);
      const server = await startTestServer({ db });
      try {
        const res = await server.get(`${PATH}?items_per_page=1`, { "X-Api-Key": key });
        assert.equal(res.json().meta.count, KILLED_ROWS, "every notice once");
      } finally {
        await server.stop();
      }
    });

    it("refuses files that are neither format, and reports bad JSON records by line", async () => {
      const db = await freshDatabase(dialect);
      const wrong = join(directory, "wrong.csv");
      await writeFile(wrong, "Company_Phone_Number,Created_Date\r\n2025550100,2024-01-02 10:00:00\r\n");
      const broken = join(directory, "broken.json");
      await writeFile(broken, '{"data": [');
      const notJsonApi = join(directory, "plain.json");
      await writeFile(notJsonApi, '{"items": []}');
      const empty = join(directory, "empty.csv");
      await writeFile(empty, "");
      const binary = join(directory, "binary.csv");
      await writeFile(binary, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00, 0xff, 0x10]));
      const huge = join(directory, "huge.json");
      await writeFile(huge, `{"data": [${" ".repeat(65 * 1024 * 1024)}]}`);
      // One run: a refused file is reported and the others are still tried; the exit code says one failed.
      const refused = await runCli([
        "import",
        "notices",
        "--db",
        db,
        wrong,
        broken,
        notJsonApi,
        empty,
        binary,
        huge,
      ]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /wrong\.csv: not a notices file: the header is 'Company_Phone_Number,Created_Date', expected 'transaction_number,/,
      );
      assert.match(refused.stderr, /broken\.json: is not valid JSON/);
      assert.match(refused.stderr, /plain\.json: not a JSON:API document: it has no data member/);
      assert.match(refused.stderr, /empty\.csv: the file is empty/);
      assert.match(refused.stderr, /binary\.csv: holds binary data: not a notices file/);
      assert.match(
        refused.stderr,
        /huge\.json: is larger than 64 MB.*split it into pages, or give the notices as CSV/,
      );
      assert.match(refused.stdout, /total: 0 of 6 files/);
      const mixed = structuredClone(LIVE_PAGE) as any;
      mixed.data[1].type = "dnc_complaint";
      mixed.data.push({ ...structuredClone(LIVE_PAGE.data[0]), id: "not-a-uuid" });
      const page = join(directory, "mixed.json");
      await writeFile(page, JSON.stringify(mixed, null, 2));
      const result = await runCli(["import", "notices", "--db", db, page]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /3 notices, 1 added, 0 changed, 0 unchanged, 2 rejected/);
      const secondLine = JSON.stringify(mixed, null, 2)
        .split("\n")
        .findIndex((line) => line.includes("633b56f1-a499-4ac5-903d-7e46427563f7"));
      assert.match(result.stderr, new RegExp(`mixed\\.json:${secondLine + 1}: type is 'dnc_complaint'`));
      assert.match(result.stderr, /mixed\.json:\d+: id is not a UUID: 'not-a-uuid'/);
    });
  });
}
