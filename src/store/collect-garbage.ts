import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collect: (() => void) | null | undefined;

/**
 * Collects the calling thread's heap in full now, so that V8 gives back the pages a burst of
 * allocation made it take: building the notices' snapshot grows the notice thread's heap to about
 * 95 MB for 45 MB kept, and a thread that then only answers requests seldom collects in full, so
 * without this it holds the 95 MB for as long as it runs. Costs some 30 to 50 ms of the calling
 * thread. Node offers `gc` only under `--expose-gc`, so it is taken from a context created while
 * that flag is set for a moment (the `expose-gc` package's way); where that fails, nothing is done.
 */
export function collectGarbage(): void {
  if (collect === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === "function") collect = exposed;
    else
      try {
        setFlagsFromString("--expose-gc");
        collect = runInNewContext("gc") as () => void;
        setFlagsFromString("--no-expose-gc");
      } catch {
        collect = null;
      }
  }
  collect?.();
}
