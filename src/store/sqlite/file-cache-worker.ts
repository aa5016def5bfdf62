/**
 * The worker thread of `warmFileCache`: reads each file named in its data (`FileCacheWork`) from
 * start to end, a chunk at a time into one buffer, at the lowest scheduling priority and at most at
 * its pace, then posts the number of bytes read. Its processor time (copying the file cache's
 * pages, about a second a few gigabytes) is spent only when the event loop and the other threads
 * leave a core idle; the pace keeps the copies from flooding the processor's caches, which the
 * requests of the first seconds then missed (first notice requests p99 7 ms with a full-speed read,
 * 4 without one).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { lowerThreadPriority } from "../lower-thread-priority.js";

/** What the thread is started with. */
export interface FileCacheWork {
  readonly files: readonly string[];
  readonly chunkBytes: number;
  /** The pace of the reads at most: the thread sleeps between chunks to keep to it. */
  readonly bytesPerSecond: number;
}

const work = workerData as FileCacheWork;
lowerThreadPriority("idle");
const buffer = Buffer.allocUnsafeSlow(work.chunkBytes);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const started = performance.now();
let bytesRead = 0;

/** Sleeps until the bytes read so far are due at the pace, if they are early. */
function keepPace(): void {
  const earlyMs = (bytesRead / work.bytesPerSecond) * 1000 - (performance.now() - started);
  if (earlyMs > 0) Atomics.wait(sleeper, 0, 0, earlyMs);
}

for (const path of work.files) {
  let descriptor: number;
  try {
    descriptor = openSync(path, "r");
  } catch {
    continue; // A write-ahead log may not exist.
  }
  try {
    for (let read = readSync(descriptor, buffer, 0, work.chunkBytes, null); read > 0; ) {
      bytesRead += read;
      keepPace();
      read = readSync(descriptor, buffer, 0, work.chunkBytes, null);
    }
  } finally {
    closeSync(descriptor);
  }
}
parentPort?.postMessage(bytesRead);
