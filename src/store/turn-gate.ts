import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Work on the event loop taken one piece at a time, first come first served, each piece starting
 * on a turn of its own: however many requests want it at once, the loop runs at most one piece
 * between two polls for I/O, so the requests that need none of it (a page read by a read thread,
 * `/health/live`) wait for one piece at most, not for all of them (docs/deployment.md,
 * Operations). Notice pages written on the event loop go through one (`NoticeStore.listBytes`).
 */
export class TurnGate {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `work` after every piece given before it, on a later turn of the loop. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(async () => {
      await nextTurn();
      return work();
    });
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
