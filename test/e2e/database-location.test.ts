import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../support/cli.js";
import { makeTempDirectory } from "../support/test-server.js";

const EXTRACT = [
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall",
  "2025550100,2024-03-20 10:00:00,2024-03-19 09:00:00,Austin,Texas,512,Other,Y",
];

describe("a --db that names no database", () => {
  it("is refused by the commands that only read or change keys, and no file is made", async () => {
    const directory = await makeTempDirectory();
    const missing = join(directory, "ftcpai.db");
    for (const args of [
      ["keys", "list"],
      ["keys", "usage", "abcdef"],
      ["keys", "delete", "abcdef"],
    ]) {
      const run = await runCli([...args, "--db", missing]);
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
      assert.match(
        run.stderr,
        new RegExp(`no database at ${missing.replace(/[.]/g, "\\.")} \\(--db or FTCAPI_DB\\)`),
      );
      assert.ok(!existsSync(missing), `${args.join(" ")} created ${missing}`);
    }
  });

  it("is created by import and keys create, which say so on stderr, once", async () => {
    const directory = await makeTempDirectory();
    const file = join(directory, "dnc.csv");
    await writeFile(file, `${EXTRACT.join("\r\n")}\r\n`);
    const imported = join(directory, "imported.db");
    const first = await runCli(["import", "dnc", "--quiet", "--db", imported, file]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, new RegExp(`creating a new database at ${imported.replace(/[.]/g, "\\.")}`));
    const again = await runCli(["import", "dnc", "--quiet", "--db", imported, file]);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /creating a new database/);
    const keyed = join(directory, "keys.db");
    const created = await runCli(["keys", "create", "--db", keyed, "--email", "new@example.com"]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /creating a new database at/);
    const listed = await runCli(["keys", "list", "--db", keyed]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /new@example\.com/);
  });
});
