import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** An import file opened for reading: its bytes, and how far into the file on disk reading is. */
export interface ImportSource {
  /**
   * The file's bytes, decompressed when it is gzip-compressed; read once. A chunk is valid only
   * until the next is asked for (a plain file is read into one buffer, reused): copy what must
   * outlive it. Ending the iteration, however it ends, releases the file.
   */
  readonly chunks: AsyncGenerator<Buffer>;
  /** Size of the file on disk (the compressed size for gzip). */
  readonly totalBytes: number;
  /** Bytes of the file on disk read so far (against `totalBytes`, for progress). */
  bytesRead(): number;
}

/** Bytes read at a time, into one buffer reused for the whole file. */
const READ_BYTES = 64 * 1024;

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Opens a file for import, decompressing it on the way when it is gzip-compressed: told from its
 * first bytes, so `x.csv.gz` and a compressed file named otherwise both work, and a plain file
 * named `.gz` is read as it is. Fails with the file system's error when the file cannot be opened;
 * errors of reading or decompression surface from `chunks`.
 */
export async function openImportSource(file: string): Promise<ImportSource> {
  const totalBytes = (await stat(file)).size;
  const gzip = await isGzip(file);
  let bytesRead = 0;
  const onRead = (bytes: number) => {
    bytesRead += bytes;
  };
  return {
    chunks: gzip ? gunzipped(file, onRead) : fileChunks(file, onRead),
    totalBytes,
    bytesRead: () => bytesRead,
  };
}

/** True when the file starts as gzip does, whatever its name. */
async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === GZIP_MAGIC[0] && buffer[1] === GZIP_MAGIC[1];
  } finally {
    await handle.close();
  }
}

/**
 * A file's bytes, read into one buffer: each chunk yielded is a view of it, valid until the next
 * is asked for. Where a stream allocates a buffer for every read, which the garbage collector
 * frees only when the memory they hold outside the heap adds up (about 64 MB), this holds 64 KiB.
 */
async function* fileChunks(file: string, onRead: (bytes: number) => void): AsyncGenerator<Buffer> {
  const handle = await open(file);
  try {
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, null);
      if (bytesRead === 0) return;
      onRead(bytesRead);
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** A gzip-compressed file's bytes, decompressed as they are read; `onRead` counts compressed bytes. */
async function* gunzipped(file: string, onRead: (bytes: number) => void): AsyncGenerator<Buffer> {
  const raw = createReadStream(file, { highWaterMark: READ_BYTES });
  raw.on("data", (chunk) => onRead(chunk.length));
  const text: Readable = raw.pipe(createGunzip({ chunkSize: READ_BYTES }));
  raw.on("error", (err) => text.destroy(err));
  try {
    for await (const chunk of text) yield chunk as Buffer;
  } finally {
    raw.destroy();
    text.destroy();
  }
}

/**
 * The first `limitBytes` of a file's (decompressed) text, or fewer when it is shorter: enough to
 * tell its format before anything is written.
 */
export async function peekImportText(file: string, limitBytes = 4096): Promise<Buffer> {
  const { chunks } = await openImportSource(file);
  const kept: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of chunks) {
      kept.push(Buffer.from(chunk));
      length += chunk.length;
      if (length >= limitBytes) break;
    }
  } finally {
    await chunks.return(undefined);
  }
  return Buffer.concat(kept).subarray(0, limitBytes);
}

/**
 * Reads a whole file's (decompressed) text, refusing with `tooLarge` as soon as it passes
 * `maxBytes`, so a huge or highly compressed file never fills memory.
 */
export async function readImportText(file: string, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const source = await openImportSource(file);
  if (source.totalBytes > maxBytes) throw tooLarge();
  const kept: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of source.chunks) {
      length += chunk.length;
      if (length > maxBytes) throw tooLarge();
      kept.push(Buffer.from(chunk));
    }
  } finally {
    await source.chunks.return(undefined);
  }
  return Buffer.concat(kept).toString("utf8");
}
