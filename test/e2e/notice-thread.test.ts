/**
 * The notices on a thread of their own (`--notice-thread`, store/notice-thread.ts), over real serve
 * processes: every notice answer the same as from the event loop (pages, filters, sorts, sparse
 * fieldsets, counts, records, exports, errors), a 304 for a kept tag, and an import by another
 * process seen by the thread on the next request. Both dialects: the thread opens its own
 * connection to either.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw } from "../support/https-client.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const NOTICES = "/v0/hsr-early-termination-notices";

/** Every kind of notice answer, good and bad. */
const REQUESTS = [
  `${NOTICES}?page[limit]=3`,
  `${NOTICES}?sort=-date,title&page[offset]=20&page[limit]=7`,
  `${NOTICES}?filter[t][condition][path]=title&filter[t][condition][operator]=CONTAINS&filter[t][condition][value]=corp&page[limit]=5`,
  `${NOTICES}?filter[g][group][conjunction]=OR&filter[a][condition][path]=date&filter[a][condition][operator]=%3E&filter[a][condition][value]=2020-01-01&filter[a][condition][memberOf]=g&filter[b][condition][path]=acquiring_party&filter[b][condition][operator]=STARTS_WITH&filter[b][condition][value]=A&filter[b][condition][memberOf]=g`,
  `${NOTICES}?title=holdings&sort_by=date&sort_order=ASC&items_per_page=4&offset=2`,
  `${NOTICES}?fields[early_termination_notice]=title,date&page[limit]=2`,
  `${NOTICES}?page[offset]=100000`,
  `${NOTICES}/counts?by=year`,
  `${NOTICES}?filter[x][condition][path]=nothing&filter[x][condition][value]=1`,
  `${NOTICES}/00000000-0000-4000-8000-000000000000`,
  `${NOTICES}?format=ndjson`,
  `${NOTICES}?format=csv&filter[t][condition][path]=title&filter[t][condition][operator]=CONTAINS&filter[t][condition][value]=inc`,
];

interface Answer {
  status: number;
  body: string;
}

async function answers(server: ServeProcess, key: string, paths: readonly string[]): Promise<Answer[]> {
  const ca = await readFile(server.certPath!, "utf8");
  const result: Answer[] = [];
  for (const path of paths) {
    const res = await fetchRaw(`${server.httpsUrl}${path}`, { ca, headers: { "X-Api-Key": key } });
    // Links name the server's own address, which differs between the two servers.
    result.push({ status: res.status, body: res.body.replaceAll(server.httpsUrl, "https://server") });
  }
  return result;
}

/** The first notice's record URL and its relationship, from a page. */
function recordPaths(page: Answer): string[] {
  const id = JSON.parse(page.body).data[0].id as string;
  return [`${NOTICES}/${id}`, `${NOTICES}/${id}/relationships/node_type`, `${NOTICES}/${id.toUpperCase()}`];
}

/**
 * On Linux, whether the process has a notice thread: it runs below the event loop (niceness 10,
 * store/lower-thread-priority.ts) and the event loop's thread at the process's own (0), so one
 * thread of the process, not the main one, has niceness 10. Undefined, after saying so, where there is no /proc/<pid>/task.
 */
function hasNoticeThread(server: ServeProcess): boolean | undefined {
  const pid = server.child.pid!;
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) {
    process.stdout.write("# skipped the niceness check: no /proc/<pid>/task on this system\n");
    return undefined;
  }
  const nicenessOf = (threadId: string) => {
    const stat = readFileSync(`${tasks}/${threadId}/stat`, "utf8");
    // Fields after "(name)": state is field 3, niceness field 19.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  };
  assert.equal(nicenessOf(String(pid)), 0, "the event loop's thread keeps the process's priority");
  return readdirSync(tasks).some((threadId) => threadId !== String(pid) && nicenessOf(threadId) === 10);
}

function assertNoticeThreadNiceness(server: ServeProcess): void {
  assert.notEqual(hasNoticeThread(server), false, "one thread (the notice thread) runs at niceness 10");
}

for (const dialect of DIALECTS) {
  describe(`notices on a thread of their own (--notice-thread, ${dialect}, a real serve process)`, () => {
    it("answers every notice request as the event loop does, and sees another process's import on the next request", async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      const csv = join(directory, "notices.csv");
      const generated = await runCli(["generate", "notices", "--rows", "400", "--seed", "5", "--out", csv]);
      assert.equal(generated.code, 0, generated.stderr);
      const imported = await runCli(["import", "notices", "--quiet", "--db", db, csv]);
      assert.equal(imported.code, 0, imported.stderr);
      const key = await createKeyWithCli(db, "notice-thread@example.com", "--unlimited");

      // Built, as operators run it: the thread's entry is then the compiled file.
      const threaded = await startServeProcess(
        localServeFlags(db, "--notice-thread"),
        120_000,
        directory,
        true,
      );
      let fromThread: Answer[];
      try {
        fromThread = await answers(threaded, key, REQUESTS);
        assertNoticeThreadNiceness(threaded);
        fromThread.push(...(await answers(threaded, key, recordPaths(fromThread[0]!))));

        // A kept tag is answered 304, from the same thread's text.
        const ca = await readFile(threaded.certPath!, "utf8");
        const first = await fetchRaw(`${threaded.httpsUrl}${REQUESTS[1]}`, {
          ca,
          headers: { "X-Api-Key": key },
        });
        const again = await fetchRaw(`${threaded.httpsUrl}${REQUESTS[1]}`, {
          ca,
          headers: { "X-Api-Key": key, "If-None-Match": String(first.headers.etag) },
        });
        assert.equal(again.status, 304);

        // Another process imports more notices: the thread's next answers count them.
        const before = JSON.parse(fromThread[0]!.body).meta.count as number;
        const more = join(directory, "more.csv");
        assert.equal(
          (await runCli(["generate", "notices", "--rows", "30", "--seed", "6", "--out", more])).code,
          0,
        );
        const added = await runCli(["import", "notices", "--quiet", "--db", db, more]);
        assert.equal(added.code, 0, added.stderr);
        let after = before;
        for (let attempt = 0; attempt < 40 && after === before; attempt++) {
          if (attempt > 0) await new Promise((done) => setTimeout(done, 50));
          const [page] = await answers(threaded, key, [`${NOTICES}?page[limit]=1`]);
          after = JSON.parse(page!.body).meta.count as number;
        }
        // /v0/status counts the notices in the database, on the process's own connection.
        const [status] = await answers(threaded, key, ["/v0/status"]);
        const stored = (
          JSON.parse(status!.body).data as Array<{ attributes: { "record-count": number } }>
        )[1]!.attributes["record-count"];
        assert.ok(stored > before, "the import added notices");
        assert.equal(after, stored, "the thread saw the import");
        const [counts] = await answers(threaded, key, [`${NOTICES}/counts?by=year`]);
        const counted = (JSON.parse(counts!.body).data as Array<{ count: number }>).reduce(
          (sum, group) => sum + group.count,
          0,
        );
        assert.equal(counted, stored, "the counts saw it too");
      } finally {
        assert.equal(await threaded.stop(), 0);
      }

      const onLoop = await startServeProcess(
        localServeFlags(db, "--no-notice-thread"),
        120_000,
        directory,
        true,
      );
      try {
        // The same database, now with the later import: compare the first answers with a fresh
        // thread, the default's.
        const second = await startServeProcess(localServeFlags(db), 120_000, directory, true);
        try {
          assertNoticeThreadNiceness(second);
          const paths = [...REQUESTS, ...recordPaths(fromThread[0]!)];
          const threadedNow = await answers(second, key, paths);
          const loopNow = await answers(onLoop, key, paths);
          assert.deepEqual(threadedNow, loopNow);
          assert.ok(
            loopNow.some((answer) => answer.status === 400) &&
              loopNow.some((answer) => answer.status === 404),
            "errors were compared too",
          );
        } finally {
          assert.equal(await second.stop(), 0);
        }
      } finally {
        assert.equal(await onLoop.stop(), 0);
      }
    });

    it("starts no thread for an empty collection, and starts it with the first notice request after an import", async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      const key = await createKeyWithCli(db, "notice-thread-empty@example.com", "--unlimited");
      const server = await startServeProcess(localServeFlags(db), 120_000, directory, true);
      try {
        assert.notEqual(hasNoticeThread(server), true, "no notice thread while the collection is empty");
        const csv = join(directory, "notices.csv");
        assert.equal(
          (await runCli(["generate", "notices", "--rows", "60", "--seed", "7", "--out", csv])).code,
          0,
        );
        const imported = await runCli(["import", "notices", "--quiet", "--db", db, csv]);
        assert.equal(imported.code, 0, imported.stderr);
        let count = 0;
        for (let attempt = 0; attempt < 40 && count === 0; attempt++) {
          if (attempt > 0) await new Promise((done) => setTimeout(done, 50));
          const [page] = await answers(server, key, [`${NOTICES}?page[limit]=1`]);
          assert.equal(page!.status, 200, page!.body);
          count = JSON.parse(page!.body).meta.count as number;
        }
        assert.equal(count, 60, "the thread, started by the request, read the imported notices");
        assertNoticeThreadNiceness(server);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  });
}
