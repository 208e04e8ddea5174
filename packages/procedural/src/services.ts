import type { ServicePlugin } from '@mem/core/adapter';
import { createProceduralMemory, type ProceduralMemoryOptions } from './procedural-memory.js';

export interface ProceduralServicesOptions {
  /** Options of procedural memory (suggestion sizes, ranking). */
  procedures?: Partial<ProceduralMemoryOptions>;
}

/**
 * Procedural memory as a stack's service: `createStack({ ..., services: [proceduralServices()] })` gives
 * `stack.procedures` over the `procedures` port, built once, on first use.
 */
export function proceduralServices(options: ProceduralServicesOptions = {}): ServicePlugin {
  return {
    name: '@mem/procedural',
    procedures: (ports) =>
      createProceduralMemory({
        store: ports.port('procedures'),
        embedder: ports.embedder,
        clock: ports.clock,
        options: options.procedures,
      }),
  };
}
