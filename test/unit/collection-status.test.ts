import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type CollectionFacts, statusDocument } from "../../src/domain/collection-status.js";
import {
  COMPLAINT_SCHEDULE,
  localDayNumber,
  NOTICE_SCHEDULE,
  nextPublicationAfter,
  zonedInstant,
} from "../../src/domain/publication-calendar.js";

const at = (iso: string) => Date.parse(iso);
const seconds = (iso: string) => at(iso) / 1000;

function facts(overrides: Partial<CollectionFacts>): CollectionFacts {
  return {
    name: "hsr-early-termination-notices",
    path: "/v0/hsr-early-termination-notices",
    records: 10,
    newestCreated: "2021-02-01T15:00:00+00:00",
    lastUpdatedSeconds: undefined,
    lastMirroredSeconds: undefined,
    schedule: NOTICE_SCHEDULE,
    ...overrides,
  };
}

describe("the notices schedule (spec 1.2: updated daily)", () => {
  it("is due at the end of every calendar day in New York, weekends and holidays included", () => {
    // Saturday 2026-07-04 (Independence Day): due at its end, 04:00 UTC on the 5th (EDT).
    assert.equal(
      new Date(nextPublicationAfter(at("2026-07-04T15:00:00Z"), NOTICE_SCHEDULE)).toISOString(),
      "2026-07-05T04:00:00.000Z",
    );
    // Christmas 2026, a Friday, in EST.
    assert.equal(
      new Date(nextPublicationAfter(at("2026-12-25T12:00:00Z"), NOTICE_SCHEDULE)).toISOString(),
      "2026-12-26T05:00:00.000Z",
    );
  });

  it("is always the next New York midnight after the moment (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: at("2000-01-01T00:00:00Z"), max: at("2060-01-01T00:00:00Z") }), (now) => {
        const next = nextPublicationAfter(now, NOTICE_SCHEDULE);
        assert.ok(next > now);
        assert.equal(next, zonedInstant(localDayNumber(now, "America/New_York") + 1, 0, "America/New_York"));
      }),
    );
  });
});

describe("overdue in /v0/status", () => {
  const now = at("2026-03-11T15:00:00Z");

  it("notices: a day without early terminations is not a missed update when a mirror looked since", () => {
    const updated = seconds("2026-03-02T10:00:00Z");
    const stale = statusDocument([facts({ lastUpdatedSeconds: updated })], now, "x").data[0]!;
    assert.equal(stale.attributes.overdue, true, "nothing changed and nobody looked for nine days");
    const checked = statusDocument(
      [facts({ lastUpdatedSeconds: updated, lastMirroredSeconds: seconds("2026-03-11T05:30:00Z") })],
      now,
      "x",
    ).data[0]!;
    assert.equal(checked.attributes.overdue, false);
    assert.equal(checked.attributes["next-update-due"], "2026-03-12T04:00:00.000Z");
    assert.match(checked.attributes.schedule, /^every day by the end of the day/);
  });

  it("complaints: every publication brings records, so a mirror that found none is still behind", () => {
    const entry = statusDocument(
      [
        facts({
          name: "dnc-complaints",
          path: "/v0/dnc-complaints",
          schedule: COMPLAINT_SCHEDULE,
          lastUpdatedSeconds: seconds("2026-03-02T18:00:00Z"),
          lastMirroredSeconds: seconds("2026-03-11T14:00:00Z"),
        }),
      ],
      now,
      "x",
    ).data[0]!;
    assert.equal(entry.attributes.overdue, true);
    assert.equal(entry.attributes["next-update-due"], "2026-03-03T17:00:00.000Z");
    assert.match(
      entry.attributes.schedule,
      /^each business day \(US federal holidays observed\) by about 12:00/,
    );
  });
});
