import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * The niceness a thread below the event loop takes. `background`, for work a request waits on (the
 * notice thread): when it and the loop share a core, the loop gets about nine tenths of it (the
 * kernel's weights, 1024 against 110). `idle`, for work nothing waits on (reading the file cache
 * ahead): the lowest priority, so that it takes a core only when nothing else, a background thread
 * included (110 against 15), wants it.
 */
const NICENESS = { background: 10, idle: 19 } as const;

/**
 * Lowers the scheduling priority of the calling thread alone (Linux keeps a niceness per thread),
 * so that when it and the event loop both want a processor, the loop that answers every other
 * request goes first. Where threads cannot be named this way (no `/proc/thread-self`) or the system
 * refuses, the thread runs as before.
 */
export function lowerThreadPriority(level: keyof typeof NICENESS): void {
  try {
    // "<pid>/task/<tid>": the thread's own id, which setpriority takes on Linux.
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, NICENESS[level]);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}
