import { type Clock, systemClock } from './ports/clock.js';
import type { Embedder } from './ports/embedder.js';
import type { KnowledgeStore } from './ports/knowledge-store.js';
import { type MemoryOptions, MemoryService } from './services/memory.js';

export interface StackOptions {
  /** Where knowledge memories live (e.g. createSqliteStore from @mem/store-sqlite, or createMemoryKnowledgeStore()). */
  knowledge: KnowledgeStore;
  /** Turns text into vectors; without one, search uses the keyword arm alone. */
  embedder?: Embedder;
  clock?: Clock;
  /** Any number of SPEC §2 (weights, limits, tiers, thresholds…). */
  memory?: Partial<MemoryOptions>;
}

export interface Stack {
  memory: MemoryService;
  knowledge: KnowledgeStore;
  embedder: Embedder | undefined;
  clock: Clock;
  close(): Promise<void>;
}

/** Wire ports into services. Apps and users call this with the adapters they chose. */
export function createStack(options: StackOptions): Stack {
  const clock = options.clock ?? systemClock;
  const memory = new MemoryService({
    store: options.knowledge,
    embedder: options.embedder,
    clock,
    options: options.memory,
  });
  return {
    memory,
    knowledge: options.knowledge,
    embedder: options.embedder,
    clock,
    close: () => options.knowledge.close(),
  };
}
