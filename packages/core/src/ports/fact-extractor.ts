import type { Episode, FactSource, JsonValue } from '../types-structured.js';
import type { TokenUsage } from './summarizer.js';

/** A group of related episodes found by the consolidation pipeline (episodes sharing a tag). */
export interface EpisodeCluster {
  /** Stable id of the cluster, e.g. `tag:deploy`. */
  id: string;
  /** A readable label, e.g. `episodes tagged "deploy"`. */
  label: string;
  /** The tag the cluster is built on, or null for a cluster built otherwise. */
  tag: string | null;
  /** Ids of the member episodes, newest first. */
  episodeIds: string[];
}

/** One fact an extractor proposes. The pipeline decides whether it is new, changed or already known. */
export interface ExtractedFact {
  /**
   * Stable identity of the fact: the same knowledge extracted again must give the same key (a key like
   * `tool.deploy-tool.success-usage`, never one containing a count or a date), so that a second run finds it.
   * The shipped extractors make keys in the grammar `FACT_KEY_PATTERN` (`checkFactKey`).
   */
  key: string;
  value: JsonValue;
  /** Defaults to the pipeline's topic. */
  topic?: string | null;
  /** Defaults to the pipeline's source (`ai_inferred`). */
  source?: FactSource;
  /** Ids of the episodes the fact rests on. */
  evidence?: string[];
}

export interface FactExtractionInput {
  space: string;
  /** The episodes to learn from, newest first. */
  episodes: readonly Episode[];
  clusters: readonly EpisodeCluster[];
}

export interface FactExtraction {
  facts: ExtractedFact[];
  /** Tokens the extractor spent (an LLM extractor sets it; an extractor that calls no model may leave it out: zero). */
  usage?: TokenUsage;
}

/**
 * Turns episodes into facts (consolidation, docs/structured.md). @mem/episodic ships a keyword extractor (no dependencies);
 * an LLM-backed one implements the same port. An extractor does not write anything: the pipeline drops facts
 * already in the fact store and stores the rest.
 */
export interface FactExtractor {
  /** Names the extractor in reports, e.g. `keyword` or `llm:gpt-4o-mini`. */
  readonly id: string;
  extract(input: FactExtractionInput): Promise<FactExtraction>;
}
