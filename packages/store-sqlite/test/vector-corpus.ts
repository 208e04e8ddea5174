/**
 * The synthetic corpus of the vector index's tests (`src/vector-index.test.ts`, `src/vector-cache.test.ts`); not
 * part of the package's API. Memory `i`: scope, owner, source and tags vary with `i`, and its vector is near centre
 * i % 12 of `dim` dimensions. `facts` gives every tenth memory a `/longterm/facts/` key, `expiring` makes every
 * seventh expired at `now`.
 */
import type { MemoryRecord } from '@mem/core/adapter';
import { memoryRecord } from '@mem/testkit';

export interface VectorTestCorpus {
  vectorNear(i: number, noise?: number): Float32Array;
  record(i: number, over?: Partial<MemoryRecord>): MemoryRecord;
}

export function vectorTestCorpus(options: {
  /** Uniform numbers in [-0.5, 0.5), seeded. */
  random: () => number;
  dim: number;
  now: string;
  facts?: boolean;
  expiring?: boolean;
}): VectorTestCorpus {
  const { random, dim, now } = options;
  const centers = Array.from({ length: 12 }, () => Float32Array.from({ length: dim }, () => random()));
  const vectorNear = (i: number, noise = 0.3) => Float32Array.from(centers[i % 12]!, (x) => x + noise * random());
  return {
    vectorNear,
    record(i, over = {}) {
      const id = `r${String(i).padStart(4, '0')}`;
      return memoryRecord({
        id,
        docId: id,
        space: 's1',
        scope: i % 3 === 0 ? 'agent' : 'swarm',
        agentId: i % 2 === 0 ? 'a1' : 'a2',
        key: options.facts && i % 10 === 0 ? `/longterm/facts/${id}` : `/swarm/manual/${id}`,
        name: `name ${id}`,
        content: `content of ${id}`,
        source: i % 4 === 0 ? 'file_index' : 'manual',
        tags: i % 5 === 0 ? ['five'] : [],
        embedding: vectorNear(i),
        embeddingModel: 'test',
        createdAt: now,
        updatedAt: now,
        expiresAt: options.expiring && i % 7 === 0 ? '2024-06-01T00:00:00.000Z' : null,
        ...over,
      });
    },
  };
}
