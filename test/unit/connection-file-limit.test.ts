import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connectionsWithinFileLimit } from "../../src/http/server-connections.js";

describe("the connection limit fits the open-file limit (connectionsWithinFileLimit)", () => {
  it("keeps the limit when the descriptors suffice, or when their limit is unknown", () => {
    assert.deepEqual(connectionsWithinFileLimit(1000, 65_536), { maxConnections: 1000, warning: undefined });
    assert.deepEqual(connectionsWithinFileLimit(1000, 1064), { maxConnections: 1000, warning: undefined });
    assert.deepEqual(connectionsWithinFileLimit(1000, undefined), {
      maxConnections: 1000,
      warning: undefined,
    });
  });

  it("lowers it, with a warning naming both numbers and what to do, when they do not", () => {
    const fitted = connectionsWithinFileLimit(1000, 1024);
    assert.equal(fitted.maxConnections, 960);
    assert.match(fitted.warning!, /open-file limit \(1024\) leaves room for 960 connections, not the 1000/);
    assert.match(fitted.warning!, /LimitNOFILE/);
    assert.equal(connectionsWithinFileLimit(1000, 10).maxConnections, 1);
  });
});
