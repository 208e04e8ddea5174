/**
 * Token budgets kept incrementally (docs/conversations.md): each item is counted once, when it enters; a running prefix sum gives
 * the total in O(1) and, by binary search, how many of the oldest items to leave out to fit a budget in O(log n).
 */
export class RunningTokens {
  /** prefix[i] = tokens of the first i items. */
  private prefix: number[] = [0];

  /** Add one item's count (≥ 0). */
  push(tokens: number): void {
    if (!(tokens >= 0)) throw new RangeError(`a token count must be ≥ 0 (got ${tokens})`);
    this.prefix.push(this.prefix[this.prefix.length - 1]! + tokens);
  }

  /** Forget every item. */
  clear(): void {
    this.prefix = [0];
  }

  get length(): number {
    return this.prefix.length - 1;
  }

  /** Tokens of all items. */
  get total(): number {
    return this.prefix[this.prefix.length - 1]!;
  }

  /** Tokens of the items from `from` (inclusive) to the end. */
  from(from: number): number {
    return this.total - this.prefix[Math.max(0, Math.min(from, this.length))]!;
  }

  /** The smallest index k such that the items k… fit in `budget` tokens (= length when nothing fits). */
  fitFrom(budget: number): number {
    const total = this.total;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (total - this.prefix[mid]! <= budget) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
