/**
 * The worker thread of `warmFileCache`: reads each file named in its data (`FileCacheWork`) from
 * start to end, a chunk at a time into one buffer, at the lowest scheduling priority, then posts
 * the number of bytes read. Its processor time (copying the file cache's pages, about a second a
 * few gigabytes) is spent only when the event loop and the other threads leave a core idle.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { lowerThreadPriority } from "../lower-thread-priority.js";

/** What the thread is started with. */
export interface FileCacheWork {
  readonly files: readonly string[];
  readonly chunkBytes: number;
}

const work = workerData as FileCacheWork;
lowerThreadPriority("idle");
const buffer = Buffer.allocUnsafeSlow(work.chunkBytes);
let bytesRead = 0;
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
      read = readSync(descriptor, buffer, 0, work.chunkBytes, null);
    }
  } finally {
    closeSync(descriptor);
  }
}
parentPort?.postMessage(bytesRead);
