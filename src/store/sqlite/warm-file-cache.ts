import { stat } from "node:fs/promises";
import { freemem } from "node:os";
import { startWorker } from "../start-worker.js";
import type { FileCacheWork } from "./file-cache-worker.js";

/** Bytes read at a time, into one buffer reused for the whole file. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The reads' pace at most, in bytes a second: a 10 GB file in about 40 s, faster than the virtual
 * disks measured here read it anyway, and a chunk every 4 ms from the file cache.
 */
const READ_BYTES_PER_SECOND = 256 * 1024 * 1024;

/** What `warmFileCache` did. */
export type FileCacheWarming =
  | { readonly warmed: true; readonly bytes: number; readonly seconds: number }
  | { readonly warmed: false; readonly bytes: number; readonly reason: string };

/**
 * Reads a SQLite database file (and its write-ahead log) once from start to end, so that the
 * operating system's file cache holds it: a page read by a request then costs a copy of a few
 * microseconds instead of a disk read (about 150 µs each on the virtual disks measured, and a
 * filtered page reads about 50 of them). The bytes read are not kept: the process's memory does not
 * grow. Skipped when the files are larger than half of `availableBytes` (by default the memory the
 * system has available), where reading them would only push out what was cached before.
 * The reads run on a thread of their own at the lowest scheduling priority
 * (store/sqlite/file-cache-worker.ts): copying the pages costs about a second of processor time
 * for a few gigabytes, and on libuv's thread pool, at the process's priority, it took the
 * processor from the first requests after a start (the first notice requests on a 2M file: p50
 * 2.0 ms while it read, 1.3 without it). Stops early, saying so, once `signal` is aborted.
 */
export async function warmFileCache(
  file: string,
  options: { availableBytes?: number; signal?: AbortSignal } = {},
): Promise<FileCacheWarming> {
  const files = [file, `${file}-wal`];
  const sizes = await Promise.all(
    files.map(async (path) => (await stat(path).catch(() => undefined))?.size ?? 0),
  );
  const bytes = sizes.reduce((sum, size) => sum + size, 0);
  const availableBytes = options.availableBytes ?? freemem();
  if (bytes > availableBytes / 2)
    return {
      warmed: false,
      bytes,
      reason: `larger than half the memory available (${megabytes(availableBytes)})`,
    };
  if (options.signal?.aborted) return { warmed: false, bytes, reason: "stopped" };
  const started = performance.now();
  const worker = startWorker("sqlite/file-cache-worker", {
    workerData: {
      files,
      chunkBytes: CHUNK_BYTES,
      bytesPerSecond: READ_BYTES_PER_SECOND,
    } satisfies FileCacheWork,
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  const stop = () => void worker.terminate();
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    return await new Promise<FileCacheWarming>((resolve, reject) => {
      worker.once("message", () =>
        resolve({ warmed: true, bytes, seconds: (performance.now() - started) / 1000 }),
      );
      worker.once("error", reject);
      worker.once("exit", () => resolve({ warmed: false, bytes, reason: "stopped" }));
    });
  } finally {
    options.signal?.removeEventListener("abort", stop);
  }
}

/** `1,452.1 MB`. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })} MB`;
}
