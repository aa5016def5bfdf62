import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** An import file opened for streaming: its text, and how far into the file on disk reading is. */
export interface ImportSource {
  /** The file's bytes, decompressed when it is gzip-compressed. */
  readonly text: Readable;
  /** Size of the file on disk (the compressed size for gzip). */
  readonly totalBytes: number;
  /** Bytes of the file on disk read so far (against `totalBytes`, for progress). */
  bytesRead(): number;
  /** Stops reading and releases the file. */
  close(): void;
}

const GZIP_MAGIC = [0x1f, 0x8b];

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
 * Opens a file for streaming, decompressing it on the way when it is gzip-compressed (told from its
 * first bytes, so `x.csv.gz` and a compressed file named otherwise both work). Errors of the file
 * or of decompression surface on `text`.
 */
export async function openImportSource(file: string): Promise<ImportSource> {
  const totalBytes = (await stat(file)).size;
  const gzip = await isGzip(file);
  const raw = createReadStream(file);
  let bytesRead = 0;
  raw.on("data", (chunk) => {
    bytesRead += chunk.length;
  });
  let text: Readable = raw;
  if (gzip) {
    const gunzip = createGunzip();
    raw.on("error", (err) => gunzip.destroy(err));
    text = raw.pipe(gunzip);
  }
  return {
    text,
    totalBytes,
    bytesRead: () => bytesRead,
    close() {
      raw.destroy();
      if (text !== raw) text.destroy();
    },
  };
}

/**
 * The first `limitBytes` of a file's (decompressed) text, or fewer when it is shorter: enough to
 * tell its format before anything is written.
 */
export async function peekImportText(file: string, limitBytes = 4096): Promise<Buffer> {
  const source = await openImportSource(file);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of source.text as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= limitBytes) break;
    }
  } finally {
    source.close();
  }
  return Buffer.concat(chunks).subarray(0, limitBytes);
}

/**
 * Reads a whole file's (decompressed) text, refusing with `tooLarge` as soon as it passes
 * `maxBytes`, so a huge or highly compressed file never fills memory.
 */
export async function readImportText(file: string, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const source = await openImportSource(file);
  if (source.totalBytes > maxBytes) {
    source.close();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of source.text as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } finally {
    source.close();
  }
  return Buffer.concat(chunks).toString("utf8");
}
