import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { complaintFromRecord } from "../../src/ingest/complaint-mirror.js";
import { retryAfterSeconds } from "../../src/ingest/upstream-client.js";

describe("Retry-After", () => {
  it("reads delta-seconds and HTTP dates; nothing usable is undefined", () => {
    const now = Date.parse("2026-11-22T12:00:00Z");
    assert.equal(retryAfterSeconds("120", now), 120);
    assert.equal(retryAfterSeconds(" 7 ", now), 7);
    assert.equal(retryAfterSeconds("Sun, 22 Nov 2026 12:01:30 GMT", now), 90);
    assert.equal(retryAfterSeconds("Sun, 22 Nov 2026 11:00:00 GMT", now), 0, "a past date: retry now");
    assert.equal(retryAfterSeconds(undefined, now), undefined);
    assert.equal(retryAfterSeconds("", now), undefined);
    assert.equal(retryAfterSeconds("soon", now), undefined);
  });
});

describe("an upstream complaint record", () => {
  const record = {
    type: "dnc_complaint",
    id: "da64fbb5c8bdbeb5bf7313be6ac8f64c",
    attributes: {
      "company-phone-number": "4052674045",
      "created-date": "2021-03-03 23:59:53",
      "violation-date": "2021-03-02 08:11:00",
      "consumer-city": "Oklahoma City",
      "consumer-state": "Oklahoma",
      "consumer-area-code": "405",
      subject: "Dropped call or no message",
      "recorded-message-or-robocall": "Y",
    },
  };

  it("keeps the live service's id and values as served", () => {
    const complaint = complaintFromRecord(record);
    assert.ok(typeof complaint !== "string");
    assert.equal(complaint.id, "da64fbb5c8bdbeb5bf7313be6ac8f64c");
    assert.equal(complaint.createdAt, Date.parse("2021-03-03T23:59:53Z") / 1000);
    assert.equal(complaint.city, "Oklahoma City");
    assert.equal(complaint.robocall, "Y");
    const empty = complaintFromRecord({
      ...record,
      attributes: { ...record.attributes, "consumer-city": null },
    });
    assert.ok(typeof empty !== "string" && empty.city === "", "null becomes the empty string");
  });

  it("names what makes a record unusable", () => {
    assert.match(String(complaintFromRecord({ ...record, id: "123" })), /not 32 hexadecimal/);
    assert.match(
      String(
        complaintFromRecord({
          ...record,
          attributes: { ...record.attributes, "created-date": "2021-02-30 00:00:00" },
        }),
      ),
      /created-date "2021-02-30 00:00:00" is not/,
    );
    assert.match(
      String(
        complaintFromRecord({ ...record, attributes: { ...record.attributes, subject: { nested: true } } }),
      ),
      /subject is .* not text/,
    );
  });
});
