import assert from "node:assert/strict";
import { it } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { collectGarbage } from "../../src/store/collect-garbage.js";

it("collectGarbage collects what nothing references, without --expose-gc", async () => {
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, "undefined", "run this test without --expose-gc");
  let held: object | undefined = { payload: new Array(1000).fill("x") };
  const weak = new WeakRef(held);
  held = undefined;
  // A WeakRef's target stays alive until the turn that made it ends.
  await nextTurn();
  collectGarbage();
  assert.equal(weak.deref(), undefined);
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, "undefined", "gc is not left exposed");
});
