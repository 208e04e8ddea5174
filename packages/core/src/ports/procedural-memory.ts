import type { ProcedureInput } from '../schemas-structured.js';
import type { Procedure } from '../types-structured.js';

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

/**
 * Procedural memory (docs/structured.md), a capability port implemented by @mem/procedural over a ProcedureStore.
 * Every method is scoped by space.
 */
export interface ProceduralMemory {
  store(space: string, input: ProcedureInput): Promise<Procedure>;
  /** Procedures for a situation, ranked by relevance combined with success rate. */
  suggest(space: string, query: string, topK?: number): Promise<ProcedureSuggestion[]>;
  /** Count one use, atomically. `NOT_FOUND` for an unknown id. */
  recordOutcome(space: string, id: string, success: boolean): Promise<Procedure>;
  /** `NOT_FOUND` for an unknown id. */
  get(space: string, id: string): Promise<Procedure>;
  count(space: string): Promise<number>;
}
