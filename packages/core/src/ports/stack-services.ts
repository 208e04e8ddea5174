import type { JsonValue } from '../types-structured.js';
import type { Clock } from './clock.js';
import type { Embedder } from './embedder.js';
import type { EpisodicMemory } from './episodic-memory.js';
import type { ProceduralMemory } from './procedural-memory.js';
import type { StructuredStores } from './structured-stores.js';
import type { TokenUsage } from './summarizer.js';

export type ConsolidatedFactStatus = 'created' | 'updated' | 'known' | 'kept' | 'refused';

/** One fact a consolidation run proposed, and what happened to it. */
export interface ConsolidatedFact {
  key: string;
  topic: string | null;
  value: JsonValue;
  status: ConsolidatedFactStatus;
  evidence: string[];
  /** Why a fact was refused (secret, invalid key…). */
  reason?: string;
}

/** What one consolidation run did (docs/structured.md). */
export interface ConsolidationReport {
  /** Facts stored for the first time. */
  newFacts: number;
  /** Facts whose value changed since the last run (e.g. a success ratio moved). */
  updatedFacts: number;
  /** Facts already in the fact store with the same value (dropped). */
  knownFacts: number;
  /** Facts held by a higher-priority source (a user said otherwise): left alone. */
  keptFacts: number;
  /** Facts the fact guard refused (a secret, a bad key…). */
  refusedFacts: number;
  episodesProcessed: number;
  clustersFound: number;
  /** The extractor whose facts were used. */
  extractor: string;
  /** Set when the configured extractor failed and the fallback ran. */
  fallbackReason: string | null;
  /** Set when the run was skipped. */
  skipped: { reason: 'too-few-episodes'; episodes: number; minimum: number } | null;
  /** Every proposed fact with what happened to it. */
  facts: ConsolidatedFact[];
  /**
   * Tokens the extraction spent (an LLM extractor; zero for the keyword extractor and for a skipped run). When the
   * configured extractor failed, what it spent before failing (its MemError's `details.usage`) is counted too.
   */
  usage: TokenUsage;
}

/** Consolidation (docs/structured.md), a capability port implemented by @mem/episodic over the episode and fact ports. */
export interface Consolidation {
  run(space: string, overrides?: { maxEpisodes?: number; minEpisodes?: number }): Promise<ConsolidationReport>;
}

/** A stack's ports, as a service plug-in sees them when the stack builds its service. */
export interface ServicePorts {
  /** A structured port, or CAPABILITY_MISSING naming adapters that provide it. */
  port<K extends keyof StructuredStores>(name: K): StructuredStores[K];
  readonly embedder: Embedder | undefined;
  readonly clock: Clock;
}

/**
 * Builds memory services from a stack's ports: `episodicServices()` of @mem/episodic (episodes, consolidation) and
 * `proceduralServices()` of @mem/procedural (procedures) are the ones mem ships. The stack calls each factory once,
 * on first use, so a stack without the port a service reads (e.g. LanceDB has no facts) still serves everything else.
 */
export interface ServicePlugin {
  /** The package or plug-in, named in errors (e.g. `@mem/episodic`). */
  readonly name: string;
  episodes?(ports: ServicePorts): EpisodicMemory;
  procedures?(ports: ServicePorts): ProceduralMemory;
  consolidation?(ports: ServicePorts): Consolidation;
}
