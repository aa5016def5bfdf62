import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { TurnGate } from "../../src/store/turn-gate.js";

test("a turn gate runs its pieces one at a time, in the order given, each on a later turn", async () => {
  const gate = new TurnGate();
  const events: string[] = [];
  let running = 0;
  const piece = (name: string) =>
    gate.run(async () => {
      running++;
      assert.equal(running, 1, `${name} ran beside another piece`);
      events.push(`start ${name}`);
      await nextTurn();
      events.push(`end ${name}`);
      running--;
      return name;
    });
  const started = [piece("a"), piece("b"), piece("c")];
  events.push("given");
  assert.deepEqual(await Promise.all(started), ["a", "b", "c"]);
  assert.deepEqual(events, ["given", "start a", "end a", "start b", "end b", "start c", "end c"]);
});

test("a piece that fails rejects its own caller only; the next runs", async () => {
  const gate = new TurnGate();
  const failing = gate.run(async () => {
    throw new Error("broken");
  });
  const next = gate.run(async () => "next");
  await assert.rejects(failing, /broken/);
  assert.equal(await next, "next");
});
