import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/** The niceness a background thread takes: the lowest priority, so it runs when nothing else wants the processor. */
const BACKGROUND_NICENESS = 19;

/**
 * Lowers the scheduling priority of the calling thread alone (Linux keeps a niceness per thread),
 * so that when it and the event loop both want a processor, the loop that answers every other
 * request goes first. Where threads cannot be named this way (no `/proc/thread-self`) or the system
 * refuses, the thread runs as before.
 */
export function lowerThreadPriority(): void {
  try {
    // "<pid>/task/<tid>": the thread's own id, which setpriority takes on Linux.
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, BACKGROUND_NICENESS);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}
