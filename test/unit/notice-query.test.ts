import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ApiError } from "../../src/domain/api-error.js";
import { parseNoticeQuery } from "../../src/domain/notice-query.js";

const parse = (query: string) => parseNoticeQuery([...new URLSearchParams(query)]);

describe("parseNoticeQuery", () => {
  it("defaults to the first 50, in the default order, with every field", () => {
    assert.deepEqual(parse(""), {
      filter: { kind: "group", conjunction: "AND", members: [] },
      sort: [],
      offset: 0,
      limit: 50,
      fields: undefined,
    });
  });

  it("builds the group tree memberOf describes, whatever the order of the parameters", () => {
    const query = parse(
      [
        "filter[a][condition][path]=title",
        "filter[a][condition][operator]=CONTAINS",
        "filter[a][condition][value]=icahn",
        "filter[a][condition][memberOf]=inner",
        "filter[inner][group][conjunction]=AND",
        "filter[inner][group][memberOf]=outer",
        "filter[outer][group][conjunction]=OR",
        "filter[d][condition][path]=created",
        "filter[d][condition][operator]=BETWEEN",
        "filter[d][condition][value][]=2013-09-24",
        "filter[d][condition][value][]=2013-09-25T00:00:00%2B02:00",
        "filter[d][condition][memberOf]=outer",
        "filter[date]=2011-04-11",
      ].join("&"),
    );
    assert.deepEqual(query.filter, {
      kind: "group",
      conjunction: "AND",
      members: [
        {
          kind: "group",
          conjunction: "OR",
          members: [
            {
              kind: "group",
              conjunction: "AND",
              members: [{ kind: "condition", field: "title", operator: "CONTAINS", values: ["icahn"] }],
            },
            {
              kind: "condition",
              field: "created",
              operator: "BETWEEN",
              values: [Date.UTC(2013, 8, 24) / 1000, Date.UTC(2013, 8, 24, 22) / 1000],
            },
          ],
        },
        { kind: "condition", field: "date", operator: "=", values: ["2011-04-11"] },
      ],
    });
  });

  it("reads both sort forms and the plain parameters", () => {
    assert.deepEqual(parse("sort=-created,title").sort, [
      { field: "created", direction: "DESC" },
      { field: "title", direction: "ASC" },
    ]);
    assert.deepEqual(parse("sort[b][path]=date&sort[b][direction]=desc&sort[a][path]=id").sort, [
      { field: "date", direction: "DESC" },
      { field: "id", direction: "ASC" },
    ]);
    assert.deepEqual(parse("sort_by=changed&sort_order=asc").sort, [{ field: "updated", direction: "ASC" }]);
    const plain = parse('title=icahn "blockbuster inc"&items_per_page=10&offset=20');
    assert.deepEqual(
      plain.filter.members.map((member) => (member.kind === "condition" ? member.values[0] : undefined)),
      ["icahn", "blockbuster inc"],
    );
    assert.equal(plain.limit, 10);
    assert.equal(plain.offset, 20);
  });

  it("either parses or refuses with a 400 ApiError, for any parameters at all", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        "filter",
        "sort",
        "page",
        "fields",
        "[",
        "]",
        "[]",
        "condition",
        "group",
        "path",
        "operator",
        "value",
        "memberOf",
        "conjunction",
        "title",
        "date",
        "created",
        "tags",
        "id",
        "IN",
        "BETWEEN",
        "IS NULL",
        "<>",
        "AND",
        "OR",
        "-",
        ",",
        "limit",
        "offset",
        "0",
        "51",
        "2011-04-11",
        "@root",
        ".",
        "\u0000",
        "%",
      ),
      fc.string({ maxLength: 4, unit: "binary" }),
    );
    const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 12 }), (pairs) => {
        try {
          const query = parseNoticeQuery(pairs);
          assert.ok(query.limit >= 1 && query.limit <= 50);
        } catch (err) {
          assert.ok(err instanceof ApiError, `not an ApiError: ${err}`);
          assert.equal(err.status, 400);
          assert.equal(typeof err.details.parameter, "string");
        }
      }),
      { numRuns: 5000, seed: 7 },
    );
  });
});
