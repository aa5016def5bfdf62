/** Thrown when a row is older than the rows already forgotten: the file must be read keeping every row. */
export class OutOfWindowError extends Error {
  constructor() {
    super("a row is older than the duplicate-detection window");
    this.name = "OutOfWindowError";
  }
}

/**
 * Counts identical rows within one file, so that each gets its own id (the n-th copy's id derives
 * from n). Identical rows share their created time, and extracts come nearly in created order
 * (the real 2021-07-08 extract steps back at most 9.6 hours), so only rows created within
 * `windowSeconds` of the newest seen are remembered: memory stays that of a week of complaints
 * however large the file. A row older than what was already forgotten throws OutOfWindowError;
 * the importer then reads the file again with no window (exact, memory growing with the file).
 */
export class RowOccurrences {
  private readonly counts = new Map<string, number>();
  private newest = Number.NEGATIVE_INFINITY;
  /** Rows created before this may have been forgotten. */
  private forgottenBefore = Number.NEGATIVE_INFINITY;
  private sinceSweep = 0;

  /** @param windowSeconds null: remember every row of the file. */
  constructor(private readonly windowSeconds: number | null = 7 * 86_400) {}

  /**
   * How many identical rows came before this one in the file (0 for the first), then counts it.
   * @param firstId the id the row gets as a first occurrence; it begins with the created time.
   */
  next(firstId: string, createdAt: number): number {
    if (createdAt < this.forgottenBefore) throw new OutOfWindowError();
    if (createdAt > this.newest) this.newest = createdAt;
    const occurrence = this.counts.get(firstId) ?? 0;
    this.counts.set(firstId, occurrence + 1);
    if (this.windowSeconds !== null && ++this.sinceSweep >= 50_000) this.sweep(this.windowSeconds);
    return occurrence;
  }

  private sweep(windowSeconds: number): void {
    this.sinceSweep = 0;
    const horizon = this.newest - windowSeconds;
    if (horizon <= this.forgottenBefore || horizon <= 0) return;
    const prefix = Math.floor(horizon).toString(16).padStart(8, "0");
    // Ids begin with the created time in 8 hex digits, so they compare as the times do.
    for (const id of this.counts.keys()) if (id.slice(0, 8) < prefix) this.counts.delete(id);
    this.forgottenBefore = horizon;
  }
}
