import { type KnowledgeStore, knowledgeStoreOf } from '@mem/core/adapter';
import { LanceDatabase } from './database.js';
import { createLanceContext } from './knowledge/context.js';
import * as roles from './knowledge/roles.js';
import type { LanceIndexState, LanceOptimizeReport, LanceStoreOptions } from './options.js';

export interface LanceKnowledgeStore extends KnowledgeStore {
  /** Open the database and create missing tables now (every method does it on first use). */
  ready(): Promise<void>;
  /**
   * Maintenance: compact fragments, fold new rows into the indexes, build an ANN index that reached its
   * threshold, drop unused vector columns and remove table versions older than `cleanupOlderThan` (default 7 days).
   */
  optimize(options?: { cleanupOlderThan?: Date }): Promise<LanceOptimizeReport>;
  /** Which indexes exist and how fresh they are. */
  indexState(): Promise<LanceIndexState>;
}

/**
 * A `KnowledgeStore` on LanceDB: a chunks table with a full-text index over name + content (BM25 `_score`) and one
 * vector column per embedding dimension (cosine; exact below the index threshold, IVF_PQ or IVF_HNSW_SQ above it),
 * plus versions, ratings, access and meta tables. Every filter is a LanceDB SQL predicate applied before the limit.
 * Writes run under a write lock (in-process queue + lock file in the folder); see the README for the model.
 */
export function createLanceStore(options: LanceStoreOptions): LanceKnowledgeStore {
  return createKnowledgeStore(new LanceDatabase(options), options);
}
/**
 * The knowledge store on a database shared with other ports (see `createLanceStores`). The roles live in knowledge/
 * (writer, reader, searcher, counters, admin) on one shared context.
 */
export function createKnowledgeStore(db: LanceDatabase, options: LanceStoreOptions): LanceKnowledgeStore {
  const ctx = createLanceContext(db, options);
  return knowledgeStoreOf(ctx, roles);
}
