/**
 * One window of one-second buckets in memory (see limit-store.ts): each bucket's amount, their sum
 * and the oldest bucket with anything in it. The same steps as the Redis script's `roll` and
 * `change` (redis-limit-scripts.ts), so that both stores answer alike.
 */
export class BucketWindow {
  private readonly amounts = new Map<number, number>();
  private sum = 0;
  private oldest: number | undefined;

  /**
   * Drops the buckets before `first` (the oldest in the window): at most once a second, when the
   * oldest bucket has left, the rest are summed again, so the sum never drifts.
   */
  roll(first: number): this {
    if (this.oldest === undefined || this.oldest >= first) return this;
    this.sum = 0;
    this.oldest = undefined;
    for (const [bucket, amount] of this.amounts) {
      if (bucket < first || amount <= 0) {
        this.amounts.delete(bucket);
        continue;
      }
      this.sum += amount;
      if (this.oldest === undefined || bucket < this.oldest) this.oldest = bucket;
    }
    return this;
  }

  total(): number {
    return this.sum;
  }

  /** The oldest bucket with anything in it, or undefined when the window is empty. */
  oldestBucket(): number | undefined {
    return this.sum > 0 ? this.oldest : undefined;
  }

  /** Adds `amount` (negative: takes it back) to a bucket; a bucket is never below 0. */
  change(bucket: number, amount: number): void {
    if (amount === 0) return;
    const value = (this.amounts.get(bucket) ?? 0) + amount;
    let delta = amount;
    if (value <= 0) {
      this.amounts.delete(bucket);
      delta = amount - value;
      // The oldest emptied (a settled estimate): the next oldest, for the window's reset.
      if (bucket === this.oldest) this.oldest = this.firstBucket();
    } else this.amounts.set(bucket, value);
    this.sum += delta;
    if (value === amount && amount > 0 && (this.oldest === undefined || bucket < this.oldest))
      this.oldest = bucket;
  }

  private firstBucket(): number | undefined {
    let first: number | undefined;
    for (const bucket of this.amounts.keys()) if (first === undefined || bucket < first) first = bucket;
    return first;
  }

  /** The buckets in the window with anything in them, oldest first. */
  buckets(first: number): [bucket: number, amount: number][] {
    return [...this.amounts]
      .filter(([bucket, amount]) => bucket >= first && amount > 0)
      .sort(([a], [b]) => a - b);
  }
}
