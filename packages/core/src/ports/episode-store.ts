import type { Episode, StoredEmbedding } from '../types-structured.js';
import type { KeywordHit, VectorHit } from './knowledge-store.js';

export interface CandidateStoreCapabilities {
  /** Keyword (BM25-like) search over the record's search text. */
  keyword: boolean;
  /** Vectors are stored and searched by cosine. Without it `insert` ignores embeddings and `vectorSearch` returns []. */
  vector: boolean;
}

/**
 * Storage of episodes (docs/structured.md). A storage port: it returns candidates, @mem/episodic ranks them.
 * Every method is scoped by space.
 *
 * - Keyword arm: BM25-like scoring over `episodeSearchText(episode)` of @mem/core/adapter (summary, key decisions, tags),
 *   the terms OR-ed (any term may match), best first, only hits with a score > 0.
 * - Vector arm: cosine between `vector` and the stored vectors made by the same embedder `model` (vectors of other
 *   models are never compared), best first.
 * - `recent` and `byTag`: newest first by `timestamp`, ties by id descending. Tags match exactly (case-sensitive,
 *   never by substring).
 * Errors: `CONFLICT` when an episode id is already stored in the space; `STORE_UNAVAILABLE` for driver failures.
 */
export interface EpisodeStore {
  readonly name: string;
  readonly capabilities: CandidateStoreCapabilities;
  insert(space: string, episode: Episode, embedding: StoredEmbedding | null): Promise<void>;
  get(space: string, id: string): Promise<Episode | null>;
  /** Episodes in the order of `ids`; unknown ids are skipped. */
  getMany(space: string, ids: readonly string[]): Promise<Episode[]>;
  recent(space: string, limit: number): Promise<Episode[]>;
  byTag(space: string, tag: string, limit: number): Promise<Episode[]>;
  count(space: string): Promise<number>;
  keywordSearch(space: string, terms: readonly string[], limit: number): Promise<KeywordHit[]>;
  vectorSearch(space: string, vector: Float32Array, model: string, limit: number): Promise<VectorHit[]>;
  delete(space: string, id: string): Promise<boolean>;
}
