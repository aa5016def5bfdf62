/**
 * A small seeded pseudo-random source (mulberry32) for building test data that a seed replays
 * exactly, on every dialect and every run.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** An item drawn with the given weights (any positive numbers). */
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
    const total = items.reduce((sum, [, weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [item, weight] of items) {
      at -= weight;
      if (at < 0) return item;
    }
    return items[items.length - 1]![0];
  }

  /** An index into a list of `length` items, skewed towards the first (roughly Zipf-like). */
  skewedIndex(length: number, skew = 1.6): number {
    return Math.min(length - 1, Math.floor(length * this.next() ** skew));
  }

  /** `count` hex digits. */
  hex(count: number): string {
    let text = "";
    for (let index = 0; index < count; index++) text += this.int(0, 15).toString(16);
    return text;
  }
}
