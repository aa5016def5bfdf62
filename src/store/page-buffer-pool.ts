/** The smallest and largest memory a pooled page gets, in bytes: powers of two. */
const SMALLEST_BYTES = 16 * 1024;
const LARGEST_BYTES = 1024 * 1024;

/** Memory the pool holds unused at most, in bytes, over all sizes. */
const HELD_BYTES = 8 * 1024 * 1024;

/**
 * Memory for list pages, used again once a page is sent. A page's bytes lie outside the JS heap,
 * but they are freed only when the collector finds their buffer dead, and the event loop's buffers
 * live a request's whole round trip, long enough to be promoted into the old generation: between
 * two of its (rare, costly) collections the dead pages of thousands of requests stayed resident
 * (about 20 MB at 6,000 requests a second). Pages given back (`give`, after they are sent) are
 * handed out again (`take`), so that the memory for pages stays what the requests in flight need.
 *
 * Memory comes in powers of two from 16 KB to 1 MB; a page over 1 MB gets memory of its own, never
 * pooled. Each `ArrayBuffer` handed out is the page's alone (offset 0), so that it can be
 * transferred between threads and back.
 */
export class PageBufferPool {
  private readonly free = new Map<number, ArrayBuffer[]>();
  private heldBytes = 0;

  /** A buffer of `size` bytes (contents undefined) over memory of its own. */
  take(size: number): Buffer {
    const capacity = capacityFor(size);
    if (capacity === undefined) return Buffer.allocUnsafeSlow(size);
    const memory = this.free.get(capacity)?.pop();
    if (memory === undefined) return Buffer.from(new ArrayBuffer(capacity), 0, size);
    this.heldBytes -= capacity;
    return Buffer.from(memory, 0, size);
  }

  /**
   * Takes `memory` back for later pages. Only memory this pool's kind hands out (a size it pools)
   * is kept, and no more than the pool holds; the caller must not use it again.
   */
  give(memory: ArrayBuffer): void {
    const capacity = memory.byteLength;
    if (capacityFor(capacity) !== capacity || this.heldBytes + capacity > HELD_BYTES) return;
    let list = this.free.get(capacity);
    if (list === undefined) {
      list = [];
      this.free.set(capacity, list);
    }
    list.push(memory);
    this.heldBytes += capacity;
  }

  /** Unused memory held now, in bytes. */
  get unusedBytes(): number {
    return this.heldBytes;
  }
}

/** The pooled capacity for a page of `size` bytes, or undefined when such a page is not pooled. */
function capacityFor(size: number): number | undefined {
  if (size > LARGEST_BYTES) return undefined;
  let capacity = SMALLEST_BYTES;
  while (capacity < size) capacity *= 2;
  return capacity;
}
