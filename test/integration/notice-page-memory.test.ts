import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const NOTICES = "/v0/hsr-early-termination-notices";

/** 60 distinct list pages of sizes from 1 notice to 50, some sorted or filtered. */
const PATHS = Array.from({ length: 60 }, (_, index) => {
  const limit = 1 + (index % 8) * 7;
  const extra = [
    "",
    "&sort=-date",
    "&sort=title",
    "&filter[title][operator]=CONTAINS&filter[title][value]=a",
  ][index % 4];
  return `${NOTICES}?page[limit]=${limit}&page[offset]=${index * 3}${extra}`;
});

for (const dialect of DIALECTS) {
  describe(`notice pages whose memory is used again once sent (${dialect})`, () => {
    let db: string;
    let key: string;

    before(async () => {
      const directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      const csv = join(directory, "notices.csv");
      const generated = await runCli(["generate", "notices", "--rows", "400", "--seed", "3", "--out", csv]);
      assert.equal(generated.code, 0, generated.stderr);
      await importFiles(db, { notices: [csv] });
      key = await createTestKey(db, { email: "page-memory@example.com", limitPerHour: "unlimited" });
    });

    for (const noticeThread of [true, false])
      it(`answers 180 page requests in flight at once each with its own page, the same as asked alone afterwards, and refuses the bad ones among them (${noticeThread ? "the notice thread" : "--no-notice-thread"})`, async () => {
        const server = await startTestServer({ db, noticeThread });
        try {
          await assertPagesApart(server, key);
        } finally {
          await server.stop();
        }
      });
  });
}

/** 180 pages asked at once beside bad requests, each compared with the page asked alone afterwards. */
async function assertPagesApart(server: TestServer, key: string): Promise<void> {
  const asked = [...PATHS, ...PATHS, ...PATHS];
  const bad = [
    `${NOTICES}?page[limit]=many`,
    `${NOTICES}?filter[nosuchfield]=1`,
    `${NOTICES}?sort=nosuchfield`,
  ];
  const [together, refused] = await Promise.all([
    Promise.all(asked.map((path) => server.get(path, { "X-Api-Key": key }))),
    Promise.all(bad.map((path) => server.get(path, { "X-Api-Key": key }))),
  ]);
  for (const [index, res] of refused.entries()) assert.equal(res.status, 400, `${bad[index]}: ${res.body}`);
  for (const [index, path] of PATHS.entries()) {
    const alone = await server.get(path, { "X-Api-Key": key });
    assert.equal(alone.status, 200, alone.body);
    const limit = Number(new URLSearchParams(path.slice(path.indexOf("?"))).get("page[limit]"));
    assert.ok(alone.json().data.length <= limit);
    for (const round of [0, 1, 2]) {
      const res = together[round * PATHS.length + index]!;
      assert.equal(res.status, 200, res.body);
      assert.equal(res.body, alone.body, `${path}, asked with the others (round ${round})`);
    }
  }
}
