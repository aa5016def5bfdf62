import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  type MirroredNotice,
  mirrorNotices,
  type NoticeCursor,
  type NoticeSink,
  noticeFromRecord,
} from "../../src/ingest/notice-mirror.js";
import { UpstreamClient } from "../../src/ingest/upstream-client.js";

/**
 * The notices mirror against the JSON:API contract (live-api.md): a small upstream that answers
 * as Drupal does (sort=created, filter[created][value|operator], page[limit] at most 50,
 * page[offset], links.next only when more rows exist) and refuses any other parameter. The sink
 * here keeps notices by id, so that the walk itself is tested; the store's sink is tested end to
 * end in test/e2e/mirror.test.ts.
 */

const NOTICES = 1200;

function resource(index: number) {
  // Several notices share a created second, as bulk-loaded Drupal nodes do.
  const created = new Date(Date.UTC(2013, 8, 24, 20, 5, 39) + Math.floor(index / 4) * 1000)
    .toISOString()
    .replace(".000Z", "+00:00");
  const id = `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`;
  return {
    type: "early_termination_notice",
    id,
    links: {
      self: {
        href: `https://www.ftc.gov/v0/hsr-early-termination-notices/${id}?resourceVersion=id%3A${2000 + index}`,
      },
    },
    attributes: {
      title: `2011${String(index).padStart(4, "0")}: Acquirer ${index}; Target ${index}`,
      created,
      updated: created,
      "acquired-party": `Target ${index}`,
      "acquiring-party": `Acquirer ${index}`,
      date: "2011-04-11",
      "acquired-entities": [`Target ${index}`],
      "transaction-number": `2011${String(index).padStart(4, "0")}`,
    },
  };
}

const ALL = Array.from({ length: NOTICES }, (_, index) => resource(index));
const ALLOWED = new Set([
  "sort",
  "page[limit]",
  "page[offset]",
  "filter[created][value]",
  "filter[created][operator]",
  "filter[updated][value]",
  "filter[updated][operator]",
]);

class MapSink implements NoticeSink {
  readonly notices = new Map<string, MirroredNotice>();
  saved: NoticeCursor | undefined;
  async cursor(): Promise<NoticeCursor | undefined> {
    return this.saved;
  }
  async write(_upstream: string, notices: readonly MirroredNotice[], cursor: NoticeCursor) {
    let added = 0;
    let changed = 0;
    for (const notice of notices) {
      const before = this.notices.get(notice.id);
      if (!before) added++;
      else if (before.updated !== notice.updated) changed++;
      this.notices.set(notice.id, notice);
    }
    this.saved = cursor;
    return { added, changed, existing: notices.length - added - changed };
  }
}

describe("the notices mirror against the JSON:API contract", () => {
  let upstream: Server;
  let base: string;
  const requests: URLSearchParams[] = [];

  before(async () => {
    upstream = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://upstream");
      const query = url.searchParams;
      requests.push(query);
      const unknown = [...query.keys()].find((name) => !ALLOWED.has(name));
      const limit = Number(query.get("page[limit]") ?? 50);
      const offset = Number(query.get("page[offset]") ?? 0);
      const sort = query.get("sort") ?? "";
      const field = sort.replace(/^-/, "") as "created" | "updated";
      const operator = query.get(`filter[${field}][operator]`);
      if (
        url.pathname !== "/v0/hsr-early-termination-notices" ||
        req.headers["x-api-key"] !== "k" ||
        unknown ||
        !["created", "updated", "-updated"].includes(sort) ||
        [...query.keys()].some(
          (name) => name.startsWith("filter[") && !name.startsWith(`filter[${field}]`),
        ) ||
        limit > 50 ||
        (operator !== null && operator !== ">=")
      ) {
        res.writeHead(400, { "Content-Type": "application/vnd.api+json" });
        res.end(
          JSON.stringify({ errors: [{ status: "400", title: "Bad Request", detail: `refused ${req.url}` }] }),
        );
        return;
      }
      const from = query.get(`filter[${field}][value]`);
      const matching = ALL.filter((notice) => from === null || notice.attributes[field] >= from).sort(
        (a, b) =>
          (a.attributes[field] < b.attributes[field]
            ? -1
            : a.attributes[field] > b.attributes[field]
              ? 1
              : 0) * (sort.startsWith("-") ? -1 : 1),
      );
      const page = matching.slice(offset, offset + limit);
      const links: Record<string, unknown> = { self: { href: `https://upstream${req.url}` } };
      if (offset + limit < matching.length) links.next = { href: `https://upstream/next` };
      res.writeHead(200, { "Content-Type": "application/vnd.api+json" });
      res.end(
        JSON.stringify({ jsonapi: { version: "1.0" }, data: page, meta: { count: page.length }, links }),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(() => upstream?.close());

  it("copies every notice with shallow offsets only, and resumes at its cursor adding nothing twice", async () => {
    const sink = new MapSink();
    const client = new UpstreamClient({ baseUrl: base, apiKey: "k" });
    try {
      const first = await mirrorNotices(client, sink);
      assert.equal(sink.notices.size, NOTICES);
      assert.equal(first.added, NOTICES);
      assert.equal(first.rejected, 0);
      assert.ok(
        requests.every((query) => Number(query.get("page[offset]")) < 500),
        "no request past the offset cap",
      );
      assert.ok(
        requests.some((query) => query.get("filter[created][value]") !== null),
        "windows were narrowed",
      );
      const notice = sink.notices.get(ALL[7]!.id)!;
      assert.equal(notice.transactionNumber, "20110007");
      assert.equal(notice.revision, "2007");
      assert.deepEqual(notice.acquiredEntities, ["Target 7"]);

      const again = await mirrorNotices(client, sink);
      assert.equal(again.added, 0);
      assert.ok(again.fetched < NOTICES, "the second run starts at the cursor, not at the beginning");
      assert.equal(sink.notices.size, NOTICES);

      // An old notice edited upstream: its update time moves past the newest the copy has seen.
      const edited = ALL[3]!;
      edited.attributes.title = "20110003: Acquirer 3; Target 3 (corrected)";
      edited.attributes.updated = "2014-01-01T00:00:00+00:00";
      const third = await mirrorNotices(client, sink);
      assert.equal(third.changed, 1);
      assert.equal(third.added, 0);
      assert.equal(sink.notices.get(edited.id)!.title, "20110003: Acquirer 3; Target 3 (corrected)");
      assert.equal(sink.saved?.updatedFrom, "2014-01-01T00:00:00+00:00");
    } finally {
      client.close();
    }
  });

  it("reads the real sample's records and refuses what is not a notice", () => {
    const sample = {
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
    };
    const notice = noticeFromRecord(sample);
    assert.ok(typeof notice !== "string");
    assert.equal(notice.revision, "2358");
    assert.equal(notice.updated, "2013-09-24T22:22:27+00:00");
    assert.match(
      String(noticeFromRecord({ ...sample, type: "dnc_complaint" })),
      /not early_termination_notice/,
    );
    assert.match(String(noticeFromRecord({ ...sample, id: "42" })), /not a UUID/);
    assert.match(
      String(noticeFromRecord({ ...sample, attributes: { ...sample.attributes, created: "yesterday" } })),
      /not an ISO 8601 time/,
    );
  });
});
