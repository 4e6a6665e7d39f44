/** Below this many taken entries the array is not compacted: a copy would cost more than it frees. */
const COMPACT_AFTER = 1024;

/**
 * A first-in first-out queue on an array and a head index: `shift` is O(1) (Array#shift moves every
 * entry, which on a window of 180,000 requests costs more than the request). The taken entries are
 * dropped in one copy once they are at least half of the array, so each entry is copied at most once
 * on average.
 */
export class WindowQueue<T> {
  private items: T[] = [];
  private head = 0;

  size(): number {
    return this.items.length - this.head;
  }

  first(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.head += 1;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let index = this.head; index < this.items.length; index += 1) yield this.items[index] as T;
  }
}
