import type { EpisodeInput } from '../schemas-structured.js';
import type { Episode } from '../types-structured.js';
import type { TokenUsage } from './summarizer.js';

/** One recalled episode with how it was found. */
export interface EpisodeRecall {
  episode: Episode;
  /** The fused keyword/vector score normalised to [0, 1] (1 = rank 1 in every arm that ran). */
  relevance: number;
  keywordRank: number | null;
  vectorRank: number | null;
  /** Raw cosine of the vector arm, or null when the vector arm did not find it. */
  similarity: number | null;
}

/** `storeReport`: the stored episode and the tokens its embedding spent. */
export interface EpisodeStoreReport {
  episode: Episode;
  /** Tokens the embedder spent on the episode text (zero without an embedder that reports usage). */
  usage: TokenUsage;
}

/** `recallReport`: the recalled episodes and the tokens the query embedding spent. */
export interface EpisodeRecallReport {
  results: EpisodeRecall[];
  /** Tokens the embedder spent on the query (zero without an embedder that reports usage). */
  usage: TokenUsage;
}

/**
 * Episodic memory (docs/structured.md), a capability port implemented by @mem/episodic over an EpisodeStore.
 * Every method is scoped by space.
 */
export interface EpisodicMemory {
  /** Validate and store an episode (id and timestamp filled in when missing). */
  store(space: string, input: EpisodeInput): Promise<Episode>;
  /** `store`, also reporting the tokens the embedding spent. */
  storeReport(space: string, input: EpisodeInput): Promise<EpisodeStoreReport>;
  /** Episodes ranked by keyword relevance (any term may match) fused with vector similarity when an embedder is set. */
  recall(space: string, query: string, topK?: number): Promise<EpisodeRecall[]>;
  /** `recall`, also reporting the tokens the query embedding spent. */
  recallReport(space: string, query: string, topK?: number): Promise<EpisodeRecallReport>;
  /** The newest `n` episodes, newest first. */
  recallRecent(space: string, n?: number): Promise<Episode[]>;
  /** Episodes carrying exactly this tag, newest first. */
  recallByTag(space: string, tag: string, limit?: number): Promise<Episode[]>;
  count(space: string): Promise<number>;
}
