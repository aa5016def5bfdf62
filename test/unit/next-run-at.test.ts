import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  COMPLAINT_SCHEDULE,
  NOTICE_SCHEDULE,
  nextPublicationAfter,
  type PublicationSchedule,
} from "../../src/domain/publication-calendar.js";
import {
  type FollowedCollection,
  type NextRun,
  nextRunAt,
  RECHECK_MINUTES,
  RETRY_MINUTES,
} from "../../src/ingest/next-run-at.js";

const at = (iso: string) => Date.parse(iso);
const seconds = (iso: string) => at(iso) / 1000;
const minutes = (count: number) => count * 60_000;

/** nextRunAt with its time as ISO text, for readable expectations. */
function next(
  now: string,
  collections: FollowedCollection[],
  options: { lastRun?: "succeeded" | "failed"; marginMinutes?: number } = {},
): { at: string; reason: NextRun["reason"] } {
  const run = nextRunAt({
    collections,
    lastRun: options.lastRun ?? "succeeded",
    nowMillis: at(now),
    marginMinutes: options.marginMinutes ?? 30,
  });
  return { at: new Date(run.atMillis).toISOString(), reason: run.reason };
}

const complaints = (lastUpdated?: string): FollowedCollection => ({
  schedule: COMPLAINT_SCHEDULE,
  ...(lastUpdated === undefined ? {} : { lastUpdatedSeconds: seconds(lastUpdated) }),
});
const notices = (lastUpdated?: string): FollowedCollection => ({
  schedule: NOTICE_SCHEDULE,
  ...(lastUpdated === undefined ? {} : { lastUpdatedSeconds: seconds(lastUpdated) }),
});

describe("nextRunAt after a successful run", () => {
  it("is the margin after the next publication: today's noon in New York before it, else the next business day's", () => {
    // Wednesday 2026-07-01, 10:00 EDT: noon today is 16:00 UTC.
    assert.deepEqual(next("2026-07-01T14:00:00Z", [complaints()]), {
      at: "2026-07-01T16:30:00.000Z",
      reason: "publication",
    });
    // Thursday 2026-07-02, 14:00 EDT: Friday July 3 is Independence Day observed, so Monday.
    assert.deepEqual(next("2026-07-02T18:00:00Z", [complaints()]), {
      at: "2026-07-06T16:30:00.000Z",
      reason: "publication",
    });
  });

  it("takes the margin as given, none included", () => {
    assert.equal(
      next("2026-11-23T10:00:00Z", [complaints()], { marginMinutes: 0 }).at,
      "2026-11-23T17:00:00.000Z",
    );
    assert.equal(
      next("2026-11-23T10:00:00Z", [complaints()], { marginMinutes: 20 }).at,
      "2026-11-23T17:20:00.000Z",
    );
  });

  it("follows daylight saving time (noon EST is 17:00 UTC, noon EDT 16:00)", () => {
    // DST starts Sunday 2026-03-08: after noon on Friday the 6th (EST), the next is Monday the 9th (EDT).
    assert.equal(next("2026-03-06T18:00:00Z", [complaints()]).at, "2026-03-09T16:30:00.000Z");
  });

  it("waits for the end of the day in New York for notices, every day", () => {
    // Saturday 2026-07-04 (a holiday) still publishes notices, due at 24:00 EDT = 04:00 UTC.
    assert.deepEqual(next("2026-07-04T15:00:00Z", [notices()]), {
      at: "2026-07-05T04:30:00.000Z",
      reason: "publication",
    });
  });

  it("with both collections, is the earlier of their due times", () => {
    // Thursday 2026-07-02 after noon: notices are due at the end of the day, complaints on Monday.
    assert.equal(next("2026-07-02T18:00:00Z", [complaints(), notices()]).at, "2026-07-03T04:30:00.000Z");
    assert.equal(next("2026-07-02T18:00:00Z", [notices(), complaints()]).at, "2026-07-03T04:30:00.000Z");
    // Monday 2026-07-06 before noon: complaints first.
    assert.equal(next("2026-07-06T13:00:00Z", [complaints(), notices()]).at, "2026-07-06T16:30:00.000Z");
  });

  it("is the due time when the complaints copy has the last publication's records", () => {
    // Updated on Monday 2026-07-06 after noon: the next publication (Tuesday noon) is still ahead.
    assert.deepEqual(next("2026-07-06T18:00:00Z", [complaints("2026-07-06T16:20:00Z")]), {
      at: "2026-07-07T16:30:00.000Z",
      reason: "publication",
    });
    // Never updated: nothing to be behind of.
    assert.deepEqual(next("2026-07-06T18:00:00Z", [complaints()]), {
      at: "2026-07-07T16:30:00.000Z",
      reason: "publication",
    });
  });

  it(`looks again within ${RECHECK_MINUTES} minutes when the complaints copy missed a publication`, () => {
    // Last updated Monday 2026-07-06 before noon; Monday's noon has passed without its records.
    assert.deepEqual(next("2026-07-06T18:00:00Z", [complaints("2026-07-06T15:00:00Z")]), {
      at: "2026-07-06T19:00:00.000Z",
      reason: "recheck",
    });
    // Several publications behind (last updated the week before): the same.
    assert.deepEqual(next("2026-07-06T18:00:00Z", [complaints("2026-06-26T12:00:00Z")]), {
      at: "2026-07-06T19:00:00.000Z",
      reason: "recheck",
    });
  });

  it("rechecks no later than the next due time", () => {
    // Tuesday 2026-07-07 11:50 EDT, behind since Monday's noon: the due time (12:00, no margin) is sooner.
    assert.deepEqual(
      next("2026-07-07T15:50:00Z", [complaints("2026-07-06T15:00:00Z")], { marginMinutes: 0 }),
      { at: "2026-07-07T16:00:00.000Z", reason: "recheck" },
    );
  });

  it("is not behind exactly at the publication's time, only after it", () => {
    const published = nextPublicationAfter(at("2026-07-06T15:00:00Z"));
    const onTime = nextRunAt({
      collections: [complaints("2026-07-06T15:00:00Z")],
      lastRun: "succeeded",
      nowMillis: published,
      marginMinutes: 30,
    });
    assert.equal(onTime.reason, "publication");
    const after = nextRunAt({
      collections: [complaints("2026-07-06T15:00:00Z")],
      lastRun: "succeeded",
      nowMillis: published + 1,
      marginMinutes: 30,
    });
    assert.equal(after.reason, "recheck");
  });

  it("never rechecks notices, whose publications may rightly be empty", () => {
    assert.deepEqual(next("2026-07-06T18:00:00Z", [notices("2026-06-01T00:00:00Z")]), {
      at: "2026-07-07T04:30:00.000Z",
      reason: "publication",
    });
    // With both, only the complaints copy can be behind.
    assert.equal(
      next("2026-07-06T18:00:00Z", [complaints("2026-07-06T16:20:00Z"), notices("2026-06-01T00:00:00Z")])
        .reason,
      "publication",
    );
    assert.equal(
      next("2026-07-06T18:00:00Z", [complaints("2026-07-06T15:00:00Z"), notices("2026-07-06T17:00:00Z")])
        .reason,
      "recheck",
    );
  });
});

describe("nextRunAt after a failed run", () => {
  it(`tries again ${RETRY_MINUTES} minutes later`, () => {
    assert.deepEqual(next("2026-07-02T18:00:00Z", [complaints()], { lastRun: "failed" }), {
      at: "2026-07-02T18:15:00.000Z",
      reason: "retry",
    });
  });

  it("or at the due time, when that is sooner", () => {
    // 11:50 EDT with no margin: noon comes first.
    assert.deepEqual(next("2026-07-01T15:50:00Z", [complaints()], { lastRun: "failed", marginMinutes: 0 }), {
      at: "2026-07-01T16:00:00.000Z",
      reason: "retry",
    });
  });

  it("retries rather than rechecks when the copy is also behind", () => {
    assert.deepEqual(
      next("2026-07-06T18:00:00Z", [complaints("2026-07-06T15:00:00Z")], { lastRun: "failed" }),
      { at: "2026-07-06T18:15:00.000Z", reason: "retry" },
    );
  });
});

describe("nextRunAt, whatever the moment (property)", () => {
  const schedules: PublicationSchedule[][] = [
    [COMPLAINT_SCHEDULE],
    [NOTICE_SCHEDULE],
    [COMPLAINT_SCHEDULE, NOTICE_SCHEDULE],
  ];

  it("is after now and never later than the due time; the due time itself when nothing went wrong", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: at("2000-01-01T00:00:00Z"), max: at("2060-01-01T00:00:00Z") }),
        fc.constantFrom(...schedules),
        fc.constantFrom("succeeded" as const, "failed" as const),
        fc.integer({ min: 0, max: 240 }),
        fc.option(fc.integer({ min: 0, max: 60 * 24 * 30 })),
        (now, followed, lastRun, marginMinutes, updatedMinutesAgo) => {
          const collections = followed.map((schedule) => ({
            schedule,
            ...(updatedMinutesAgo === null
              ? {}
              : { lastUpdatedSeconds: Math.floor((now - minutes(updatedMinutesAgo)) / 1000) }),
          }));
          const run = nextRunAt({ collections, lastRun, nowMillis: now, marginMinutes });
          const due =
            Math.min(...followed.map((schedule) => nextPublicationAfter(now, schedule))) +
            minutes(marginMinutes);
          assert.ok(run.atMillis > now);
          assert.ok(run.atMillis <= due);
          if (run.reason === "publication") assert.equal(run.atMillis, due);
          if (run.reason === "retry") {
            assert.equal(lastRun, "failed");
            assert.equal(run.atMillis, Math.min(due, now + minutes(RETRY_MINUTES)));
          }
          if (run.reason === "recheck") {
            assert.equal(lastRun, "succeeded");
            assert.ok(followed.includes(COMPLAINT_SCHEDULE) && updatedMinutesAgo !== null);
            assert.equal(run.atMillis, Math.min(due, now + minutes(RECHECK_MINUTES)));
          }
        },
      ),
    );
  });

  it("needs a collection to follow", () => {
    assert.throws(
      () => nextRunAt({ collections: [], lastRun: "succeeded", nowMillis: 0, marginMinutes: 0 }),
      RangeError,
    );
  });
});
