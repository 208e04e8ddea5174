import { createHashingEmbedder, createInMemoryStructuredStores, MemError, type MemErrorCode } from '@mem/core';
import { episodeSearchText, ManualClock } from '@mem/core/adapter';
import { tokenEmbedder, wordTokens } from '@mem/testkit';
import { describe, expect, it } from 'vitest';
import { createEpisodicMemory, type EpisodicMemory } from './index.js';

const S = 'acme';

async function expectCode(promise: Promise<unknown>, code: MemErrorCode): Promise<MemError> {
  try {
    await promise;
  } catch (error) {
    if (!MemError.is(error)) throw error;
    expect(error.code, error.message).toBe(code);
    return error;
  }
  throw new Error(`expected ${code}`);
}

function setup(withEmbedder = false): { memory: EpisodicMemory; clock: ManualClock } {
  const clock = new ManualClock('2026-02-01T10:00:00.000Z');
  const memory = createEpisodicMemory({
    store: createInMemoryStructuredStores().episodes,
    embedder: withEmbedder ? createHashingEmbedder({ dimension: 128 }) : undefined,
    clock,
  });
  return { memory, clock };
}

async function seed(memory: EpisodicMemory, clock: ManualClock): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const add = async (name: string, summary: string, extra: Record<string, unknown> = {}) => {
    clock.advance(60_000);
    ids[name] = (await memory.store(S, { summary, ...extra })).id;
  };
  await add('rollback', 'Rollback of the friday release after the checkout errors', {
    keyDecisions: ['Rollback first, investigate after'],
    toolsUsed: ['deploy_tool', 'git'],
    outcome: 'success',
    tags: ['deploy', 'incident'],
  });
  await add('offsite', 'Planned the friday offsite agenda with the team', { tags: ['planning'] });
  await add('drill', 'Incident review of the outage', {
    keyDecisions: ['Schedule a rollback drill every month'],
    tags: ['incident'],
  });
  await add('guide', 'Wrote the deployment guide for new engineers', {
    tags: ['deployment', 'docs'],
    outcome: 'partial',
  });
  await add('lunch', 'Ordered lunch for the team meeting', { tags: ['office'] });
  return ids;
}

describe('EpisodicMemory', () => {
  it('stores an episode, filling id, timestamp and defaults', async () => {
    const { memory } = setup();
    const e = await memory.store(S, {
      summary: 'Fixed the flaky login test',
      toolsUsed: ['pytest', 'pytest', 'git'],
      tags: ['testing', 'testing'],
    });
    expect(e).toMatchObject({
      summary: 'Fixed the flaky login test',
      keyDecisions: [],
      toolsUsed: ['pytest', 'git'],
      outcome: 'unknown',
      sessionId: null,
      timestamp: '2026-02-01T10:00:00.000Z',
      tags: ['testing'],
      metadata: {},
    });
    expect(e.id).toMatch(/^[0-9a-z]{26}$/);
    const given = await memory.store(S, {
      id: 'ep-1',
      summary: 'Imported episode',
      timestamp: '2025-12-31T23:00:00+01:00',
      outcome: 'failure',
      sessionId: 'sess-9',
      metadata: { ticket: 'OPS-1' },
    });
    expect(given).toMatchObject({
      id: 'ep-1',
      timestamp: '2025-12-31T22:00:00.000Z',
      outcome: 'failure',
      sessionId: 'sess-9',
    });
    expect(await memory.count(S)).toBe(2);
  });

  it('recalls by any query term, not an exact phrase and not all terms', async () => {
    const { memory, clock } = setup();
    const ids = await seed(memory, clock);
    const results = await memory.recall(S, 'rollback on friday');
    expect(results[0]?.episode.id).toBe(ids.rollback);
    expect(results.map((r) => r.episode.id).sort()).toEqual([ids.rollback, ids.offsite, ids.drill].sort());
    expect(results[0]).toMatchObject({ keywordRank: 1, vectorRank: null, similarity: null, relevance: 1 });
    expect(results.every((r, i) => i === 0 || r.relevance <= results[i - 1]!.relevance)).toBe(true);
    // One shared word among unknown ones is enough.
    expect((await memory.recall(S, 'zebra unicorn lunch')).map((r) => r.episode.id)).toEqual([ids.lunch]);
    // Tags are searched too.
    expect((await memory.recall(S, 'docs')).map((r) => r.episode.id)).toEqual([ids.guide]);
    expect(await memory.recall(S, 'kubernetes')).toEqual([]);
    expect(await memory.recall(S, 'team', 1)).toHaveLength(1);
  });

  it('fuses vector similarity when an embedder is set', async () => {
    const { memory, clock } = setup(true);
    const ids = await seed(memory, clock);
    const results = await memory.recall(S, 'rollback of the friday release');
    expect(results[0]?.episode.id).toBe(ids.rollback);
    expect(results[0]?.keywordRank).toBe(1);
    expect(results[0]?.vectorRank).toBe(1);
    expect(results[0]?.similarity).toBeGreaterThan(0.5);
    expect(results[0]?.relevance).toBeCloseTo(1);
    expect(results.length).toBeLessThanOrEqual(5);
  });

  it('lists the newest episodes and finds tags exactly', async () => {
    const { memory, clock } = setup();
    const ids = await seed(memory, clock);
    expect((await memory.recallRecent(S, 2)).map((e) => e.id)).toEqual([ids.lunch, ids.guide]);
    expect(await memory.recallRecent(S)).toHaveLength(5);
    expect((await memory.recallByTag(S, 'incident')).map((e) => e.id)).toEqual([ids.drill, ids.rollback]);
    expect((await memory.recallByTag(S, 'deploy')).map((e) => e.id)).toEqual([ids.rollback]);
    expect((await memory.recallByTag(S, 'deployment')).map((e) => e.id)).toEqual([ids.guide]);
    expect(await memory.recallByTag(S, 'dep')).toEqual([]);
    expect(await memory.recallByTag(S, 'Deploy')).toEqual([]);
  });

  it('never crosses spaces', async () => {
    const { memory, clock } = setup(true);
    await seed(memory, clock);
    expect(await memory.recall('globex', 'rollback friday release')).toEqual([]);
    expect(await memory.recallRecent('globex')).toEqual([]);
    expect(await memory.recallByTag('globex', 'incident')).toEqual([]);
    expect(await memory.count('globex')).toBe(0);
  });

  it('refuses bad input and secrets with stable codes, storing nothing', async () => {
    const { memory } = setup();
    await expectCode(memory.store(S, { summary: '  ' }), 'INVALID_INPUT');
    await expectCode(memory.store(S, { summary: 'x', outcome: 'great' as 'success' }), 'INVALID_INPUT');
    await expectCode(memory.store(S, { summary: 'x', tags: ['a,b'] }), 'INVALID_INPUT');
    await expectCode(memory.store(S, { summary: 'x', timestamp: 'last tuesday' }), 'INVALID_INPUT');
    await expectCode(memory.store(S, { summary: 'x', bogus: 1 } as never), 'INVALID_INPUT');
    await expectCode(memory.store('../x', { summary: 'x' }), 'INVALID_INPUT');
    const e = await expectCode(
      memory.store(S, { summary: 'Used key AKIAIOSFODNN7EXAMPLE to deploy' }),
      'SECRET_DETECTED',
    );
    expect(e.message).not.toContain('AKIAIOSFODNN7EXAMPLE');
    await expectCode(
      memory.store(S, { summary: 'ok', keyDecisions: ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789'] }),
      'SECRET_DETECTED',
    );
    await expectCode(
      memory.store(S, { summary: 'ok', metadata: { db: 'postgres://admin:s3cretPass@db:5432/app' } }),
      'SECRET_DETECTED',
    );
    // Tool names and session ids are free text too (issue 15 §7).
    await expectCode(
      memory.store(S, { summary: 'ok', toolsUsed: ['curl redis://:Pw-9x2k7@cache:6379/0'] }),
      'SECRET_DETECTED',
    );
    await expectCode(
      memory.store(S, { summary: 'ok', sessionId: 'sess ghp_abcdefghijklmnopqrstuvwxyz0123456789' }),
      'SECRET_DETECTED',
    );
    await expectCode(memory.recall(S, ''), 'INVALID_INPUT');
    await expectCode(memory.recall(S, 'x', 0), 'INVALID_INPUT');
    await expectCode(memory.recall(S, 'x', 51), 'INVALID_INPUT');
    await expectCode(memory.recallRecent(S, 0), 'INVALID_INPUT');
    await expectCode(memory.recallByTag(S, ''), 'INVALID_INPUT');
    expect(await memory.count(S)).toBe(0);
    await memory.store(S, { id: 'same', summary: 'first' });
    await expectCode(memory.store(S, { id: 'same', summary: 'second' }), 'CONFLICT');
  });

  it('reports a failing embedder as EMBEDDER_FAILED', async () => {
    const memory = createEpisodicMemory({
      store: createInMemoryStructuredStores().episodes,
      embedder: { id: 'broken', dimension: 4, embed: async () => Promise.reject(new Error('connection refused')) },
    });
    const e = await expectCode(memory.store(S, { summary: 'x' }), 'EMBEDDER_FAILED');
    expect(e.retryable).toBe(true);
    expect(await memory.count(S)).toBe(0);
  });
});

describe('token usage of the embedder', () => {
  const tokens = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });

  it('storeReport and recallReport carry what an embedder with embedWithUsage spent; store and recall are unchanged', async () => {
    const memory = createEpisodicMemory({
      store: createInMemoryStructuredStores().episodes,
      embedder: tokenEmbedder(),
      clock: new ManualClock('2026-02-01T10:00:00.000Z'),
    });
    const stored = await memory.storeReport(S, { summary: 'Rolled back the release', outcome: 'success' });
    // The embedded text is episodeSearchText (the summary with the other searchable fields).
    const spent = wordTokens([episodeSearchText(stored.episode)]);
    expect(spent).toBeGreaterThanOrEqual(4);
    expect(stored.usage).toEqual(tokens(spent));
    expect(await memory.count(S)).toBe(1);

    const recalled = await memory.recallReport(S, 'why roll back the release');
    expect(recalled.usage).toEqual(tokens(5));
    expect(recalled.results.map((r) => r.episode.id)).toEqual([stored.episode.id]);
    expect(await memory.recall(S, 'why roll back the release')).toEqual(recalled.results);

    const plain = await memory.store(S, { summary: 'Another episode' });
    expect(plain).not.toHaveProperty('usage');
  });

  it('the hashing embedder and no embedder report zero; bad input is refused before anything is spent', async () => {
    for (const embedder of [createHashingEmbedder({ dimension: 64 }), undefined]) {
      const memory = createEpisodicMemory({ store: createInMemoryStructuredStores().episodes, embedder });
      expect((await memory.storeReport(S, { summary: 'Deployed the api' })).usage).toEqual(tokens(0));
      expect((await memory.recallReport(S, 'deploy')).usage).toEqual(tokens(0));
    }
    const memory = createEpisodicMemory({
      store: createInMemoryStructuredStores().episodes,
      embedder: tokenEmbedder(),
    });
    await expectCode(memory.storeReport(S, { summary: '' }), 'INVALID_INPUT');
    await expectCode(memory.recallReport(S, 'x', 0), 'INVALID_INPUT');
    expect(await memory.count(S)).toBe(0);
  });
});
