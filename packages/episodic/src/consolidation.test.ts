import { createInMemoryStructuredStores, type EpisodeInput, MemError } from '@mem/core';
import { FACT_KEY_PATTERN, type FactExtractor, type FactStore, ManualClock } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import {
  checkConsolidator,
  clusterEpisodesByTag,
  createConsolidationPipeline,
  createEpisodicMemory,
  type EpisodicMemory,
} from './index.js';

const S = 'acme';

interface Group {
  count: number;
  outcome: (k: number) => 'success' | 'failure' | 'partial' | 'unknown';
  tags: string[];
  tools: (k: number) => string[];
}

/**
 * 60 episodes, one per hour. The oldest 10 (tag "legacy", tool "old_tool") fall outside the window of 50.
 * In the window (interleaved in time):
 * - deploy: 20 episodes, 16 success (git, deploy_tool) and 4 failure (git, deploy_tool, rollback_tool)
 * - testing: 15 episodes, 12 success, 2 failure, 1 partial (git, pytest)
 * - docs + writing: 10 episodes, 5 success, 5 unknown (editor)
 * - deployment: 2 successes (too few for a cluster) (editor)
 * - oncall: 3 failures (pager)
 * Successful episodes in the window: 16 + 12 + 5 + 2 = 35.
 */
const GROUPS: Group[] = [
  {
    count: 20,
    outcome: (k) => (k < 16 ? 'success' : 'failure'),
    tags: ['deploy'],
    tools: (k) => (k < 16 ? ['git', 'deploy_tool'] : ['git', 'deploy_tool', 'rollback_tool']),
  },
  {
    count: 15,
    outcome: (k) => (k < 12 ? 'success' : k < 14 ? 'failure' : 'partial'),
    tags: ['testing'],
    tools: () => ['git', 'pytest'],
  },
  { count: 10, outcome: (k) => (k < 5 ? 'success' : 'unknown'), tags: ['docs', 'writing'], tools: () => ['editor'] },
  { count: 2, outcome: () => 'success', tags: ['deployment'], tools: () => ['editor'] },
  { count: 3, outcome: () => 'failure', tags: ['oncall'], tools: () => ['pager'] },
];

async function seedHistory(memory: EpisodicMemory): Promise<void> {
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const hour = (i: number) => new Date(start + i * 3_600_000).toISOString();
  for (let i = 0; i < 10; i++) {
    await memory.store(S, {
      summary: `Legacy task ${i}`,
      outcome: 'success',
      tags: ['legacy'],
      toolsUsed: ['old_tool', 'git'],
      timestamp: hour(i),
    });
  }
  const window: EpisodeInput[] = [];
  for (const g of GROUPS) {
    for (let k = 0; k < g.count; k++) {
      window.push({ summary: `${g.tags[0]} task ${k}`, outcome: g.outcome(k), tags: g.tags, toolsUsed: g.tools(k) });
    }
  }
  expect(window).toHaveLength(50);
  // Interleave the groups in time: slot (j × 7) mod 50 is a permutation of 0..49.
  for (const [j, e] of window.entries()) await memory.store(S, { ...e, timestamp: hour(10 + ((j * 7) % 50)) });
}

function setup() {
  const clock = new ManualClock('2026-01-05T00:00:00.000Z');
  const episodes = createInMemoryStructuredStores().episodes;
  const memory = createEpisodicMemory({ store: episodes, clock });
  const facts = createInMemoryStructuredStores().facts;
  return { clock, episodes, memory, facts };
}

const factValue = async (facts: FactStore, key: string) => (await facts.find(S, 'agent', key, null))?.value;

describe('ConsolidationPipeline', () => {
  it('turns 60 episodes into tool and tag facts, and a second run adds none', async () => {
    const { clock, episodes, memory, facts } = setup();
    await seedHistory(memory);
    expect(await memory.count(S)).toBe(60);
    const pipeline = createConsolidationPipeline({ episodes, facts, clock });
    const first = await pipeline.run(S);
    expect(first).toMatchObject({
      newFacts: 8,
      updatedFacts: 0,
      knownFacts: 0,
      episodesProcessed: 50,
      clustersFound: 5,
      extractor: 'keyword',
      skipped: null,
    });
    const stored = await facts.get(S, 'agent');
    expect(stored.map((f) => f.key)).toEqual([
      'tag.deploy.success-ratio',
      'tag.docs.success-ratio',
      'tag.oncall.success-ratio',
      'tag.testing.success-ratio',
      'tag.writing.success-ratio',
      'tool.deploy-tool.success-usage',
      'tool.git.success-usage',
      'tool.pytest.success-usage',
    ]);
    expect(stored.every((f) => f.source === 'ai_inferred' && f.topic === null)).toBe(true);
    expect(await factValue(facts, 'tool.git.success-usage')).toEqual({
      statement: 'Tool "git" was used in 28 of 35 successful episodes (80%).',
      tool: 'git',
      successfulEpisodes: 28,
      ofSuccessful: 35,
      share: 0.8,
    });
    expect(await factValue(facts, 'tool.deploy-tool.success-usage')).toMatchObject({
      successfulEpisodes: 16,
      share: 0.46,
    });
    expect(await factValue(facts, 'tool.pytest.success-usage')).toMatchObject({ successfulEpisodes: 12, share: 0.34 });
    expect(await factValue(facts, 'tag.deploy.success-ratio')).toEqual({
      statement: 'Tasks tagged "deploy" succeeded 16 of 20 times (80%).',
      tag: 'deploy',
      successes: 16,
      failures: 4,
      partial: 0,
      total: 20,
      ratio: 0.8,
    });
    expect(await factValue(facts, 'tag.testing.success-ratio')).toMatchObject({
      successes: 12,
      failures: 2,
      partial: 1,
      total: 15,
      ratio: 0.8,
    });
    // Unknown outcomes are left out of the ratio.
    expect(await factValue(facts, 'tag.docs.success-ratio')).toMatchObject({ successes: 5, total: 5, ratio: 1 });
    expect(await factValue(facts, 'tag.oncall.success-ratio')).toMatchObject({ successes: 0, failures: 3, ratio: 0 });
    // Outside the window, too rare, or only in failures: no fact.
    for (const key of [
      'tag.legacy.success-ratio',
      'tool.old-tool.success-usage',
      'tag.deployment.success-ratio',
      'tool.editor.success-usage',
      'tool.rollback-tool.success-usage',
      'tool.pager.success-usage',
    ]) {
      expect(await factValue(facts, key), key).toBeUndefined();
    }

    const second = await pipeline.run(S);
    expect(second).toMatchObject({ newFacts: 0, updatedFacts: 0, knownFacts: 8, episodesProcessed: 50 });
    // A new pipeline over the same fact store (another process, a restart) finds them too.
    const third = await createConsolidationPipeline({ episodes, facts, clock }).run(S);
    expect(third).toMatchObject({ newFacts: 0, updatedFacts: 0, knownFacts: 8 });
    // Control: over an empty fact store, the same episodes give 8 new facts again.
    expect(
      (await createConsolidationPipeline({ episodes, facts: createInMemoryStructuredStores().facts, clock }).run(S))
        .newFacts,
    ).toBe(8);
    expect(await facts.get(S, 'agent')).toHaveLength(8);
  });

  it('updates a fact whose value moved, never adding a duplicate', async () => {
    const { clock, episodes, memory, facts } = setup();
    await seedHistory(memory);
    const pipeline = createConsolidationPipeline({ episodes, facts, clock });
    await pipeline.run(S);
    for (let i = 0; i < 4; i++)
      await memory.store(S, {
        summary: `late deploy ${i}`,
        outcome: 'failure',
        tags: ['deploy'],
        timestamp: `2026-01-04T0${i}:00:00.000Z`,
      });
    const again = await pipeline.run(S);
    expect(again.newFacts).toBe(0);
    expect(again.updatedFacts).toBeGreaterThan(0);
    expect(again.facts.find((f) => f.key === 'tag.deploy.success-ratio')?.status).toBe('updated');
    expect(await facts.get(S, 'agent')).toHaveLength(8);
  });

  it('skips when fewer than the minimum episodes exist, and honours the window', async () => {
    const { clock, episodes, memory, facts } = setup();
    const pipeline = createConsolidationPipeline({ episodes, facts, clock });
    await memory.store(S, { summary: 'one', outcome: 'success', toolsUsed: ['git'], tags: ['x'] });
    await memory.store(S, { summary: 'two', outcome: 'success', toolsUsed: ['git'], tags: ['x'] });
    const skipped = await pipeline.run(S);
    expect(skipped).toMatchObject({
      newFacts: 0,
      episodesProcessed: 0,
      clustersFound: 0,
      skipped: { reason: 'too-few-episodes', episodes: 2, minimum: 3 },
    });
    await memory.store(S, { summary: 'three', outcome: 'success', toolsUsed: ['git'], tags: ['x'] });
    const ran = await pipeline.run(S);
    expect(ran).toMatchObject({ newFacts: 2, episodesProcessed: 3, clustersFound: 1, skipped: null });
    expect((await pipeline.run(S, { maxEpisodes: 2 })).skipped).toMatchObject({ reason: 'too-few-episodes' });
    expect((await pipeline.run(S, { minEpisodes: 10 })).skipped).toMatchObject({ episodes: 3, minimum: 10 });
    await expect(pipeline.run(S, { maxEpisodes: 0 })).rejects.toSatisfy((e) => MemError.is(e, 'INVALID_INPUT'));
    // Nothing crosses spaces.
    expect((await pipeline.run('globex')).skipped).toMatchObject({ episodes: 0 });
    expect(await facts.get('globex', 'agent')).toEqual([]);
  });

  it('leaves a fact a user set alone (source priority)', async () => {
    const { clock, episodes, memory, facts } = setup();
    await seedHistory(memory);
    await facts.upsert(S, {
      user: 'agent',
      topic: null,
      key: 'tag.deploy.success-ratio',
      value: 'deploys are fine',
      source: 'user',
      at: clock.now().toISOString(),
    });
    const report = await createConsolidationPipeline({ episodes, facts, clock }).run(S);
    expect(report).toMatchObject({ newFacts: 7, keptFacts: 1 });
    expect(await factValue(facts, 'tag.deploy.success-ratio')).toBe('deploys are fine');
  });

  it('uses a FactExtractor port: refuses secrets, drops repeats, falls back when it fails', async () => {
    const { clock, episodes, memory, facts } = setup();
    await seedHistory(memory);
    const seenInput: number[] = [];
    const llm: FactExtractor = {
      id: 'llm:test',
      async extract({ episodes: eps, clusters }) {
        seenInput.push(eps.length, clusters.length);
        return {
          facts: [
            { key: 'lesson.deploy-on-friday', value: 'Avoid deploying on Fridays.', evidence: [eps[0]!.id] },
            { key: 'lesson.deploy-on-friday', value: 'duplicate in one answer' },
            { key: 'lesson.ci-token', value: 'CI uses ghp_abcdefghijklmnopqrstuvwxyz0123456789' },
            { key: 'lesson.testing', value: { prefer: 'pytest -x' }, topic: 'testing', source: 'mcp' },
            { key: '', value: 'bad key' },
          ],
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        };
      },
    };
    const report = await createConsolidationPipeline({ episodes, facts, clock, extractor: llm }).run(S);
    expect(seenInput).toEqual([50, 5]);
    expect(report).toMatchObject({ extractor: 'llm:test', newFacts: 2, refusedFacts: 2, fallbackReason: null });
    expect(report.usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    const refused = report.facts.filter((f) => f.status === 'refused');
    expect(refused.map((f) => f.key)).toEqual(['lesson.ci-token', '']);
    expect(JSON.stringify(report)).not.toContain('ghp_abcdef');
    expect(await factValue(facts, 'lesson.deploy-on-friday')).toBe('Avoid deploying on Fridays.');
    expect((await facts.get(S, 'agent', 'testing')).find((f) => f.key === 'lesson.testing')).toMatchObject({
      source: 'mcp',
      topic: 'testing',
    });

    const broken: FactExtractor = {
      id: 'llm:down',
      extract: async () => Promise.reject(new Error('503 from the endpoint')),
    };
    const fellBack = await createConsolidationPipeline({ episodes, facts, clock, extractor: broken }).run(S);
    expect(fellBack).toMatchObject({ extractor: 'keyword', newFacts: 8 });
    expect(fellBack.fallbackReason).toContain('503 from the endpoint');
    expect(fellBack.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    await expect(
      createConsolidationPipeline({ episodes, facts, clock, extractor: broken, fallbackExtractor: null }).run(S),
    ).rejects.toThrow('503');
  });

  it("makes keys in core's fact-key grammar from any tool or tag name, and skips a name with nothing usable", async () => {
    const { memory, facts, episodes, clock } = setup();
    for (let i = 0; i < 4; i++) {
      await memory.store(S, {
        summary: `Release ${i}`,
        outcome: 'success',
        tags: ['Release Train', '日本'],
        toolsUsed: ['GitHub_CLI', 'kubectl.rollout', '🚀'],
      });
    }
    const report = await createConsolidationPipeline({ episodes, facts, clock }).run(S);
    const keys = report.facts.map((f) => f.key).sort();
    expect(keys).toEqual([
      'tag.release-train.success-ratio',
      'tool.git-hub-cli.success-usage',
      'tool.kubectl-rollout.success-usage',
    ]);
    for (const key of keys) expect(FACT_KEY_PATTERN.test(key), key).toBe(true);
    expect(report.refusedFacts).toBe(0);
    expect(await factValue(facts, 'tool.git-hub-cli.success-usage')).toMatchObject({ tool: 'GitHub_CLI' });
  });

  it('clusters episodes by shared tag, largest first', () => {
    const e = (id: string, tags: string[]) => ({
      id,
      summary: id,
      keyDecisions: [],
      toolsUsed: [],
      outcome: 'success' as const,
      sessionId: null,
      timestamp: '2026-01-01T00:00:00.000Z',
      tags,
      metadata: {},
    });
    const clusters = clusterEpisodesByTag(
      [e('1', ['a', 'b']), e('2', ['a']), e('3', ['b', 'a']), e('4', ['b']), e('5', ['c', 'c'])],
      2,
    );
    expect(clusters).toEqual([
      { id: 'tag:a', label: 'episodes tagged "a"', tag: 'a', episodeIds: ['1', '2', '3'] },
      { id: 'tag:b', label: 'episodes tagged "b"', tag: 'b', episodeIds: ['1', '3', '4'] },
    ]);
  });
});

describe('who may consolidate', () => {
  it('a lead may; a worker gets FORBIDDEN with what to do', () => {
    expect(() => checkConsolidator({ space: 'acme', agentId: 'boss', role: 'lead' })).not.toThrow();
    try {
      checkConsolidator({ space: 'acme', agentId: 'coder', role: 'worker' });
      expect.unreachable('a worker was allowed to consolidate');
    } catch (error) {
      expect(MemError.is(error, 'FORBIDDEN')).toBe(true);
      expect((error as Error).message).toContain('--role lead');
    }
  });
});

describe('wiring', () => {
  it('a pipeline without a fact store (or episode store) is a CAPABILITY_MISSING MemError naming the store, not a TypeError', async () => {
    const { episodes } = createInMemoryStructuredStores();
    for (const deps of [{ episodes }, { facts: createInMemoryStructuredStores().facts }, {}]) {
      try {
        await createConsolidationPipeline(deps as unknown as Parameters<typeof createConsolidationPipeline>[0]).run(S);
        expect.unreachable('a pipeline without its stores ran');
      } catch (error) {
        expect(error).not.toBeInstanceOf(TypeError);
        expect(MemError.is(error, 'CAPABILITY_MISSING')).toBe(true);
        expect((error as Error).message).toMatch(/no (facts|episodes) store/);
        expect((error as Error).message).toContain('createInMemoryStructuredStores()');
      }
    }
  });
});
