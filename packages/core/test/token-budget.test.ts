import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunningTokens } from '../src/domain/token-budget.js';

describe('running token totals', () => {
  it('total and from() equal the sums, and fitFrom() is the smallest start that fits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 500 }), { maxLength: 200 }),
        fc.integer({ min: -10, max: 20_000 }),
        (counts, budget) => {
          const r = new RunningTokens();
          for (const c of counts) r.push(c);
          const sum = (from: number) => counts.slice(from).reduce((a, b) => a + b, 0);
          expect(r.length).toBe(counts.length);
          expect(r.total).toBe(sum(0));
          const k = r.fitFrom(budget);
          expect(k).toBeGreaterThanOrEqual(0);
          expect(k).toBeLessThanOrEqual(counts.length);
          if (k < counts.length || budget >= 0) expect(sum(k) <= budget || k === counts.length).toBe(true);
          if (k > 0) expect(sum(k - 1)).toBeGreaterThan(budget);
          expect(r.from(k)).toBe(sum(k));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses negative counts and clears', () => {
    const r = new RunningTokens();
    expect(() => r.push(-1)).toThrow(RangeError);
    r.push(5);
    r.clear();
    expect(r.total).toBe(0);
    expect(r.fitFrom(0)).toBe(0);
  });
});
