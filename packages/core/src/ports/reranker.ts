import type { TokenUsage } from './summarizer.js';

export interface RerankInput {
  query: string;
  /** The candidate texts, best first as mem ranked them. */
  documents: readonly string[];
}

export interface RerankResult {
  /** One relevance score per document, in the order given (higher is more relevant; any scale). */
  scores: number[];
  /** Tokens the call spent, when the service says. */
  usage?: TokenUsage | undefined;
}

/**
 * Re-scores the fused top candidates of a search with a model that reads query and text together (a cross-encoder:
 * docs/ranking.md). Off unless a stack is given one. Implementations: @mem/rerank-http (OpenAI-compatible and
 * Cohere-style `/rerank` endpoints). A reranker may throw: the search then keeps mem's own order and logs why.
 */
export interface Reranker {
  /** Names the reranker in logs and reports, e.g. `http:BAAI/bge-reranker-v2-m3`. */
  readonly id: string;
  rerank(input: RerankInput): Promise<RerankResult>;
}
