import { setTimeout as sleep } from "node:timers/promises";

/**
 * Runs `check` until it stops throwing, then returns its result; rethrows its last failure after
 * `timeoutMs`. For what the server promises to do within a bounded time (hand back leased hits,
 * write usage), without a test depending on how fast this machine is.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000, everyMs = 200): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await sleep(everyMs);
    }
  }
}
