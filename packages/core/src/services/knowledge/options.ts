import { DEFAULT_DEDUP_THRESHOLD, DEFAULT_RECALL_THRESHOLD } from '../../domain/calibration.js';
import { type ChunkOptions, DEFAULT_CHUNKING } from '../../domain/chunking.js';
import { DEFAULT_TIERS, type TierTable } from '../../domain/lifecycle.js';
import {
  type AccessOptions,
  DEFAULT_ACCESS,
  DEFAULT_FUSION,
  DEFAULT_NEIGHBOURS,
  DEFAULT_SESSION_CONTEXT,
  type FusionOptions,
  type NeighbourOptions,
  type SessionContextOptions,
} from '../../domain/ranking.js';
import type { PersonalDataSetting } from '../../domain/secrets.js';
import { DEFAULT_TIME_CUE, type TimeCueOptions } from '../../domain/time-cue.js';
import { DEFAULT_SEARCH_ARMS, type SearchArmOptions } from '../search-arms.js';

/**
 * Every number of the knowledge service, with defaults (docs/configuration.md). Each default lives beside the rule
 * it tunes (fusion and session context in domain/ranking.ts, thresholds in domain/calibration.ts, candidate counts
 * in services/search-arms.ts…); this object only assembles them.
 */
export interface KnowledgeOptions extends SearchArmOptions {
  /** Payment cards and IBANs in memories: refuse (default), redact or allow, for all spaces or per space. */
  personalData?: PersonalDataSetting;
  fusion: FusionOptions;
  searchLimit: number;
  recallLimit: number;
  dedupThreshold: number;
  injectionThreshold: number;
  recallPreviewChars: number;
  smartRecallHitBonus: number;
  maxContentChars: number;
  chunking: ChunkOptions;
  tiers: TierTable;
  access: AccessOptions;
  /** How many of the fused top results the stack's reranker re-scores (when it has one). */
  rerankDepth: number;
  /** Most queries a search runs besides the caller's when the stack has a query rewriter (0 turns rewriting off). */
  rewriteQueries: number;
  /**
   * Recall that follows links (docs/graph.md): with a memory graph, a search also runs a query made of what the graph
   * knows within `hops` (0 turns it off, at most 2) of the entities its query names; its best `depth` results are
   * fused with the caller's ranking at `weight` (reciprocal ranks).
   */
  graphRecall: { hops: number; weight: number; depth: number };
  /** The session context (docs/ranking.md): a share of a session's best match given to its other memories. */
  session: SessionContextOptions;
  /** The neighbouring turns (docs/ranking.md): a share of a strong match's relevance given to the memories next to it. */
  neighbours: NeighbourOptions;
  /** A period the query names (docs/ranking.md): memories said in it or `afterDays` after get ×(1 + weight). */
  timeCue: TimeCueOptions;
  /**
   * Review mode of distill (docs/formation.md): proposals wait in a queue for approval instead of being applied.
   * Default false; a distill call's `review` overrides it.
   */
  distillReview: boolean;
}

export const DEFAULT_KNOWLEDGE_OPTIONS: KnowledgeOptions = {
  fusion: DEFAULT_FUSION,
  ...DEFAULT_SEARCH_ARMS,
  searchLimit: 10,
  recallLimit: 5,
  dedupThreshold: DEFAULT_DEDUP_THRESHOLD,
  injectionThreshold: DEFAULT_RECALL_THRESHOLD,
  distillReview: false,
  recallPreviewChars: 300,
  smartRecallHitBonus: 0.05,
  maxContentChars: 2_000_000,
  chunking: DEFAULT_CHUNKING,
  tiers: DEFAULT_TIERS,
  access: DEFAULT_ACCESS,
  rerankDepth: 20,
  rewriteQueries: 3,
  graphRecall: { hops: 2, weight: 0.25, depth: 3 },
  session: DEFAULT_SESSION_CONTEXT,
  neighbours: DEFAULT_NEIGHBOURS,
  timeCue: DEFAULT_TIME_CUE,
};
