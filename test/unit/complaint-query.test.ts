import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ApiError } from "../../src/domain/api-error.js";
import { parseComplaintQuery } from "../../src/domain/complaint-query.js";
import { parseDateTime } from "../../src/domain/time.js";

const parse = (query: string) => parseComplaintQuery([...new URLSearchParams(query)]);

function rejects(query: string, parameter: string, code = "INVALID_PARAMETER"): ApiError {
  try {
    parse(query);
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError for ${query}`);
    assert.equal(err.code, code);
    assert.equal(err.status, 400);
    assert.equal(err.details.parameter, parameter);
    return err;
  }
  assert.fail(`expected ${query} to be refused`);
}

describe("parseComplaintQuery", () => {
  it("defaults to the newest 50", () => {
    assert.deepEqual(parse(""), { order: "DESC", limit: 50, offset: 0 });
  });

  it("reads quoted and unquoted dates; date-only bounds cover whole days", () => {
    const quoted = parse('created_date_from="2021-07-07"&created_date_to="2021-07-08"');
    assert.deepEqual(quoted.created, {
      from: parseDateTime("2021-07-07 00:00:00"),
      to: parseDateTime("2021-07-08 23:59:59"),
    });
    const times = parse('created_date_from="2020-02-27 04:10:00"&created_date_to=2020-02-27 04:30:00');
    assert.deepEqual(times.created, {
      from: parseDateTime("2020-02-27 04:10:00"),
      to: parseDateTime("2020-02-27 04:30:00"),
    });
    assert.deepEqual(parse('violation_date="2021-07-06"').violation, {
      from: parseDateTime("2021-07-06 00:00:00"),
      to: parseDateTime("2021-07-06 23:59:59"),
    });
  });

  it("intersects a day with a range when both are given", () => {
    const query = parse(
      "created_date=2021-07-07&created_date_from=2021-07-07 12:00:00&created_date_to=2021-07-09",
    );
    assert.deepEqual(query.created, {
      from: parseDateTime("2021-07-07 12:00:00"),
      to: parseDateTime("2021-07-07 23:59:59"),
    });
  });

  it("matches state and city without regard to case", () => {
    const query = parse('state="New York"&city=NEW york');
    assert.equal(query.state, "new york");
    assert.equal(query.city, "new york");
  });

  it("reads the other filters and paging", () => {
    const query = parse(
      "area_code=202&created_date_from=2021-01-01&created_date_to=2021-01-31&sort_order=asc&items_per_page=7&offset=14&company_phone_number=2025550123",
    );
    assert.equal(query.areaCode, "202");
    assert.equal(query.order, "ASC");
    assert.equal(query.limit, 7);
    assert.equal(query.offset, 14);
    assert.equal(query.phone, "2025550123");
    assert.equal(parse("is_robocall=TRUE").robocall, "Y");
    assert.equal(parse("is_robocall=false").robocall, "N");
  });

  it("ignores api_key, which the gateway consumes", () => {
    assert.deepEqual(parse("api_key=DEMO_KEY"), { order: "DESC", limit: 50, offset: 0 });
  });

  it("takes the filters in any combination, and a city alone as that city in every state", () => {
    assert.deepEqual(parse("state=Texas&area_code=512&is_robocall=TRUE&company_phone_number=2025550123"), {
      order: "DESC",
      limit: 50,
      offset: 0,
      state: "texas",
      areaCode: "512",
      robocall: "Y",
      phone: "2025550123",
    });
    assert.deepEqual(parse("city=%20Austin"), { order: "DESC", limit: 50, offset: 0, city: "austin" });
  });

  it("refuses what the spec forbids and what it cannot read, naming the parameter", () => {
    rejects("limit=10", "limit", "UNKNOWN_PARAMETER");
    rejects("page=2", "page", "UNKNOWN_PARAMETER");
    rejects("created_date_from=2021-01-01", "created_date_from");
    rejects("violation_date_to=2021-01-01", "violation_date_to");
    rejects("created_date=2021-13-01", "created_date");
    rejects("created_date=2021-02-30", "created_date");
    rejects("created_date=07/07/2021", "created_date");
    rejects("created_date_from=2021-02-01&created_date_to=2021-01-01", "created_date_from");
    rejects("created_date_from=2021-01-01 25:00:00&created_date_to=2021-01-02", "created_date_from");
    rejects("items_per_page=0", "items_per_page");
    rejects("items_per_page=51", "items_per_page");
    rejects("items_per_page=ten", "items_per_page");
    rejects("offset=-1", "offset");
    rejects("offset=1.5", "offset");
    rejects("is_robocall=yes", "is_robocall");
    rejects("sort_order=up", "sort_order");
    rejects("sort_by=state", "sort_by");
    rejects("area_code=abc", "area_code");
    rejects("company_phone_number=(202) 555-0123", "company_phone_number");
    rejects("state=", "state");
    rejects("offset=1&offset=2", "offset");
  });

  it("says what it would accept", () => {
    const err = rejects("items_per_page=500", "items_per_page");
    assert.match(err.message, /1 to 50/);
    const unknown = rejects("foo=1", "foo", "UNKNOWN_PARAMETER");
    assert.match(unknown.message, /items_per_page/);
  });

  it("never throws anything but an ApiError, whatever the input", () => {
    const names = [
      "created_date",
      "created_date_from",
      "created_date_to",
      "state",
      "city",
      "offset",
      "items_per_page",
      "sort_order",
      "x",
    ];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...names), fc.string()), { maxLength: 6 }), (pairs) => {
        try {
          const query = parseComplaintQuery(pairs);
          assert.ok(query.limit >= 1 && query.limit <= 50);
          assert.ok(query.offset >= 0);
        } catch (err) {
          assert.ok(err instanceof ApiError);
          assert.equal(err.status, 400);
        }
      }),
    );
  });
});
