import type { Procedure, StoredEmbedding } from '../types-structured.js';
import type { CandidateStoreCapabilities } from './episode-store.js';
import type { KeywordHit, VectorHit } from './knowledge-store.js';

/**
 * Storage of procedures (docs/structured.md). A storage port: it returns candidates, @mem/procedural ranks them with
 * `rankProcedures` of @mem/core/adapter (one formula for every backend). Every method is scoped by space.
 *
 * - Keyword arm: BM25-like scoring over `procedureSearchText(procedure)` of @mem/core/adapter (name, description, trigger),
 *   terms OR-ed, best first, only hits with a score > 0.
 * - Vector arm: cosine against vectors of the same embedder `model` only, best first.
 * - `incrementOutcome` adds 1 to successCount or failureCount and sets `updatedAt` in one atomic statement
 *   (never read-modify-write): two processes reporting at once lose no update.
 * Errors: `CONFLICT` when a procedure id is already stored in the space; `NOT_FOUND` from `incrementOutcome`
 * for an unknown id; `STORE_UNAVAILABLE` for driver failures.
 */
export interface ProcedureStore {
  readonly name: string;
  readonly capabilities: CandidateStoreCapabilities;
  insert(space: string, procedure: Procedure, embedding: StoredEmbedding | null): Promise<void>;
  get(space: string, id: string): Promise<Procedure | null>;
  /** Procedures in the order of `ids`; unknown ids are skipped. */
  getMany(space: string, ids: readonly string[]): Promise<Procedure[]>;
  /** Procedures newest first by `createdAt`, ties by id descending. */
  list(space: string, limit: number): Promise<Procedure[]>;
  count(space: string): Promise<number>;
  keywordSearch(space: string, terms: readonly string[], limit: number): Promise<KeywordHit[]>;
  vectorSearch(space: string, vector: Float32Array, model: string, limit: number): Promise<VectorHit[]>;
  /** Atomically count one use; returns the procedure after the increment. */
  incrementOutcome(space: string, id: string, success: boolean, at: string): Promise<Procedure>;
  delete(space: string, id: string): Promise<boolean>;
}
