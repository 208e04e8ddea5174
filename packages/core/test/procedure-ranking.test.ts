import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROCEDURE_RANKING,
  procedureRelevance,
  procedureScore,
  rankingRate,
  rankProcedures,
  successRate,
} from '../src/domain/procedure-ranking.js';

const count = fc.integer({ min: 0, max: 500 });
const relevance = fc.double({ min: 0.01, max: 1, noNaN: true });
const options = fc.record({
  successWeight: fc.double({ min: 0.05, max: 1, noNaN: true }),
  smoothing: fc.double({ min: 0, max: 10, noNaN: true }),
  // 0 or a real weight: denormal weights (5e-324) only test floating-point underflow.
  keywordWeight: fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 2, noNaN: true })),
  vectorWeight: fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 2, noNaN: true })),
});
const both = { keyword: true, vector: true };

describe('procedure ranking', () => {
  it('successRate is successes / uses, 0 when unused', () => {
    expect(successRate(0, 0)).toBe(0);
    expect(successRate(3, 1)).toBe(0.75);
    expect(successRate(0, 4)).toBe(0);
    fc.assert(fc.property(count, count, (s, f) => successRate(s, f) >= 0 && successRate(s, f) <= 1));
  });

  it('the default uses the plain success rate: score = relevance × (0.5 + 0.5 × rate)', () => {
    expect(procedureScore(1, 0, 0)).toBe(0.5);
    expect(procedureScore(0.8, 3, 1)).toBeCloseTo(0.8 * (0.5 + 0.5 * 0.75));
    expect(rankingRate(0, 0, 2)).toBe(0.5);
    expect(DEFAULT_PROCEDURE_RANKING).toEqual({
      successWeight: 0.5,
      smoothing: 0,
      keywordWeight: 1,
      vectorWeight: 0.5,
    });
  });

  it('at equal relevance, one more success never lowers the score and one more failure never raises it', () => {
    fc.assert(
      fc.property(relevance, count, count, options, (r, s, f, o) => {
        const base = procedureScore(r, s, f, o);
        return procedureScore(r, s + 1, f, o) >= base - 1e-12 && procedureScore(r, s, f + 1, o) <= base + 1e-12;
      }),
    );
  });

  it('at an equal track record, more relevance scores higher; no relevance scores 0', () => {
    fc.assert(
      fc.property(relevance, relevance, count, count, options, (a, b, s, f, o) => {
        // Relevances a rounding step apart may score the same (the score is relevance × one factor): the ranking
        // promise is for relevances that differ, not for neighbouring doubles.
        fc.pre(Math.abs(a - b) > 1e-12 * Math.max(a, b) && (o.successWeight < 1 || s > 0 || o.smoothing > 0));
        return a < b
          ? procedureScore(a, s, f, o) < procedureScore(b, s, f, o)
          : procedureScore(a, s, f, o) > procedureScore(b, s, f, o);
      }),
    );
    fc.assert(fc.property(count, count, options, (s, f, o) => procedureScore(0, s, f, o) === 0));
  });

  it('the score stays within [0, relevance]', () => {
    fc.assert(
      fc.property(relevance, count, count, options, (r, s, f, o) => {
        const score = procedureScore(r, s, f, o);
        return score >= 0 && score <= r + 1e-12;
      }),
    );
  });

  it('relevance is score-based, in [0, 1], and grows with either arm', () => {
    const score = fc.option(fc.double({ min: 0, max: 50, noNaN: true }), { nil: null });
    const sim = fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: null });
    fc.assert(
      fc.property(
        score,
        sim,
        fc.double({ min: 0.01, max: 50, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (k, v, extra, dv) => {
          const top = Math.max(k ?? 0, 1) + extra;
          const r = procedureRelevance({ keywordScore: k, similarity: v }, top, both);
          const moreKeyword = procedureRelevance(
            { keywordScore: (k ?? 0) + Math.min(extra, top - (k ?? 0)), similarity: v },
            top,
            both,
          );
          const moreVector = procedureRelevance({ keywordScore: k, similarity: Math.min(1, (v ?? 0) + dv) }, top, both);
          return r >= 0 && r <= 1 && moreKeyword >= r - 1e-12 && moreVector >= r - 1e-12;
        },
      ),
    );
    expect(procedureRelevance({ keywordScore: 4, similarity: 0.8 }, 4, both)).toBeCloseTo((1 + 0.5 * 0.8) / 1.5);
    expect(procedureRelevance({ keywordScore: 2, similarity: null }, 4, { keyword: true, vector: false })).toBe(0.5);
    expect(procedureRelevance({ keywordScore: null, similarity: -0.3 }, 4, both)).toBe(0);
  });

  it('ranks succeeding procedures above equally relevant failing ones, in a stable order', () => {
    const candidate = fc.record({
      keywordScore: fc.option(fc.double({ min: 0.01, max: 20, noNaN: true }), { nil: null }),
      similarity: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: null }),
      successCount: count,
      failureCount: count,
    });
    fc.assert(
      fc.property(fc.array(candidate, { minLength: 1, maxLength: 20 }), options, (items, o) => {
        const candidates = items.map((c, i) => ({ ...c, id: `p${String(i).padStart(2, '0')}` }));
        const ranked = rankProcedures(candidates, both, o);
        for (let i = 1; i < ranked.length; i++) if (ranked[i - 1]!.score < ranked[i]!.score) return false;
        // Equal relevance: the better track record never ranks below the worse one.
        for (const a of ranked) {
          for (const b of ranked) {
            if (
              a.relevance === b.relevance &&
              rankingRate(a.successCount, a.failureCount, o.smoothing) >
                rankingRate(b.successCount, b.failureCount, o.smoothing)
            ) {
              if (ranked.indexOf(a) > ranked.indexOf(b)) return false;
            }
          }
        }
        return JSON.stringify(rankProcedures([...candidates].reverse(), both, o)) === JSON.stringify(ranked);
      }),
    );
    const same = { keywordScore: 3, similarity: 0.7 };
    const ranked = rankProcedures(
      [
        { id: 'fails', ...same, successCount: 0, failureCount: 5 },
        { id: 'works', ...same, successCount: 5, failureCount: 0 },
        { id: 'new', ...same, successCount: 0, failureCount: 0 },
        { id: 'unrelated', keywordScore: null, similarity: -0.2, successCount: 9, failureCount: 0 },
      ],
      both,
    );
    expect(ranked[0]).toMatchObject({ id: 'works', successRate: 1 });
    expect(ranked.map((r) => r.id)).toEqual(['works', 'fails', 'new']);
    const smoothed = rankProcedures(
      [
        { id: 'fails', ...same, successCount: 0, failureCount: 5 },
        { id: 'new', ...same, successCount: 0, failureCount: 0 },
      ],
      both,
      { ...DEFAULT_PROCEDURE_RANKING, smoothing: 2 },
    );
    expect(smoothed.map((r) => r.id)).toEqual(['new', 'fails']);
    // A barely matching procedure stays below a strong match, however often it succeeded.
    const strong = rankProcedures(
      [
        { id: 'exact', keywordScore: 5, similarity: null, successCount: 1, failureCount: 1 },
        { id: 'marginal', keywordScore: 0.5, similarity: null, successCount: 50, failureCount: 0 },
      ],
      { keyword: true, vector: false },
    );
    expect(strong.map((r) => r.id)).toEqual(['exact', 'marginal']);
  });
});
