import type { ProcedureInput } from '../schemas-structured.js';
import type { Procedure } from '../types-structured.js';
import type { TokenUsage } from './summarizer.js';

/** One suggested procedure with the parts of its score. */
export interface ProcedureSuggestion {
  procedure: Procedure;
  /** successCount / (successCount + failureCount); 0 when unused. */
  successRate: number;
  /** Relevance in [0, 1]: keyword score relative to the best candidate, mixed with cosine. */
  relevance: number;
  /** `procedureScore(relevance, …)`: relevance combined with the success rate. */
  score: number;
  keywordRank: number | null;
  vectorRank: number | null;
  similarity: number | null;
}

/** `storeReport`: the stored procedure and the tokens its embedding spent. */
export interface ProcedureStoreReport {
  procedure: Procedure;
  /** Tokens the embedder spent on the procedure text (zero without an embedder that reports usage). */
  usage: TokenUsage;
}

/** `suggestReport`: the suggestions and the tokens the query embedding spent. */
export interface ProcedureSuggestReport {
  results: ProcedureSuggestion[];
  /** Tokens the embedder spent on the query (zero without an embedder that reports usage). */
  usage: TokenUsage;
}

/**
 * Procedural memory (docs/structured.md), a capability port implemented by @mem/procedural over a ProcedureStore.
 * Every method is scoped by space.
 */
export interface ProceduralMemory {
  store(space: string, input: ProcedureInput): Promise<Procedure>;
  /** `store`, also reporting the tokens the embedding spent. */
  storeReport(space: string, input: ProcedureInput): Promise<ProcedureStoreReport>;
  /** Procedures for a situation, ranked by relevance combined with success rate. */
  suggest(space: string, query: string, topK?: number): Promise<ProcedureSuggestion[]>;
  /** `suggest`, also reporting the tokens the query embedding spent. */
  suggestReport(space: string, query: string, topK?: number): Promise<ProcedureSuggestReport>;
  /** Count one use, atomically. `NOT_FOUND` for an unknown id. */
  recordOutcome(space: string, id: string, success: boolean): Promise<Procedure>;
  /** `NOT_FOUND` for an unknown id. */
  get(space: string, id: string): Promise<Procedure>;
  count(space: string): Promise<number>;
}
