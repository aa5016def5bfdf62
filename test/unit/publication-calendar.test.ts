import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  dateOfDayNumber,
  dayNumberOf,
  federalHolidays,
  isBusinessDay,
  isObservedHoliday,
  localDayNumber,
  nextBusinessDay,
  nextPublicationAfter,
  observedHolidaysIn,
  zonedInstant,
} from "../../src/domain/publication-calendar.js";

const at = (iso: string) => Date.parse(iso);
const due = (iso: string) => new Date(nextPublicationAfter(at(iso))).toISOString();
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

describe("federal holidays", () => {
  it("knows 2026, with Independence Day (a Saturday) observed on Friday July 3", () => {
    assert.deepEqual(
      observedHolidaysIn(2026).map((holiday) => `${holiday.observed} ${holiday.name}`),
      [
        "2026-01-01 New Year's Day",
        "2026-01-19 Birthday of Martin Luther King, Jr.",
        "2026-02-16 Washington's Birthday",
        "2026-05-25 Memorial Day",
        "2026-06-19 Juneteenth National Independence Day",
        "2026-07-03 Independence Day",
        "2026-09-07 Labor Day",
        "2026-10-12 Columbus Day",
        "2026-11-11 Veterans Day",
        "2026-11-26 Thanksgiving Day",
        "2026-12-25 Christmas Day",
      ],
    );
  });

  it("observes a Saturday New Year's Day on December 31 of the year before, and a Sunday holiday on Monday", () => {
    // January 1, 2022 was a Saturday; December 31, 2021 was the observed holiday.
    assert.ok(isObservedHoliday(dayNumberOf("2021-12-31")));
    assert.ok(!observedHolidaysIn(2022).some((holiday) => holiday.name === "New Year's Day"));
    // Christmas 2022 was a Sunday: Monday December 26 was observed.
    assert.ok(isObservedHoliday(dayNumberOf("2022-12-26")));
    assert.ok(!isBusinessDay(dayNumberOf("2022-12-26")));
    // Juneteenth 2021 (a Saturday, its first year) was observed Friday June 18; none before 2021.
    assert.ok(isObservedHoliday(dayNumberOf("2021-06-18")));
    assert.ok(!federalHolidays(2020).some((holiday) => holiday.name.startsWith("Juneteenth")));
  });

  it("every observed holiday is a weekday within a day of its date (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1990, max: 2100 }), (year) => {
        const holidays = federalHolidays(year);
        assert.equal(holidays.length, year >= 2021 ? 11 : 10);
        for (const holiday of holidays) {
          const observed = weekday(holiday.observed);
          assert.ok(observed >= 1 && observed <= 5, `${holiday.name} ${year} observed on a weekend`);
          const shift = dayNumberOf(holiday.observed) - dayNumberOf(holiday.date);
          assert.equal(shift, { 6: -1, 0: 1 }[weekday(holiday.date)] ?? 0);
        }
        for (const name of ["Birthday of Martin Luther King, Jr.", "Memorial Day", "Labor Day"]) {
          assert.equal(weekday(holidays.find((holiday) => holiday.name === name)!.date), 1);
        }
        const thanksgiving = holidays.find((holiday) => holiday.name === "Thanksgiving Day")!.date;
        assert.equal(weekday(thanksgiving), 4);
        assert.ok(thanksgiving >= `${year}-11-22` && thanksgiving <= `${year}-11-28`);
      }),
    );
  });
});

describe("business days", () => {
  it("skip weekends and observed holidays (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: dayNumberOf("1990-01-01"), max: dayNumberOf("2099-12-31") }), (day) => {
        const next = nextBusinessDay(day);
        assert.ok(next > day && isBusinessDay(next));
        for (let between = day + 1; between < next; between++) assert.ok(!isBusinessDay(between));
        assert.ok(next - day <= 4, "never more than a long weekend with a holiday");
        const date = dateOfDayNumber(day);
        assert.equal(dayNumberOf(date), day);
      }),
    );
  });

  it("know Thanksgiving and Christmas weeks of 2026", () => {
    assert.equal(dateOfDayNumber(nextBusinessDay(dayNumberOf("2026-11-25"))), "2026-11-27");
    assert.equal(dateOfDayNumber(nextBusinessDay(dayNumberOf("2026-12-24"))), "2026-12-28");
    assert.equal(dateOfDayNumber(nextBusinessDay(dayNumberOf("2026-07-02"))), "2026-07-06");
  });
});

describe("the next publication (noon in New York, each business day)", () => {
  it("is today's noon before noon, the next business day's after it", () => {
    // Monday 2026-11-23: noon EST is 17:00 UTC.
    assert.equal(due("2026-11-23T10:00:00Z"), "2026-11-23T17:00:00.000Z");
    assert.equal(due("2026-11-23T17:00:00Z"), "2026-11-24T17:00:00.000Z");
    // Wednesday before Thanksgiving, after noon: Friday.
    assert.equal(due("2026-11-25T18:00:00Z"), "2026-11-27T17:00:00.000Z");
    // Saturday: Monday. Friday evening in New York is already Saturday in UTC.
    assert.equal(due("2026-11-28T12:00:00Z"), "2026-11-30T17:00:00.000Z");
    assert.equal(due("2026-11-28T02:00:00Z"), "2026-11-30T17:00:00.000Z");
  });

  it("follows daylight saving time", () => {
    // Summer (EDT): noon is 16:00 UTC.
    assert.equal(due("2026-06-15T12:00:00Z"), "2026-06-15T16:00:00.000Z");
    // DST starts Sunday 2026-03-08: Friday the 6th is EST, Monday the 9th EDT.
    assert.equal(due("2026-03-06T18:00:00Z"), "2026-03-09T16:00:00.000Z");
    // DST ends Sunday 2026-11-01: Friday October 30 is EDT, Monday November 2 EST.
    assert.equal(due("2026-10-30T16:30:00Z"), "2026-11-02T17:00:00.000Z");
  });

  it("is always a business day's noon on the New York clock, after the moment, with none skipped (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: at("2000-01-01T00:00:00Z"), max: at("2060-01-01T00:00:00Z") }), (now) => {
        const next = nextPublicationAfter(now);
        assert.ok(next > now);
        const day = localDayNumber(next, "America/New_York");
        assert.ok(isBusinessDay(day));
        assert.equal(zonedInstant(day, 12, "America/New_York"), next);
        const clock = new Intl.DateTimeFormat("en-US", {
          timeZone: "America/New_York",
          hourCycle: "h23",
          hour: "2-digit",
          minute: "2-digit",
        }).format(new Date(next));
        assert.equal(clock, "12:00");
        // No business day's noon lies between now and next.
        for (let between = localDayNumber(now, "America/New_York"); between < day; between++) {
          if (isBusinessDay(between)) assert.ok(zonedInstant(between, 12, "America/New_York") <= now);
        }
      }),
    );
  });
});
