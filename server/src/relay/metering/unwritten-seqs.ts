/**
 * The sequence numbers handed out and not yet written, kept without an entry per number: numbers are
 * handed out in order and nearly always written in order (batch after batch), so it keeps the lowest
 * one not written and a set of only those written ahead of it. A set of every unwritten number
 * reallocated its hash table over and over under load (numbers in at one end, out at the other),
 * and the tables lived long enough to be copied by the garbage collector's scavenges.
 */
export class UnwrittenSeqs {
  #next: number;
  #lowest: number;
  /** Written, above the lowest unwritten: empty while writes come in order. */
  readonly #ahead = new Set<number>();

  constructor(first = 1) {
    this.#next = first;
    this.#lowest = first;
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
    if (seq < this.#lowest || seq >= this.#next) return;
    if (seq !== this.#lowest) {
      this.#ahead.add(seq);
      return;
    }
    let lowest = seq + 1;
    while (this.#ahead.delete(lowest)) lowest += 1;
    this.#lowest = lowest;
  }

  /** The lowest number not written; `next` when every number handed out is written. */
  get oldest(): number {
    return this.#lowest;
  }

  /** How many numbers handed out are not written. */
  get count(): number {
    return this.#next - this.#lowest - this.#ahead.size;
  }
}
