/**
 * One arm of a knowledge store's search at a time, through `searchCandidates`: for adapter tests that check what the
 * keyword arm, the vector arm or the neighbour lookup alone finds (the core always asks for all three in one call).
 */
import type { KeywordHit, KnowledgeSearcher, MemoryRecord, SearchFilter, VectorHit } from '@mem/core/adapter';

/** The keyword arm's hits, best first. */
export async function keywordHits(
  store: Pick<KnowledgeSearcher, 'searchCandidates'>,
  query: { filter: SearchFilter; terms: string[]; limit: number },
): Promise<KeywordHit[]> {
  return (await store.searchCandidates(query)).keywordHits;
}

/** The vector arm's hits, best first. */
export async function vectorHits(
  store: Pick<KnowledgeSearcher, 'searchCandidates'>,
  query: { filter: SearchFilter; vector: Float32Array; limit: number },
): Promise<VectorHit[]> {
  return (await store.searchCandidates({ ...query, terms: [] })).vectorHits;
}

/** The neighbours of `ids` (no arm runs). */
export async function neighbourRows(
  store: Pick<KnowledgeSearcher, 'searchCandidates'>,
  query: { filter: SearchFilter; ids: string[]; radius: number },
): Promise<MemoryRecord[]> {
  const { filter, ids, radius } = query;
  return (await store.searchCandidates({ filter, terms: [], limit: 0, neighbours: { radius, around: () => ids } }))
    .neighbours;
}
