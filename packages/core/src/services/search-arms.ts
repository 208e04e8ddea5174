/**
 * The two arms of every hybrid search (knowledge memories, episodes, procedures): the query's keyword terms and its
 * embedding, each arm fetching `candidateMultiplier × limit` candidates (at most `maxCandidates`); the keyword arm
 * runs while the query is embedded. How the hits are fused and ranked is the caller's: the knowledge service fuses scores
 * (domain/ranking.ts `fuseScores`), the candidate stores fuse ranks (`fuseRRF`).
 */

import { queryTerms } from '../domain/text.js';
import type { EmbeddingResult } from '../ports/embedder.js';
import type { KeywordHit, VectorHit } from '../ports/knowledge-store.js';
import { NO_USAGE, type TokenUsage } from '../ports/summarizer.js';

/** How many candidates each arm fetches and how many query terms the keyword arm keeps. */
export interface SearchArmOptions {
  /** Each arm fetches `candidateMultiplier × limit` candidates… */
  candidateMultiplier: number;
  /** …at most this many. */
  maxCandidates: number;
  /** Keyword terms OR-ed per query (stop words dropped). */
  maxQueryTerms: number;
}

/** The arm defaults of every hybrid search (docs/configuration.md). */
export const DEFAULT_SEARCH_ARMS: SearchArmOptions = {
  candidateMultiplier: 3,
  maxCandidates: 100,
  maxQueryTerms: 12,
};

/** What a store offers the two arms; the store's own filter (space, viewer, model…) is bound by the caller. */
export interface SearchArms {
  /** Whether the store has a keyword arm. */
  keyword: boolean;
  /**
   * Embeds the query, or is absent when there is no vector arm (no embedder, or a store without vectors). May
   * resolve to null to say the same at call time.
   */
  embed?: ((texts: string[]) => Promise<EmbeddingResult | null>) | undefined;
  keywordSearch(terms: string[], limit: number): Promise<KeywordHit[]>;
  vectorSearch(vector: Float32Array, limit: number): Promise<VectorHit[]>;
}

export interface ArmHits {
  keywordHits: KeywordHit[];
  vectorHits: VectorHit[];
  /** The query's vector, or undefined when the vector arm did not run. */
  vector: Float32Array | undefined;
  /** Which arms ran (the keyword arm needs terms and store support; the vector arm an embedding). */
  ran: { keyword: boolean; vector: boolean };
  /** Tokens the query embedding spent. */
  usage: TokenUsage;
}

/** How many candidates each arm fetches for `limit` results. */
export function armCandidates(limit: number, options: SearchArmOptions): number {
  return Math.max(1, Math.min(options.maxCandidates, options.candidateMultiplier * limit));
}

/**
 * Run both arms for a query: the query terms are cut once, the query's embedding is asked for, and the keyword arm
 * runs while it is computed (a remote embedder's round trip, or an embedder on another thread, then hides the keyword
 * search); the vector arm starts once the vector is there. Errors of
 * the embedder come first (the keyword hits are dropped, nothing is returned); a store error fails the call.
 */
export async function runSearchArms(
  query: string,
  limit: number,
  options: SearchArmOptions,
  arms: SearchArms,
): Promise<ArmHits> {
  const candidates = armCandidates(limit, options);
  const terms = arms.keyword ? queryTerms(query, options.maxQueryTerms) : [];
  const keyword = terms.length > 0;
  // The embedding is asked for first, so that an embedder working elsewhere (a worker thread, a remote service) is
  // already busy while a store whose keyword search runs on this thread (SQLite) does it.
  const embedding = arms.embed ? arms.embed([query]) : Promise.resolve(null);
  const keywordSearch = keyword ? arms.keywordSearch(terms, candidates) : Promise.resolve([]);
  let embedded: EmbeddingResult | null;
  try {
    embedded = await embedding;
  } catch (error) {
    // The embedder's error is the call's; a keyword failure meanwhile is not reported twice.
    keywordSearch.catch(() => {});
    throw error;
  }
  const vector = embedded?.vectors[0];
  const [keywordHits, vectorHits] = await Promise.all([
    keywordSearch,
    vector ? arms.vectorSearch(vector, candidates) : Promise.resolve([]),
  ]);
  return {
    keywordHits,
    vectorHits,
    vector,
    ran: { keyword, vector: vector !== undefined },
    usage: embedded?.usage ?? { ...NO_USAGE },
  };
}
