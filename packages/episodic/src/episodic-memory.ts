import { checkName, type Episode, episodeInput, episodeRecallInput, MemError, tagSchema } from '@mem/core';
import {
  assertNoSecrets,
  CandidateMemory,
  type CandidateMemoryDeps,
  type CandidateSearchOptions,
  type CandidateWrite,
  DEFAULT_CANDIDATE_SEARCH,
  type EpisodeRecall,
  type EpisodeRecallReport,
  type EpisodeStore,
  type EpisodicMemory as EpisodicMemoryPort,
  episodeSearchText,
} from '@mem/core/adapter';

/** Every number of episodic memory, with defaults (docs/structured.md). */
export interface EpisodicMemoryOptions extends CandidateSearchOptions {
  /** `recall` without topK (default 5). */
  recallTopK: number;
  /** `recallRecent` without n. */
  recentLimit: number;
  /** `recallByTag` without a limit. */
  byTagLimit: number;
}

export const DEFAULT_EPISODIC_OPTIONS: EpisodicMemoryOptions = {
  ...DEFAULT_CANDIDATE_SEARCH,
  recallTopK: 5,
  recentLimit: 10,
  byTagLimit: 100,
};

export type EpisodicMemoryDeps = CandidateMemoryDeps<EpisodeStore, EpisodicMemoryOptions>;

const MAX_LIST = 10_000;

function checkCount(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_LIST) {
    throw new MemError('INVALID_INPUT', `Invalid ${what} ${String(value)}: give a whole number from 1 to ${MAX_LIST}.`);
  }
  return value;
}

/** How an episode is written: checked by `episodeInput`, its defaults filled in; tools and session id may hold no secret. */
const EPISODE_WRITE: CandidateWrite<typeof episodeInput, Episode, 'episode'> = {
  key: 'episode',
  schema: episodeInput,
  text: episodeSearchText,
  check: (episode) => {
    for (const tool of episode.toolsUsed) assertNoSecrets(tool, 'episode tool name');
    if (episode.sessionId !== null) assertNoSecrets(episode.sessionId, 'episode session id');
  },
  build: (parsed, now, { id, tags, metadata }) => ({
    id,
    summary: parsed.summary,
    keyDecisions: parsed.keyDecisions ?? [],
    toolsUsed: [...new Set(parsed.toolsUsed ?? [])],
    outcome: parsed.outcome ?? 'unknown',
    sessionId: parsed.sessionId ?? null,
    timestamp: parsed.timestamp ?? now.toISOString(),
    tags,
    metadata,
  }),
};

/**
 * Episodic memory (docs/structured.md) over an EpisodeStore and an optional Embedder: store what happened (`store`,
 * `storeReport`: id and timestamp filled in when missing, secrets refused), recall it by keyword relevance (BM25, any
 * term may match) fused with vector similarity (weighted RRF), list the newest, or list by exact tag. Every method is
 * scoped by space.
 */
export class EpisodicMemory
  extends CandidateMemory<EpisodeStore, EpisodicMemoryOptions, Episode, typeof episodeInput, 'episode'>
  implements EpisodicMemoryPort
{
  constructor(deps: EpisodicMemoryDeps) {
    super(deps, DEFAULT_EPISODIC_OPTIONS, EPISODE_WRITE);
  }

  /** Episodes for a query, best first: BM25 (terms OR-ed) fused with vector similarity when an embedder is set. */
  async recall(space: string, query: string, topK?: number): Promise<EpisodeRecall[]> {
    return (await this.recallReport(space, query, topK)).results;
  }

  /** `recall`, also reporting the tokens the embedder spent on the query (zero without one that reports usage). */
  async recallReport(space: string, query: string, topK?: number): Promise<EpisodeRecallReport> {
    const { found, usage } = await this.findRecords(
      space,
      episodeRecallInput,
      'episode recall',
      query,
      topK,
      this.options.recallTopK,
      true,
    );
    const results = found.map(({ candidate: c, record: episode }) => ({
      episode,
      relevance: c.relevance,
      keywordRank: c.keywordRank,
      vectorRank: c.vectorRank,
      similarity: c.similarity,
    }));
    return { results, usage };
  }

  /** The newest `n` episodes (by timestamp), newest first. */
  async recallRecent(space: string, n: number = this.options.recentLimit): Promise<Episode[]> {
    checkName(space, 'space');
    return this.records.recent(space, checkCount(n, 'number of episodes'));
  }

  /** Episodes carrying exactly `tag` (not a substring; case-sensitive), newest first. */
  async recallByTag(space: string, tag: string, limit: number = this.options.byTagLimit): Promise<Episode[]> {
    const t = this.parse(space, tagSchema, 'episode by-tag', tag);
    return this.records.byTag(space, t, checkCount(limit, 'limit'));
  }
}

export function createEpisodicMemory(deps: EpisodicMemoryDeps): EpisodicMemory {
  return new EpisodicMemory(deps);
}
