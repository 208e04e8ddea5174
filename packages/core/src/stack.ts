import { type Clock, systemClock } from './ports/clock.js';
import type { Embedder } from './ports/embedder.js';
import type { KnowledgeStore } from './ports/knowledge-store.js';
import type { StructuredStores } from './ports/structured-stores.js';
import { type MemoryOptions, MemoryService } from './services/memory.js';
import { guardStructuredStores, type StructuredLimits } from './services/structured-guards.js';

/** Something that holds resources (a store bundle with a connection, say). */
interface Closable {
  close?(): Promise<void> | void;
}

export interface StackOptions {
  /** Where knowledge memories live (e.g. createSqliteStore from @mem/store-sqlite, or createMemoryKnowledgeStore()). */
  knowledge: KnowledgeStore;
  /** Turns text into vectors; without one, search uses the keyword arm alone. */
  embedder?: Embedder;
  clock?: Clock;
  /** Any number of SPEC §2 (weights, limits, tiers, thresholds…). */
  memory?: Partial<MemoryOptions>;
  /** The structured stores of SPEC §5–6 (messages, facts, goals, …, episodes, procedures), e.g. createSqliteStructuredStores. */
  structured?: StructuredStores & Closable;
  /** Size limits checked on structured writes. */
  structuredLimits?: Partial<StructuredLimits>;
}

export interface Stack {
  memory: MemoryService;
  knowledge: KnowledgeStore;
  embedder: Embedder | undefined;
  clock: Clock;
  /** The structured stores, validated (secrets refused in facts, sizes capped), or undefined when not configured. */
  structured: StructuredStores | undefined;
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
    structured: options.structured ? guardStructuredStores(options.structured, options.structuredLimits) : undefined,
    close: async () => {
      await options.structured?.close?.();
      await options.knowledge.close();
    },
  };
}
