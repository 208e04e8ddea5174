import type { Episode } from '@mem/core';
import {
  checkFactKey,
  type EpisodeCluster,
  type ExtractedFact,
  type FactExtraction,
  type FactExtractionInput,
  type FactExtractor,
  factKeySegment,
} from '@mem/core/adapter';

export interface KeywordExtractorOptions {
  /** A tool or tag needs at least this many episodes behind it to become a fact. */
  minSupport: number;
  /** A tool must appear in at least this share of the successful episodes to count as frequent. */
  minToolShare: number;
}

export const DEFAULT_KEYWORD_EXTRACTOR: KeywordExtractorOptions = { minSupport: 3, minToolShare: 0.3 };

/** Rounded to two decimals, so that facts compare equal across runs and read well. */
const round2 = (x: number): number => Math.round(x * 100) / 100;
const percent = (x: number): string => `${Math.round(x * 100)}%`;

/** Episodes grouped by tag: every tag carried by at least `minSize` episodes is a cluster (largest first). */
export function clusterEpisodesByTag(episodes: readonly Episode[], minSize: number): EpisodeCluster[] {
  const byTag = new Map<string, string[]>();
  for (const e of episodes) {
    for (const tag of new Set(e.tags)) {
      const ids = byTag.get(tag) ?? [];
      ids.push(e.id);
      byTag.set(tag, ids);
    }
  }
  return [...byTag.entries()]
    .filter(([, ids]) => ids.length >= minSize)
    .sort(([ta, a], [tb, b]) => b.length - a.length || (ta < tb ? -1 : ta > tb ? 1 : 0))
    .map(([tag, ids]) => ({ id: `tag:${tag}`, label: `episodes tagged "${tag}"`, tag, episodeIds: ids }));
}

/**
 * Fact keys of the keyword extractor, in core's grammar (`checkFactKey`): stable per tool and per tag, never carrying
 * a count. The name becomes a kebab segment (`deploy_tool` → `tool.deploy-tool.success-usage`); null when nothing of
 * it is usable in a key (only punctuation, or no Latin letter or digit), and that tool or tag gives no fact.
 */
export const toolFactKey = (tool: string): string | null => factKeyOf('tool', tool, 'success-usage');
export const tagFactKey = (tag: string): string | null => factKeyOf('tag', tag, 'success-ratio');

function factKeyOf(kind: string, name: string, aspect: string): string | null {
  const subject = factKeySegment(name);
  return subject === '' ? null : checkFactKey(`${kind}.${subject}.${aspect}`);
}

/**
 * The default fact extractor: counting, no model. It proposes
 * - for each tool used in at least `minSupport` successful episodes and in at least `minToolShare` of them:
 *   `tool.<tool>.success-usage` (the name as a kebab segment: `toolFactKey`) = `{statement, tool, successfulEpisodes, ofSuccessful, share}`;
 * - for each tag cluster with at least `minSupport` episodes of known outcome:
 *   `tag.<tag>.success-ratio` = `{statement, tag, successes, failures, partial, total, ratio}`
 *   (ratio = successes / episodes of known outcome; `unknown` outcomes are left out).
 */
export function createKeywordExtractor(options: Partial<KeywordExtractorOptions> = {}): FactExtractor {
  const o = { ...DEFAULT_KEYWORD_EXTRACTOR, ...options };
  return {
    id: 'keyword',
    async extract(input: FactExtractionInput): Promise<FactExtraction> {
      const facts: ExtractedFact[] = [];
      const successful = input.episodes.filter((e) => e.outcome === 'success');
      const toolEpisodes = new Map<string, string[]>();
      for (const e of successful) {
        for (const tool of new Set(e.toolsUsed)) {
          const ids = toolEpisodes.get(tool) ?? [];
          ids.push(e.id);
          toolEpisodes.set(tool, ids);
        }
      }
      const tools = [...toolEpisodes.entries()].sort(
        ([ta, a], [tb, b]) => b.length - a.length || (ta < tb ? -1 : ta > tb ? 1 : 0),
      );
      for (const [tool, ids] of tools) {
        const share = ids.length / successful.length;
        const key = toolFactKey(tool);
        if (ids.length < o.minSupport || share < o.minToolShare || key === null) continue;
        facts.push({
          key,
          value: {
            statement: `Tool "${tool}" was used in ${ids.length} of ${successful.length} successful episodes (${percent(share)}).`,
            tool,
            successfulEpisodes: ids.length,
            ofSuccessful: successful.length,
            share: round2(share),
          },
          evidence: ids,
        });
      }
      const byId = new Map(input.episodes.map((e) => [e.id, e]));
      for (const cluster of input.clusters) {
        const key = cluster.tag === null ? null : tagFactKey(cluster.tag);
        if (cluster.tag === null || key === null) continue;
        const known = cluster.episodeIds
          .map((id) => byId.get(id))
          .filter((e): e is Episode => e !== undefined && e.outcome !== 'unknown');
        if (known.length < o.minSupport) continue;
        const count = (outcome: Episode['outcome']) => known.filter((e) => e.outcome === outcome).length;
        const successes = count('success');
        const ratio = successes / known.length;
        facts.push({
          key,
          value: {
            statement: `Tasks tagged "${cluster.tag}" succeeded ${successes} of ${known.length} times (${percent(ratio)}).`,
            tag: cluster.tag,
            successes,
            failures: count('failure'),
            partial: count('partial'),
            total: known.length,
            ratio: round2(ratio),
          },
          evidence: known.map((e) => e.id),
        });
      }
      return { facts };
    },
  };
}
