import { type Notice, type NoticeAttributes, noticeFromAttributes } from "./notice.js";
import { jsonEscaped, noticeDocumentEnds, noticeResourcePieces, RESOURCE_TEXT } from "./notice-envelope.js";

const START = Buffer.from(RESOURCE_TEXT.start);
const RELATIONSHIP = Buffer.from(RESOURCE_TEXT.relationship);
const END = Buffer.from(RESOURCE_TEXT.end);
const COMMA = 0x2c;

/** The notices' pieces measured, to be written. */
export interface MeasuredNotices {
  write(): NoticeResourceBytes;
}

/**
 * Every notice's resource object as UTF-8, written once for a set of notices (a snapshot of the
 * collection) into one buffer: per notice its id, its version and its attributes member
 * (`noticeResourcePieces`), what differs from one notice to the next. A page is the envelope's head
 * and tail around those bytes, the constant text between them and the request's URL, with no text
 * built per request. For the 28,000 notices about 13 MB, outside the JS heap, so the collector
 * neither copies nor marks it; writing each page's text instead made about 100 KB of garbage a
 * request on the notice thread, and cost it about 100 of the 263 µs a distinct page took
 * (docs/performance.md).
 */
export class NoticeResourceBytes {
  private constructor(
    private readonly bytes: Buffer,
    /**
     * Per notice position `p`, at `3p` to `3p + 2`: where its id starts, its version, its
     * attributes; at `3p + 3`, where they end (the next notice's id, or the end of the bytes).
     */
    private readonly bounds: Int32Array,
  ) {}

  /**
   * The resource bytes of `notices`, by their position in the array, in two steps of about equal
   * cost (50 to 60 ms each for 28,000 notices): `measure`, then `write` on its result. Each notice's
   * pieces are made once to measure them and again to write them, so that the buffer is never more
   * than its size.
   */
  static measure(notices: readonly Notice[]): MeasuredNotices {
    const bounds = new Int32Array(notices.length * 3 + 1);
    let size = 0;
    notices.forEach((notice, position) => {
      const { id, version, attributes } = noticeResourcePieces(notice);
      bounds[position * 3] = size;
      size += Buffer.byteLength(id);
      bounds[position * 3 + 1] = size;
      size += version.length;
      bounds[position * 3 + 2] = size;
      size += Buffer.byteLength(attributes);
    });
    bounds[notices.length * 3] = size;
    return {
      write: () => {
        const bytes = Buffer.allocUnsafeSlow(size);
        notices.forEach((notice, position) => {
          const { id, version, attributes } = noticeResourcePieces(notice);
          let at = bounds[position * 3]!;
          at += bytes.write(id, at);
          at += bytes.write(version, at);
          bytes.write(attributes, at);
        });
        return new NoticeResourceBytes(bytes, bounds);
      },
    };
  }

  /**
   * Exactly `JSON.stringify(noticeDocument(notices, total, options))` for the notices at
   * `positions`, in that order, without a fieldset, as UTF-8, in a buffer of `size` bytes from
   * `allocate` (by default memory of its own: offset 0, the whole `ArrayBuffer`, which can be
   * transferred to another thread as it is).
   */
  document(
    positions: ArrayLike<number>,
    total: number,
    options: Parameters<typeof noticeDocumentEnds>[1],
    allocate: (size: number) => Buffer = Buffer.allocUnsafeSlow,
  ): Buffer {
    const [head, tail] = noticeDocumentEnds(total, options);
    const url = jsonEscaped(options.collectionUrl);
    const beforeId = Buffer.from(`${RESOURCE_TEXT.beforeUrl}${url}/`);
    const beforeRelationshipId = Buffer.from(`${RESOURCE_TEXT.beforeRelationshipUrl}${url}/`);
    const { bytes, bounds } = this;
    const count = positions.length;
    const constant =
      START.length + beforeId.length + beforeRelationshipId.length + RELATIONSHIP.length + END.length;
    let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, count - 1) + constant * count;
    for (let index = 0; index < count; index++) {
      const position = positions[index]!;
      const id = bounds[position * 3]!;
      const version = bounds[position * 3 + 1]!;
      const attributes = bounds[position * 3 + 2]!;
      const end = bounds[position * 3 + 3]!;
      // The id three times, the version twice, the attributes once.
      size += 3 * (version - id) + 2 * (attributes - version) + (end - attributes);
    }
    const page = allocate(size);
    let at = page.write(head, 0);
    for (let index = 0; index < count; index++) {
      const position = positions[index]!;
      const id = bounds[position * 3]!;
      const version = bounds[position * 3 + 1]!;
      const attributes = bounds[position * 3 + 2]!;
      if (index > 0) page[at++] = COMMA;
      at += START.copy(page, at);
      at = copyBytes(bytes, id, version, page, at);
      at += beforeId.copy(page, at);
      // The id, the version and the attributes lie one after the other, as the self link ends.
      at += bytes.copy(page, at, id, bounds[position * 3 + 3]!);
      at += beforeRelationshipId.copy(page, at);
      at = copyBytes(bytes, id, version, page, at);
      at += RELATIONSHIP.copy(page, at);
      at = copyBytes(bytes, version, attributes, page, at);
      at += END.copy(page, at);
    }
    page.write(tail, at);
    return page;
  }

  /**
   * The notice at `position` read back from its bytes: JSON text parses back to the strings it was
   * written from, lone surrogates included. Its times, which the bytes hold formatted, are given
   * in seconds (`noticeFromAttributes`).
   */
  noticeAt(position: number, times: { createdAt: number; updatedAt: number }): Notice {
    const { bytes, bounds } = this;
    const id = bounds[position * 3]!;
    const version = bounds[position * 3 + 1]!;
    const attributes = bounds[position * 3 + 2]!;
    const end = bounds[position * 3 + 3]!;
    return noticeFromAttributes(
      JSON.parse(`"${bytes.toString("utf8", id, version)}"`) as string,
      Number(bytes.toString("latin1", version + RESOURCE_TEXT.version.length, attributes)),
      JSON.parse(
        bytes.toString("utf8", attributes + RESOURCE_TEXT.attributes.length, end),
      ) as NoticeAttributes,
      times,
    );
  }
}

/**
 * Copies `source[start, end)` to `target` at `at` and returns where it ended: a loop, for the few
 * bytes of an id or a version, where `Buffer#copy` would make a view of the range each time.
 */
function copyBytes(source: Buffer, start: number, end: number, target: Buffer, at: number): number {
  for (let from = start; from < end; from++) target[at++] = source[from]!;
  return at;
}
