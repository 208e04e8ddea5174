import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accessFactor, finalScore, fuseRRF, recencyFactor, usefulnessFactor } from '../src/domain/ranking.js';

const unit = fc.double({ min: 0.01, max: 1, noNaN: true });
const positive = fc.double({ min: 0.1, max: 3, noNaN: true });

describe('ranking', () => {
  it('RRF gives both terms to a row found by both arms, and rank 1 in both is relevance 1', () => {
    const fused = fuseRRF(['a', 'b', 'c'], ['b', 'a', 'd'], { k: 60, keywordWeight: 1, vectorWeight: 0.5 });
    const byId = Object.fromEntries(fused.map((f) => [f.id, f]));
    expect(byId.a!.fused).toBeCloseTo(1 / 61 + 0.5 / 62);
    expect(byId.c!.fused).toBeCloseTo(1 / 63);
    expect(byId.d!.vectorRank).toBe(3);
    expect(fuseRRF(['x'], ['x'], { k: 60, keywordWeight: 1, vectorWeight: 0.5 })[0]!.relevance).toBe(1);
    expect(
      fuseRRF(['x'], [], { k: 60, keywordWeight: 1, vectorWeight: 0.5 }, { keyword: true, vector: false })[0]!
        .relevance,
    ).toBe(1);
  });

  it('every factor moves the score the way the spec says', () => {
    fc.assert(
      fc.property(
        unit,
        positive,
        positive,
        positive,
        positive,
        positive,
        (relevance, recency, access, quality, path, use) => {
          const base = { relevance, recency, access, quality, pathWeight: path, usefulness: use };
          const s = finalScore(base);
          return (
            finalScore({ ...base, relevance: relevance * 0.5 }) < s &&
            finalScore({ ...base, recency: recency * 0.5 }) < s &&
            finalScore({ ...base, access: access * 2 }) > s &&
            finalScore({ ...base, quality: quality * 2 }) > s &&
            finalScore({ ...base, pathWeight: path * 2 }) > s &&
            finalScore({ ...base, usefulness: use * 2 }) > s
          );
        },
      ),
    );
  });

  it('recency halves per half-life and never decays without one', () => {
    expect(recencyFactor(14, 14)).toBeCloseTo(0.5);
    expect(recencyFactor(28, 14)).toBeCloseTo(0.25);
    expect(recencyFactor(-3, 14)).toBe(1);
    expect(recencyFactor(1000, null)).toBe(1);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1000, noNaN: true }),
        fc.double({ min: 1, max: 365, noNaN: true }),
        (age, hl) => recencyFactor(age + 1, hl) < recencyFactor(age, hl),
      ),
    );
  });

  it('access boosts up to 1.5, half as much after 48 h', () => {
    expect(accessFactor(0, 1)).toBe(1);
    expect(accessFactor(3, null)).toBe(1);
    expect(accessFactor(3, 1)).toBeCloseTo(1.3);
    expect(accessFactor(3, 72)).toBeCloseTo(1.15);
    expect(accessFactor(100, 1)).toBeCloseTo(1.5);
  });

  it('usefulness moves up and down and stays within [0.5, 2]', () => {
    expect(usefulnessFactor(1, 1)).toBe(1);
    expect(usefulnessFactor(2, 1)).toBeGreaterThan(1);
    expect(usefulnessFactor(1, 2)).toBeLessThan(1);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), (a, b) => {
        const u = usefulnessFactor(a, b);
        return u >= 0.5 && u <= 2 && usefulnessFactor(a + 1, b) >= u && usefulnessFactor(a, b + 1) <= u;
      }),
    );
  });
});
