/**
 * Episodic memory, procedural memory and the consolidation pipeline of a stack, built once per stack (on first use,
 * then kept beside it) instead of once per request. Built lazily: a stack without the port (e.g. LanceDB has no
 * facts) answers CAPABILITY_MISSING when an operation needs it, and every other operation still works.
 */
import type { Stack } from '@mem/core';
import {
  type ConsolidationPipeline,
  createConsolidationPipeline,
  createEpisodicMemory,
  type EpisodicMemory,
} from '@mem/episodic';
import { createProceduralMemory, type ProceduralMemory } from '@mem/procedural';

export interface StackServices {
  episodic(): EpisodicMemory;
  procedural(): ProceduralMemory;
  consolidation(): ConsolidationPipeline;
}

const built = new WeakMap<Stack, StackServices>();

/** The structured services of `stack`: the same objects for every call on the same stack. */
export function stackServices(stack: Stack): StackServices {
  let services = built.get(stack);
  if (services) return services;
  let episodic: EpisodicMemory | undefined;
  let procedural: ProceduralMemory | undefined;
  let consolidation: ConsolidationPipeline | undefined;
  services = {
    episodic: () =>
      (episodic ??= createEpisodicMemory({
        store: stack.port('episodes'),
        embedder: stack.embedder,
        clock: stack.clock,
      })),
    procedural: () =>
      (procedural ??= createProceduralMemory({
        store: stack.port('procedures'),
        embedder: stack.embedder,
        clock: stack.clock,
      })),
    consolidation: () =>
      (consolidation ??= createConsolidationPipeline({
        episodes: stack.port('episodes'),
        facts: stack.port('facts'),
        clock: stack.clock,
      })),
  };
  built.set(stack, services);
  return services;
}
