/**
 * Which keys were asked for recently, so that a cache keeps a value from its key's second request
 * on: under distinct requests (clients walking days, offsets and filters), values asked for once
 * would otherwise push out the repeated ones, and each kept value outlives the young generation
 * only to be collected from the old one later, at the price of a full collection of the heap.
 * Remembers the last `remembered` to `2 * remembered` keys (two generations of a set each); keys
 * should be short digests, whatever they stand for.
 */
export class AskedKeys {
  private now = new Set<string>();
  private earlier = new Set<string>();

  constructor(private readonly remembered: number) {}

  /** True when `key` was asked for recently; else notes it and says false. */
  askedBefore(key: string): boolean {
    if (this.now.has(key) || this.earlier.has(key)) return true;
    if (this.now.size >= this.remembered) {
      this.earlier = this.now;
      this.now = new Set();
    }
    this.now.add(key);
    return false;
  }
}
