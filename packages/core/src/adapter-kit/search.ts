/**
 * `searchCandidates` from a store's own arms: the sequencing every knowledge store shares, written once. The store binds
 * its filter (compiled once) into the four arms; this decides what runs, in which order, and what is handed back.
 */
import type {
  CandidateQuery,
  CandidateSet,
  FoundCandidates,
  KeywordHit,
  KnowledgeAdmin,
  KnowledgeCounters,
  KnowledgeReader,
  KnowledgeSearcher,
  KnowledgeStore,
  KnowledgeWriter,
  VectorHit,
} from '../ports/knowledge-store.js';
import type { MemoryRecord } from '../types.js';

type MaybePromise<T> = T | Promise<T>;

/** A store's arms for one search, the query's filter bound into each (built once for the call). */
export interface CandidateArms {
  /** Keyword hits, best first, at most `limit` (terms not empty, limit ≥ 1). */
  keyword(terms: string[], limit: number): MaybePromise<KeywordHit[]>;
  /** Vector hits by cosine, best first, at most `limit` (a vector of one length or more, limit ≥ 1). */
  vector(vector: Float32Array, limit: number): MaybePromise<VectorHit[]>;
  /** The rows of these ids (distinct, at least one) in the filter's space, any order; ids that are gone are skipped. */
  rows(ids: string[]): MaybePromise<MemoryRecord[]>;
  /** The neighbours of these ids (distinct, at least one) as `NeighbourRequest` defines them (radius ≥ 1). */
  neighbours(ids: string[], radius: number): MaybePromise<MemoryRecord[]>;
}

/**
 * Run one `CandidateQuery` over `arms`: the keyword arm at once (while the query's vector may still be computed), the
 * vector arm when the vector is there, then one read of the hits' rows, then the neighbours of the ids the caller picks
 * from them. An arm that is not asked for (no terms, no vector, a limit below 1, no neighbour request) is not called.
 * A vector promise that rejects fails the call with its error, a keyword failure meanwhile is not reported twice.
 */
export async function searchCandidatesWith(query: CandidateQuery, arms: CandidateArms): Promise<CandidateSet> {
  const limit = Math.floor(query.limit);
  const keyword: Promise<KeywordHit[]> =
    query.terms.length > 0 && limit >= 1 ? attempt(() => arms.keyword(query.terms, limit)) : Promise.resolve([]);
  let vector: Float32Array | undefined;
  try {
    vector = await query.vector;
  } catch (error) {
    keyword.catch(() => {});
    throw error;
  }
  const [keywordHits, vectorHits] = await Promise.all([
    keyword,
    vector !== undefined && vector.length > 0 && limit >= 1 ? arms.vector(vector, limit) : [],
  ]);
  const ids = [...new Set([...keywordHits.map((h) => h.id), ...vectorHits.map((h) => h.id)])];
  const found: FoundCandidates = { keywordHits, vectorHits, rows: ids.length > 0 ? await arms.rows(ids) : [] };
  const request = query.neighbours;
  const radius = request ? Math.floor(request.radius) : 0;
  if (!request || !(radius >= 1)) return { ...found, neighbours: [] };
  const around = [...new Set(request.around(found))];
  return { ...found, neighbours: around.length > 0 ? await arms.neighbours(around, radius) : [] };
}

/** A call that may throw synchronously, as a promise (a store's arm may be synchronous). */
function attempt<T>(call: () => MaybePromise<T>): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** How a knowledge store makes its five roles from one shared context (the searcher reads chunks through the reader). */
export interface KnowledgeRoles<C, A extends KnowledgeAdmin = KnowledgeAdmin> {
  writer(ctx: C): KnowledgeWriter;
  reader(ctx: C): KnowledgeReader;
  searcher(ctx: C, reader: KnowledgeReader): KnowledgeSearcher;
  counters(ctx: C): KnowledgeCounters;
  admin(ctx: C): A;
}

/**
 * A `KnowledgeStore` made of its roles over one context: `knowledgeStoreOf(ctx, roles)` with `roles` a module that
 * exports `writer`, `reader`, `searcher`, `counters` and `admin` (what the admin adds beyond the port is kept).
 */
export function knowledgeStoreOf<C, A extends KnowledgeAdmin>(ctx: C, roles: KnowledgeRoles<C, A>): KnowledgeStore & A {
  const reader = roles.reader(ctx);
  return {
    ...roles.writer(ctx),
    ...reader,
    ...roles.searcher(ctx, reader),
    ...roles.counters(ctx),
    ...roles.admin(ctx),
  };
}
