import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accessFactor,
  finalScore,
  fuseRRF,
  fuseScores,
  MULTIPLIER_LIMIT,
  multiplierEffect,
  neighbourShare,
  recencyFactor,
  sessionContext,
  usefulnessFactor,
  withoutLengthNorm,
} from '../src/domain/ranking.js';
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack } from '../src/index.js';

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

  it('fusion keeps each arm’s evidence: a one-word match stays far below a full match, whatever its rank', () => {
    const options = { k: 60, keywordWeight: 1, vectorWeight: 0.05 };
    const fused = fuseScores(
      [
        { id: 'exact', score: 12.4 },
        { id: 'one-word', score: 1.1 },
      ],
      [
        { id: 'one-word', similarity: 0.24 },
        { id: 'exact', similarity: 0.21 },
        { id: 'unrelated', similarity: 0.05 },
      ],
      options,
    );
    const byId = Object.fromEntries(fused.map((f) => [f.id, f]));
    expect(fused.map((f) => f.id)).toEqual(['exact', 'one-word', 'unrelated']);
    expect(byId.exact!.relevance).toBeGreaterThan(0.95);
    expect(byId['one-word']!.relevance).toBeLessThan(0.2); // under RRF it was 0.98: rank 2 of 2
    expect(byId.unrelated!.relevance).toBe(0); // the vector arm's floor counts nothing
    expect(byId.exact!.keywordRank).toBe(1);
    expect(byId.exact!.vectorRank).toBe(2);
    // The best hit of every arm that ran is relevance 1.
    expect(fuseScores([{ id: 'x', score: 3 }], [], options, { keyword: true, vector: false })[0]!.relevance).toBe(1);
    expect(
      fuseScores([], [{ id: 'y', similarity: 0.3 }], options, { keyword: false, vector: true })[0]!.relevance,
    ).toBe(1);
  });

  it('the multipliers reorder near-equals but never lift a result over one with more than 4× its relevance', () => {
    const factor = fc.record({
      recency: fc.double({ min: 0, max: 1, noNaN: true }),
      access: fc.double({ min: 1, max: 1.5, noNaN: true }),
      quality: fc.constantFrom(0.5, 0.7, 1, 1.5),
      pathWeight: fc.constantFrom(0.3, 0.8, 1, 1.1, 1.2, 1.3, 1.4),
      usefulness: fc.double({ min: 0.5, max: 2, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.2, noNaN: true }),
        fc.double({ min: 4.0001, max: 1_000, noNaN: true }),
        factor,
        factor,
        (weak, ratio, fw, fs) => {
          const strong = Math.min(1, weak * ratio);
          if (strong <= 4 * weak) return true;
          return finalScore({ relevance: strong, ...fs }) > finalScore({ relevance: weak, ...fw });
        },
      ),
    );
    // Near 1 the effect is close to the product itself; it never leaves [1/L, L].
    expect(multiplierEffect(1)).toBe(1);
    expect(multiplierEffect(1.1)).toBeCloseTo(1.1, 1);
    expect(multiplierEffect(84)).toBeLessThan(MULTIPLIER_LIMIT);
    expect(multiplierEffect(0)).toBe(1 / MULTIPLIER_LIMIT);
  });

  it('a weak match under /longterm does not beat a strong match elsewhere on path weight alone', async () => {
    const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: createHashingEmbedder() });
    const worker = { space: 'acme', agentId: 'ops', role: 'worker' } as const;
    const lead = { space: 'acme', agentId: 'lead1', role: 'lead' } as const;
    await stack.knowledge.store(worker, {
      content: 'Postgres connection pool size for the billing API is 20 connections.',
      name: 'Billing API pool size',
    });
    await stack.knowledge.store(lead, {
      content:
        'We started as a two-person team in a garage; the size of the team tripled in the second year and we moved downtown.',
      name: 'Origins',
      key: '/longterm/company-story/origins',
      scope: 'swarm',
    });
    const results = await stack.knowledge.search(worker, { query: 'postgres connection pool size' });
    expect(results[0]!.name).toBe('Billing API pool size');
    const garage = results.find((r) => r.name === 'Origins');
    if (garage) expect(garage.relevance).toBeLessThan(0.25 * results[0]!.relevance);
  });

  it('taking BM25 length normalisation out: a long text with the same match is no longer below a short one', () => {
    const norm = { kind: 'bm25', k1: 1.2, b: 0.75 } as const;
    // BM25 (b = 0.75) of one matched term with tf 1 and idf 2, for a text of `len` tokens, corpus mean 10.
    const bm25 = (len: number) => (2 * 2.2) / (1 + 1.2 * (0.25 + (0.75 * len) / 10));
    const short = withoutLengthNorm(bm25(5), 5, 10, norm);
    const long = withoutLengthNorm(bm25(40), 40, 10, norm);
    expect(bm25(40)).toBeLessThan(bm25(5) * 0.6);
    expect(short).toBeCloseTo(2, 10);
    expect(long).toBeCloseTo(2, 10);
    // PostgreSQL's normalisation 1 (÷ 1 + ln length) is undone the same way.
    expect(withoutLengthNorm(1 / (1 + Math.log(20)), 20, 10, { kind: 'log' })).toBeCloseTo(1, 10);
    // No declared normalisation, or no match: unchanged.
    expect(withoutLengthNorm(3, 40, 10, undefined)).toBe(3);
    expect(withoutLengthNorm(0, 40, 10, norm)).toBe(0);
  });

  it('the session context lifts the memories said beside a strong match, per owner and session', () => {
    const hour = 3_600_000;
    const members = [
      { id: 'q', relevance: 1, owner: 'agent/a', at: 0 }, // the strong match
      { id: 'answer', relevance: 0.1, owner: 'agent/a', at: 60_000 }, // two turns later, same session
      { id: 'later', relevance: 0.1, owner: 'agent/a', at: 5 * hour }, // another session
      { id: 'other', relevance: 0.1, owner: 'agent/b', at: 30_000 }, // another owner
    ];
    const out = sessionContext(members, { weight: 0.5, gapMinutes: 30 });
    expect(out.get('q')).toBeCloseTo(1, 10);
    expect(out.get('answer')).toBeCloseTo((0.1 + 0.5) / 1.5, 10);
    expect(out.get('later')).toBeCloseTo(0.1, 10);
    expect(out.get('other')).toBeCloseTo(0.1, 10);
    // Weight 0 is the rule turned off.
    expect(sessionContext(members, { weight: 0, gapMinutes: 30 }).get('answer')).toBe(0.1);
    // A chain of turns each within the gap is one session, however long it runs.
    const chain = Array.from({ length: 6 }, (_, i) => ({
      id: `t${i}`,
      relevance: i === 0 ? 1 : 0,
      owner: 'o',
      at: i * 20 * 60_000,
    }));
    expect(sessionContext(chain, { weight: 1, gapMinutes: 30 }).get('t5')).toBeCloseTo(0.5, 10);
  });

  it('the neighbouring turns share the best match next to them, in (at, id) order, per owner', () => {
    const members = [
      { id: 'a1', relevance: 0, owner: 'o', at: 0 },
      { id: 'a2', relevance: 1, owner: 'o', at: 0 }, // the strong match
      { id: 'a3', relevance: 0, owner: 'o', at: 0 }, // the answer right after it
      { id: 'a4', relevance: 0.2, owner: 'o', at: 0 }, // two turns away: no share at radius 1
      { id: 'b1', relevance: 0, owner: 'p', at: 0 }, // another owner at the same moment
    ];
    const out = neighbourShare(members, new Set(['a2']), { weight: 0.5, radius: 1, depth: 10 });
    expect(out.get('a3')).toBeCloseTo(0.5 / 1.5, 10);
    expect(out.get('a1')).toBeCloseTo(0.5 / 1.5, 10);
    // The strong match keeps its own relevance, and so does every member next to nothing stronger.
    expect(out.get('a2')).toBe(1);
    expect(out.get('a4')).toBe(0.2);
    expect(out.get('b1')).toBe(0);
    // Radius 2 reaches a4; only members looked around give a share; weight 0 is the rule turned off.
    expect(neighbourShare(members, new Set(['a2']), { weight: 0.5, radius: 2, depth: 10 }).get('a4')).toBeCloseTo(
      0.7 / 1.5,
      10,
    );
    expect(neighbourShare(members, new Set(['a4']), { weight: 0.5, radius: 1, depth: 10 }).get('a3')).toBeCloseTo(
      0.1 / 1.5,
      10,
    );
    expect(neighbourShare(members, new Set(['a4']), { weight: 0.5, radius: 1, depth: 10 }).get('a2')).toBe(1);
    expect(neighbourShare(members, new Set(['a2']), { weight: 0, radius: 1, depth: 10 }).get('a3')).toBe(0);
  });

  it('a neighbour never rises above the match it borrows from, and nothing falls', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ relevance: unit, at: fc.integer({ min: 0, max: 5 }) }), { minLength: 2, maxLength: 20 }),
        fc.double({ min: 0.01, max: 3, noNaN: true }),
        (list, weight) => {
          const members = list.map((m, i) => ({ id: `m${String(i).padStart(2, '0')}`, owner: 'o', ...m }));
          const top = [...members].sort((a, b) => b.relevance - a.relevance)[0]!;
          const out = neighbourShare(members, new Set([top.id]), { weight, radius: 1, depth: 1 });
          for (const m of members) {
            expect(out.get(m.id)!).toBeLessThanOrEqual(top.relevance + 1e-12);
            expect(out.get(m.id)!).toBeGreaterThanOrEqual(m.relevance);
          }
        },
      ),
    );
  });

  it('the session context never lifts a memory above the best of its session, nor above 1', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            relevance: unit,
            at: fc.integer({ min: 0, max: 10 * 3_600_000 }),
            owner: fc.constantFrom('a', 'b'),
          }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        fc.double({ min: 0, max: 2, noNaN: true }),
        (rows, weight) => {
          const members = rows.map((r, i) => ({ ...r, id: `m${i}` }));
          const out = sessionContext(members, { weight, gapMinutes: 30 });
          const top = Math.max(...members.map((m) => m.relevance));
          for (const m of members) {
            const v = out.get(m.id)!;
            expect(v).toBeGreaterThanOrEqual(m.relevance - 1e-12);
            expect(v).toBeLessThanOrEqual(top + 1e-12);
          }
        },
      ),
    );
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

describe('countWords', () => {
  it('counts what tokenize finds, without building the words', async () => {
    const { countWords, tokenize } = await import('../src/domain/text.js');
    for (const t of [
      'Caroline: I went to the LGBTQ support group yesterday!',
      '  many   spaces\tand\nlines  ',
      'naïve café — 東京 2023',
      '',
      'a-b_c.d',
    ])
      expect(countWords(t)).toBe(tokenize(t).length);
  });
});
