/**
 * The sequence numbers handed out and not yet written, kept without an entry per number: numbers are
 * handed out in order and nearly always written in order (batch after batch), so it keeps the lowest
 * one not written and a set of only those written ahead of it. A set of every unwritten number
 * reallocated its hash table over and over under load (numbers in at one end, out at the other),
 * and the tables lived long enough to be copied by the garbage collector's scavenges.
 *
 * A number that stays unwritten for good (a settlement the database refused even alone, kept in the
 * journal for the next start) would make every later number "ahead" of it: past AHEAD_LIMIT of
 * those, the lowest unwritten numbers are set aside as stragglers and the frontier moves on, so what
 * is kept stays bounded by the stragglers, which are few.
 */
export const AHEAD_LIMIT = 4096;

export class UnwrittenSeqs {
  #next: number;
  /** The lowest number not written at or above which writes are tracked in `#ahead`. */
  #low: number;
  /** Written, above `#low`: empty while writes come in order. */
  readonly #ahead = new Set<number>();
  /** Unwritten numbers below `#low`, set aside in ascending order (the first is the oldest). */
  readonly #stragglers = new Set<number>();

  readonly #aheadLimit: number;

  constructor(first = 1, aheadLimit = AHEAD_LIMIT) {
    this.#next = first;
    this.#low = first;
    this.#aheadLimit = aheadLimit;
  }

  /** Hands out the next number (unwritten until `written`). */
  take(): number {
    return this.#next++;
  }

  /** The next number `take` will hand out. */
  get next(): number {
    return this.#next;
  }

  /** This number is written; one never handed out, or already written, changes nothing. */
  written(seq: number): void {
    if (seq >= this.#next) return;
    if (seq < this.#low) {
      this.#stragglers.delete(seq);
      return;
    }
    if (seq !== this.#low) {
      this.#ahead.add(seq);
      while (this.#ahead.size > this.#aheadLimit) {
        this.#stragglers.add(this.#low);
        this.#advance(this.#low + 1);
      }
      return;
    }
    this.#advance(seq + 1);
  }

  #advance(from: number): void {
    let low = from;
    while (this.#ahead.delete(low)) low += 1;
    this.#low = low;
  }

  /** The lowest number not written; `next` when every number handed out is written. */
  get oldest(): number {
    for (const straggler of this.#stragglers) return straggler;
    return this.#low;
  }

  /** How many numbers handed out are not written. */
  get count(): number {
    return this.#stragglers.size + this.#next - this.#low - this.#ahead.size;
  }

  /** How many numbers it keeps in its sets (bounded: the ahead limit and the stragglers). */
  get kept(): number {
    return this.#ahead.size + this.#stragglers.size;
  }
}
