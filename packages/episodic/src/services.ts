import type { ServicePlugin } from '@mem/core/adapter';
import { type ConsolidationDeps, createConsolidationPipeline } from './consolidation.js';
import { createEpisodicMemory, type EpisodicMemoryOptions } from './episodic-memory.js';

export interface EpisodicServicesOptions {
  /** Options of episodic memory (recall sizes, fusion weights). */
  episodes?: Partial<EpisodicMemoryOptions>;
  /** How consolidation extracts and stores facts: options, an extractor and its fallback. */
  consolidation?: Pick<ConsolidationDeps, 'extractor' | 'fallbackExtractor' | 'options'>;
}

/**
 * Episodic memory and consolidation as a stack's services: `createStack({ ..., services: [episodicServices()] })`
 * gives `stack.episodes` (over the `episodes` port) and `stack.consolidation` (episodes into the `facts` port), each
 * built once, on first use.
 */
export function episodicServices(options: EpisodicServicesOptions = {}): ServicePlugin {
  return {
    name: '@mem/episodic',
    episodes: (ports) =>
      createEpisodicMemory({
        store: ports.port('episodes'),
        embedder: ports.embedder,
        clock: ports.clock,
        options: options.episodes,
      }),
    consolidation: (ports) =>
      createConsolidationPipeline({
        episodes: ports.port('episodes'),
        facts: ports.port('facts'),
        clock: ports.clock,
        ...options.consolidation,
      }),
  };
}
