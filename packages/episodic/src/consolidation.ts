import { checkName, type FactSource, MemError, type Permission, permissions } from '@mem/core';
import {
  type Clock,
  type ConsolidatedFact,
  type Consolidation,
  type ConsolidationReport,
  type EpisodeStore,
  type ExtractedFact,
  type FactExtractor,
  type FactStore,
  guardFactStore,
  jsonEqual,
  missingPort,
  NO_USAGE,
  sumUsage,
  systemClock,
  type TokenUsage,
} from '@mem/core/adapter';
import { clusterEpisodesByTag, createKeywordExtractor } from './keyword-extractor.js';

export interface ConsolidationOptions {
  /** Read at most this many of the most recent episodes (default 50). */
  maxEpisodes: number;
  /** Skip the run when fewer episodes exist (default 3). */
  minEpisodes: number;
  /** A tag needs this many episodes to form a cluster. */
  minClusterSize: number;
  /** The fact owner the consolidated facts are stored under. */
  user: string;
  /** The topic of consolidated facts (null: global facts of `user`). */
  topic: string | null;
  /** Source of consolidated facts unless the extractor says otherwise. */
  source: FactSource;
}

export const DEFAULT_CONSOLIDATION: ConsolidationOptions = {
  maxEpisodes: 50,
  minEpisodes: 3,
  minClusterSize: 3,
  user: 'agent',
  topic: null,
  source: 'ai_inferred',
};

export interface ConsolidationDeps {
  episodes: EpisodeStore;
  /** Where facts go. Wrapped with the core fact guard, so secrets and bad facts are refused. */
  facts: FactStore;
  /** Default: the keyword extractor. */
  extractor?: FactExtractor | undefined;
  /**
   * Used when `extractor` throws (an LLM endpoint down, say). Default: the keyword extractor when a custom extractor
   * is set; null to let the error through.
   */
  fallbackExtractor?: FactExtractor | null | undefined;
  clock?: Clock | undefined;
  options?: Partial<ConsolidationOptions> | undefined;
}

export type { ConsolidatedFact, ConsolidatedFactStatus, ConsolidationReport } from '@mem/core/adapter';

/**
 * Consolidation (docs/structured.md): read the most recent episodes, skip when too few, cluster them by tag, extract facts,
 * drop facts the fact store already holds with the same value (a persistent check through the FactStore, so a new
 * pipeline or another process finds them too), store the rest, and report what happened.
 */
/**
 * Consolidation writes facts for a whole space, so only a lead may run it: `FORBIDDEN` for a worker.
 * @deprecated The rule lives in core: use `permissions.consolidate` from `@mem/core` (the operation table declares it as
 * consolidate's permission, so every door checks it). This alias stays for existing callers.
 */
export const checkConsolidator: Permission = permissions.consolidate;

export class ConsolidationPipeline implements Consolidation {
  readonly options: ConsolidationOptions;
  private readonly episodes: EpisodeStore;
  private readonly facts: FactStore;
  private readonly extractor: FactExtractor;
  private readonly fallback: FactExtractor | null;
  private readonly clock: Clock;

  constructor(deps: ConsolidationDeps) {
    // Checked here, not at the first run: a missing store is a wiring mistake, not a runtime failure.
    for (const port of ['episodes', 'facts'] as const) {
      const store = (deps as Partial<ConsolidationDeps> | undefined)?.[port];
      if (typeof store !== 'object' || store === null)
        throw missingPort(port, 'createConsolidationPipeline (it reads episodes and writes facts)');
    }
    this.episodes = deps.episodes;
    this.facts = guardFactStore(deps.facts);
    this.extractor = deps.extractor ?? createKeywordExtractor();
    this.fallback =
      deps.fallbackExtractor !== undefined ? deps.fallbackExtractor : deps.extractor ? createKeywordExtractor() : null;
    this.clock = deps.clock ?? systemClock;
    this.options = { ...DEFAULT_CONSOLIDATION, ...deps.options };
  }

  async run(
    space: string,
    overrides: Partial<Pick<ConsolidationOptions, 'maxEpisodes' | 'minEpisodes'>> = {},
  ): Promise<ConsolidationReport> {
    checkName(space, 'space');
    const o = { ...this.options, ...overrides };
    for (const [name, value] of [
      ['maxEpisodes', o.maxEpisodes],
      ['minEpisodes', o.minEpisodes],
      ['minClusterSize', o.minClusterSize],
    ] as const) {
      if (!Number.isInteger(value) || value < 1 || value > 10_000) {
        throw new MemError(
          'INVALID_INPUT',
          `Invalid ${name} ${String(value)} for consolidation: give a whole number from 1 to 10000.`,
        );
      }
    }
    const report: ConsolidationReport = {
      newFacts: 0,
      updatedFacts: 0,
      knownFacts: 0,
      keptFacts: 0,
      refusedFacts: 0,
      episodesProcessed: 0,
      clustersFound: 0,
      extractor: this.extractor.id,
      fallbackReason: null,
      skipped: null,
      facts: [],
      usage: { ...NO_USAGE },
    };
    const episodes = await this.episodes.recent(space, o.maxEpisodes);
    if (episodes.length < o.minEpisodes) {
      report.skipped = { reason: 'too-few-episodes', episodes: episodes.length, minimum: o.minEpisodes };
      return report;
    }
    const clusters = clusterEpisodesByTag(episodes, o.minClusterSize);
    report.episodesProcessed = episodes.length;
    report.clustersFound = clusters.length;

    let extracted: ExtractedFact[];
    try {
      const extraction = await this.extractor.extract({ space, episodes, clusters });
      extracted = extraction.facts;
      report.usage = sumUsage([extraction.usage ?? NO_USAGE]);
    } catch (error) {
      if (!this.fallback) throw error;
      report.fallbackReason = `${this.extractor.id} extractor failed: ${error instanceof Error ? error.message : String(error)}`;
      report.extractor = this.fallback.id;
      const fallback = await this.fallback.extract({ space, episodes, clusters });
      extracted = fallback.facts;
      report.usage = sumUsage([spentBeforeFailing(error), fallback.usage ?? NO_USAGE]);
    }

    const seen = new Set<string>();
    const at = this.clock.now().toISOString();
    for (const fact of extracted) {
      const topic = fact.topic === undefined ? o.topic : fact.topic;
      const identity = `${topic ?? ''}\u0000${fact.key}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
      const entry: ConsolidatedFact = {
        key: fact.key,
        topic,
        value: fact.value,
        status: 'known',
        evidence: fact.evidence ?? [],
      };
      report.facts.push(entry);
      try {
        const existing = await this.facts.find(space, o.user, fact.key, topic);
        if (existing && jsonEqual(existing.value, fact.value)) {
          report.knownFacts++;
          continue;
        }
        const result = await this.facts.upsert(space, {
          user: o.user,
          topic,
          key: fact.key,
          value: fact.value,
          source: fact.source ?? o.source,
          at,
        });
        entry.status = result.status;
        if (result.status === 'created') report.newFacts++;
        else if (result.status === 'updated') report.updatedFacts++;
        else report.keptFacts++;
      } catch (error) {
        if (!MemError.is(error) || !['SECRET_DETECTED', 'INVALID_INPUT', 'TOO_LARGE'].includes(error.code)) throw error;
        entry.status = 'refused';
        entry.reason = error.message;
        entry.value = null; // never echo a refused value (it may hold a secret)
        report.refusedFacts++;
      }
    }
    return report;
  }
}

export function createConsolidationPipeline(deps: ConsolidationDeps): ConsolidationPipeline {
  return new ConsolidationPipeline(deps);
}

/** What a failed extractor spent, when its MemError says so in `details.usage` (the LLM extractor does). */
function spentBeforeFailing(error: unknown): TokenUsage {
  const usage = MemError.is(error) ? (error.details as { usage?: unknown } | undefined)?.usage : undefined;
  const u = usage as Partial<TokenUsage> | undefined;
  const ok = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  return u && ok(u.inputTokens) && ok(u.outputTokens) && ok(u.totalTokens)
    ? { inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens }
    : { ...NO_USAGE };
}
