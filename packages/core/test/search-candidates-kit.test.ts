import { describe, expect, it } from 'vitest';
import { type CandidateArms, type MemoryRecord, type SearchFilter, searchCandidatesWith } from '../src/adapter.js';
import { MemError } from '../src/index.js';

const filter: SearchFilter = { space: 'acme', viewerAgentId: 'alice', now: '2026-01-01T00:00:00.000Z' };

function row(id: string): MemoryRecord {
  return { id } as MemoryRecord;
}

/** Arms that record what they were asked, in order. */
function recording(overrides: Partial<CandidateArms> = {}) {
  const log: string[] = [];
  const arms: CandidateArms = {
    keyword: (terms, limit) => {
      log.push(`keyword ${terms.join(' ')} ${limit}`);
      return [
        { id: 'k1', score: 2 },
        { id: 'both', score: 1 },
      ];
    },
    vector: (vector, limit) => {
      log.push(`vector ${vector.length} ${limit}`);
      return [
        { id: 'both', similarity: 0.9 },
        { id: 'v1', similarity: 0.5 },
      ];
    },
    rows: (ids) => {
      log.push(`rows ${ids.join(',')}`);
      return ids.map(row);
    },
    neighbours: (ids, radius) => {
      log.push(`neighbours ${ids.join(',')} ${radius}`);
      return [row('n1')];
    },
    ...overrides,
  };
  return { arms, log };
}

describe('adapter kit: searchCandidatesWith', () => {
  it('runs the keyword arm before the vector is there, reads each hit once, then the neighbours the caller names', async () => {
    const { arms, log } = recording();
    let resolveVector!: (v: Float32Array) => void;
    const vector = new Promise<Float32Array>((resolve) => {
      resolveVector = resolve;
    });
    const seen: string[][] = [];
    const pending = searchCandidatesWith(
      {
        filter,
        terms: ['deploy', 'friday'],
        vector,
        limit: 7.9,
        neighbours: {
          radius: 2,
          around: (found) => {
            seen.push(found.rows.map((r) => r.id));
            return ['both', 'k1', 'both'];
          },
        },
      },
      arms,
    );
    // The keyword arm is asked synchronously, while the vector is still pending.
    expect(log).toEqual(['keyword deploy friday 7']);
    resolveVector(new Float32Array(3));
    const set = await pending;
    expect(log).toEqual(['keyword deploy friday 7', 'vector 3 7', 'rows k1,both,v1', 'neighbours both,k1 2']);
    expect(seen).toEqual([['k1', 'both', 'v1']]);
    expect(set.keywordHits.map((h) => h.id)).toEqual(['k1', 'both']);
    expect(set.vectorHits.map((h) => h.id)).toEqual(['both', 'v1']);
    expect(set.neighbours.map((r) => r.id)).toEqual(['n1']);
  });

  it('calls no arm that is not asked for: no terms, no vector, limit below 1, no neighbour request, radius below 1', async () => {
    const { arms, log } = recording();
    const none = await searchCandidatesWith({ filter, terms: [], limit: 10 }, arms);
    expect(none).toEqual({ keywordHits: [], vectorHits: [], rows: [], neighbours: [] });
    await searchCandidatesWith({ filter, terms: ['x'], vector: new Float32Array(2), limit: 0.5 }, arms);
    await searchCandidatesWith({ filter, terms: [], vector: Promise.resolve(undefined), limit: 3 }, arms);
    await searchCandidatesWith({ filter, terms: [], vector: new Float32Array(0), limit: 3 }, arms);
    await searchCandidatesWith(
      { filter, terms: ['x'], limit: 3, neighbours: { radius: 0.5, around: () => ['k1'] } },
      recording().arms,
    );
    expect(log).toEqual([]);
    // Neighbours are looked up from named ids even when the arms found nothing (the ids need not be hits).
    const lone = recording({ keyword: () => [] });
    const set = await searchCandidatesWith(
      { filter, terms: ['x'], limit: 3, neighbours: { radius: 1, around: () => ['elsewhere'] } },
      lone.arms,
    );
    expect(lone.log).toEqual(['neighbours elsewhere 1']);
    expect(set.neighbours.map((r) => r.id)).toEqual(['n1']);
  });

  it("a vector that fails is the call's error; the keyword arm failing meanwhile is not reported twice", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { arms } = recording({
        keyword: async () => {
          throw new MemError('STORE_UNAVAILABLE', 'the store is down');
        },
      });
      await expect(
        searchCandidatesWith(
          { filter, terms: ['x'], vector: Promise.reject(new MemError('EMBEDDER_FAILED', 'down')), limit: 3 },
          arms,
        ),
      ).rejects.toMatchObject({ code: 'EMBEDDER_FAILED' });
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('an arm that throws synchronously fails the call with its error', async () => {
    const { arms } = recording({
      keyword: () => {
        throw new MemError('STORE_UNAVAILABLE', 'sync failure');
      },
    });
    await expect(searchCandidatesWith({ filter, terms: ['x'], limit: 3 }, arms)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });
});
