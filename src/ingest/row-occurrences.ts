import { SECONDS_PER_DAY } from "../domain/time.js";

/**
 * Thrown when a row is older than the rows already forgotten: the file must be read again with a
 * window reaching at least `stepBackSeconds` back from the newest row.
 */
export class OutOfWindowError extends Error {
  constructor(readonly stepBackSeconds: number) {
    super(
      `a row is ${stepBackSeconds} s older than the newest before it, beyond the duplicate-detection window`,
    );
    this.name = "OutOfWindowError";
  }
}

/**
 * The window of a first reading: a day, twice the real extract's largest step back. A file that
 * steps back further is read again with a wider window (see `widerWindow`).
 */
export const FIRST_WINDOW_SECONDS = SECONDS_PER_DAY;

/** Beyond this a window is no window: every row of the file is remembered. */
const LONGEST_WINDOW_SECONDS = 5 * 366 * SECONDS_PER_DAY;

/**
 * The window to read a file with again after `err`: wide enough for the row that stepped back,
 * and at least four times the last, so that a file needs few readings however it is ordered.
 * Null (remember every row) once that would exceed five years.
 */
export function widerWindow(windowSeconds: number, err: OutOfWindowError): number | null {
  const wider = Math.max(windowSeconds * 4, Math.ceil(err.stepBackSeconds * 2));
  return wider > LONGEST_WINDOW_SECONDS ? null : wider;
}

/** 32-bit words in a slot: the id's four words (time, then 96 bits of hash) and the count. */
const SLOT_WORDS = 5;
const INITIAL_SLOTS = 1 << 12;
/** The table grows (or, with a window, is first swept) when more than this share of it is used. */
const MAX_LOAD = 0.5;
/** After a sweep, the share of the new table the kept rows may fill (room before the next sweep). */
const SWEPT_LOAD = 0.375;

/**
 * Counts identical rows within one file, so that each gets its own id (the n-th copy's id derives
 * from n). Identical rows share their created time, and extracts come nearly in created order
 * (the real 2021-07-08 extract steps back at most 9.6 hours), so only rows created within
 * `windowSeconds` of the newest seen are remembered: memory stays that of the window's complaints
 * however large the file. A row older than what was already forgotten throws OutOfWindowError;
 * the importer then reads the file again with a window wide enough for that row.
 *
 * Rows are told apart by their first id (`complaintId` for occurrence 0), as a map keyed by it
 * would, but held as its four 32-bit words in an open-addressing table of typed arrays: 20 bytes a
 * slot, outside the garbage-collected heap, where a Map of id strings costs about 150 bytes a row
 * and 200 MB of a parsing thread's heap at a year of 20 million complaints.
 */
export class RowOccurrences {
  private slots: Uint32Array = new Uint32Array(INITIAL_SLOTS * SLOT_WORDS);
  /**
   * The table before the last resize, when of the same size, reused by the next: a window's sweeps
   * then allocate nothing, where a new table each time left garbage outside the heap that the
   * collector frees only in bulk (up to about 64 MB).
   */
  private spare: Uint32Array | undefined;
  private capacity = INITIAL_SLOTS;
  private used = 0;
  private newest = Number.NEGATIVE_INFINITY;
  /** Rows created before this may have been forgotten. */
  private forgottenBefore = Number.NEGATIVE_INFINITY;

  /** @param windowSeconds null: remember every row of the file. */
  constructor(private readonly windowSeconds: number | null = FIRST_WINDOW_SECONDS) {}

  /**
   * How many identical rows came before this one in the file (0 for the first), then counts it.
   * @param firstId the id the row gets as a first occurrence: 32 hex digits, the created time first.
   */
  next(firstId: string, createdAt: number): number {
    if (createdAt < this.forgottenBefore) throw new OutOfWindowError(this.newest - createdAt);
    if (createdAt > this.newest) this.newest = createdAt;
    const time = Number.parseInt(firstId.slice(0, 8), 16);
    const a = Number.parseInt(firstId.slice(8, 16), 16);
    const b = Number.parseInt(firstId.slice(16, 24), 16);
    const c = Number.parseInt(firstId.slice(24, 32), 16);
    const slot = this.find(time, a, b, c);
    const at = slot * SLOT_WORDS;
    const slots = this.slots;
    const occurrence = slots[at + 4]!;
    slots[at + 4] = occurrence + 1;
    if (occurrence > 0) return occurrence;
    slots[at] = time;
    slots[at + 1] = a;
    slots[at + 2] = b;
    slots[at + 3] = c;
    if (++this.used > this.capacity * MAX_LOAD) {
      if (this.windowSeconds === null) this.resize(this.capacity * 2);
      else this.sweep(this.windowSeconds);
    }
    return 0;
  }

  /** The slot holding this id, or the empty slot where it goes (a count of 0 marks a slot empty). */
  private find(time: number, a: number, b: number, c: number): number {
    const mask = this.capacity - 1;
    // The hash words are already uniform; mixing in the time spreads ids that share them.
    let slot = (Math.imul(a ^ time, 0x9e3779b1) >>> 0) & mask;
    for (;;) {
      const at = slot * SLOT_WORDS;
      const slots = this.slots;
      if (
        slots[at + 4] === 0 ||
        (slots[at + 1] === a && slots[at + 2] === b && slots[at + 3] === c && slots[at] === time)
      )
        return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** Moves the slots kept (all, or those created at or after `keepFrom`) into a table of `capacity`. */
  private resize(capacity: number, keepFrom = 0): void {
    const old = this.slots;
    const words = capacity * SLOT_WORDS;
    this.slots = this.spare?.length === words ? this.spare.fill(0) : new Uint32Array(words);
    this.spare = old.length === words ? old : undefined;
    this.capacity = capacity;
    this.used = 0;
    for (let at = 0; at < old.length; at += SLOT_WORDS) {
      if (old[at + 4] === 0 || old[at]! < keepFrom) continue;
      const slot = this.find(old[at]!, old[at + 1]!, old[at + 2]!, old[at + 3]!);
      this.slots.set(old.subarray(at, at + SLOT_WORDS), slot * SLOT_WORDS);
      this.used++;
    }
  }

  /**
   * Forgets the rows created before the window and moves the rest into a table they fill to at
   * most SWEPT_LOAD: each sweep is paid for by the rows added since the last, and the table holds
   * at most a window of rows (a little over twice that in slots).
   */
  private sweep(windowSeconds: number): void {
    const horizon = this.newest - windowSeconds;
    const forgets = horizon > 0 && horizon > this.forgottenBefore;
    // An id's first word is its created time (clamped to 32 bits), so it compares as the times do.
    const keepFrom = forgets ? Math.min(Math.floor(horizon), 0xffff_ffff) : 0;
    let kept = 0;
    for (let at = 0; at < this.slots.length; at += SLOT_WORDS)
      if (this.slots[at + 4] !== 0 && this.slots[at]! >= keepFrom) kept++;
    let capacity = INITIAL_SLOTS;
    while (kept > capacity * SWEPT_LOAD) capacity *= 2;
    this.resize(capacity, keepFrom);
    if (forgets) this.forgottenBefore = horizon;
  }
}
