import { type StoreBundleCapabilities, storeBundle } from '@mem/core/adapter';
import {
  createEpisodeStore,
  createProcedureStore,
  type LanceEpisodeStore,
  type LanceProcedureStore,
} from './candidate-stores.js';
import { LanceDatabase } from './database.js';
import { createGraphStore, type LanceGraphStore } from './graph-store.js';
import { createKnowledgeStore, type LanceKnowledgeStore } from './knowledge-store.js';
import type { LanceOptimizeReport, LanceStoreOptions } from './options.js';

/** The four ports of the package on one connection (see `createLanceStores`). */
export interface LanceStores {
  knowledge: LanceKnowledgeStore;
  episodes: LanceEpisodeStore;
  procedures: LanceProcedureStore;
  /** The memory graph (docs/graph.md). */
  graph: LanceGraphStore;
  /** The three structured ports again, in the shape every store bundle has (what `createStack({ stores })` reads). */
  structured: { episodes: LanceEpisodeStore; procedures: LanceProcedureStore; graph: LanceGraphStore };
  /** What the ports can do, read once when the bundle was built. */
  readonly capabilities: StoreBundleCapabilities;
  /** Open the database and create every missing table now. */
  ready(): Promise<void>;
  /** `optimize()` of each store, one after the other. */
  optimize(options?: { cleanupOlderThan?: Date }): Promise<{
    knowledge: LanceOptimizeReport;
    episodes: LanceOptimizeReport;
    procedures: LanceOptimizeReport;
    graph: LanceOptimizeReport;
  }>;
  /**
   * Close the four stores (the connection closes with the last; closing one store alone keeps the others).
   * Idempotent: later and concurrent calls wait for the first.
   */
  close(): Promise<void>;
}

/**
 * The knowledge, episode, procedure and graph stores on one LanceDB connection, one write lock and one set of options.
 * Each store opens (and creates) its tables on first use, so a store that is never called costs nothing.
 */
export function createLanceStores(options: LanceStoreOptions): LanceStores {
  const db = new LanceDatabase(options);
  const knowledge = createKnowledgeStore(db, options);
  const episodes = createEpisodeStore(db, options);
  const procedures = createProcedureStore(db, options);
  const graph = createGraphStore(db, options);
  return storeBundle({
    knowledge,
    episodes,
    procedures,
    graph,
    structured: { episodes, procedures, graph },
    async ready() {
      await knowledge.ready();
      await episodes.ready();
      await procedures.ready();
      await graph.ready();
    },
    async optimize(opts: { cleanupOlderThan?: Date } = {}) {
      return {
        knowledge: await knowledge.optimize(opts),
        episodes: await episodes.optimize(opts),
        procedures: await procedures.optimize(opts),
        graph: await graph.optimize(opts),
      };
    },
  });
}
