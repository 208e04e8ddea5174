import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  type Stack,
} from '@mem/core';
import { episodicServices } from '@mem/episodic';
import { proceduralServices } from '@mem/procedural';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { call, testServer } from './helpers.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

function structuredStack(withStructured = true): Stack {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder(),
    ...(withStructured ? { structured: createInMemoryStructuredStores() } : {}),
    services: [episodicServices(), proceduralServices()],
  });
}

async function setup(stack = structuredStack()) {
  const keys = KeyStore.open(':memory:');
  const k = {
    worker: (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key,
    lead: (await keys.create({ space: 'acme', agentId: 'boss', role: 'lead' })).key,
    other: (await keys.create({ space: 'globex', agentId: 'coder', role: 'lead' })).key,
  };
  const s = await testServer({ keys, stack });
  open.push(s, keys);
  return { s, k };
}

describe('facts over HTTP', () => {
  it('keeps the higher-priority source, merges topics, deletes, and refuses secrets', async () => {
    const { s, k } = await setup();
    const set = (body: object) => call(s.url, 'PUT', '/v1/facts', { key: k.worker, body });
    const created = await set({ user: 'ana', key: 'language', value: 'Portuguese' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'created', fact: { value: 'Portuguese', source: 'user' } });
    const kept = await set({ user: 'ana', key: 'language', value: 'Spanish', source: 'ai_inferred' });
    expect(kept.body).toMatchObject({ status: 'kept', fact: { value: 'Portuguese', source: 'user' } });
    const updated = await set({ user: 'ana', key: 'language', value: 'English' });
    expect(updated.body).toMatchObject({ status: 'updated', fact: { value: 'English' } });

    await set({ user: 'ana', key: 'editor', value: 'vim' });
    await set({ user: 'ana', key: 'editor', value: 'emacs', topic: 'work' });
    await set({ user: 'ana', key: 'team', value: { name: 'billing', size: 4 }, topic: 'work' });
    const global = await call(s.url, 'GET', '/v1/facts?user=ana', { key: k.worker });
    expect(global.status).toBe(200);
    const asObject = (r: { body: { facts: { key: string; value: unknown }[] } }) =>
      Object.fromEntries(r.body.facts.map((f) => [f.key, f.value]));
    expect(asObject(global)).toEqual({ language: 'English', editor: 'vim' });
    const work = await call(s.url, 'GET', '/v1/facts?user=ana&topic=work', { key: k.worker });
    expect(asObject(work)).toEqual({ language: 'English', editor: 'emacs', team: { name: 'billing', size: 4 } });

    // DELETE takes its input from the body or from the query.
    const byBody = await call(s.url, 'DELETE', '/v1/facts', {
      key: k.worker,
      body: { user: 'ana', key: 'editor', topic: 'work' },
    });
    expect([byBody.status, byBody.body]).toEqual([200, { deleted: true }]);
    const byQuery = await call(s.url, 'DELETE', '/v1/facts?user=ana&key=editor', { key: k.worker });
    expect(byQuery.status).toBe(200);
    const gone = await call(s.url, 'DELETE', '/v1/facts?user=ana&key=editor', { key: k.worker });
    expect([gone.status, gone.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(asObject(await call(s.url, 'GET', '/v1/facts?user=ana&topic=work', { key: k.worker }))).toEqual({
      language: 'English',
      team: { name: 'billing', size: 4 },
    });

    const secret = await set({ user: 'ana', key: 'aws', value: 'deploy with AKIAIOSFODNN7EXAMPLE please' });
    expect([secret.status, secret.body.code]).toEqual([400, 'SECRET_DETECTED']);
    const invalid = await set({ user: '../x', key: 'k', value: 1 });
    expect([invalid.status, invalid.body.code]).toEqual([400, 'INVALID_INPUT']);
    const noUser = await call(s.url, 'GET', '/v1/facts', { key: k.worker });
    expect([noUser.status, noUser.body.code]).toEqual([400, 'INVALID_INPUT']);
  });
});

describe('episodes over HTTP', () => {
  it('stores, recalls, lists recent and by exact tag', async () => {
    const { s, k } = await setup();
    const store = (body: object) => call(s.url, 'POST', '/v1/episodes', { key: k.worker, body });
    const a = await store({
      summary: 'Deployed the billing service to staging after fixing the migration order.',
      keyDecisions: ['run migrations before the rollout'],
      toolsUsed: ['kubectl', 'psql'],
      outcome: 'success',
      tags: ['deploy', 'billing'],
    });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ id: expect.any(String), outcome: 'success', tags: ['deploy', 'billing'] });
    const b = await store({ summary: 'Wrote the quarterly report for finance.', tags: ['report'], outcome: 'partial' });
    await store({ summary: 'Deployment rehearsal on the search cluster.', tags: ['deploy-test'] });

    const recalled = await call(s.url, 'POST', '/v1/episodes/recall', {
      key: k.worker,
      body: { query: 'billing staging deploy migration', topK: 2 },
    });
    expect(recalled.status).toBe(200);
    expect(recalled.body.results[0].episode.id).toBe(a.body.id);
    expect(recalled.body.results.length).toBeLessThanOrEqual(2);

    const recent = await call(s.url, 'GET', '/v1/episodes/recent?n=2', { key: k.worker });
    expect(recent.body.episodes).toHaveLength(2);
    const byTag = await call(s.url, 'GET', '/v1/episodes/by-tag/deploy', { key: k.worker });
    expect(byTag.body.episodes.map((e: { id: string }) => e.id)).toEqual([a.body.id]);
    const report = await call(s.url, 'GET', '/v1/episodes/by-tag/report', { key: k.worker });
    expect(report.body.episodes.map((e: { id: string }) => e.id)).toEqual([b.body.id]);

    const empty = await store({ summary: '   ' });
    expect([empty.status, empty.body.code]).toEqual([400, 'INVALID_INPUT']);
    const badN = await call(s.url, 'GET', '/v1/episodes/recent?n=x', { key: k.worker });
    expect(badN.status).toBe(400);
  });
});

describe('procedures over HTTP', () => {
  it('stores, records outcomes and suggests the one that succeeds first', async () => {
    const { s, k } = await setup();
    const procedure = (name: string) => ({
      name,
      description: 'Roll out a service to the staging cluster',
      trigger: 'deploy a service to staging',
      steps: [{ toolName: 'kubectl', argsTemplate: { service: '{{service}}' }, expectedOutcome: 'pods ready' }],
      tags: ['deploy'],
    });
    const flaky = await call(s.url, 'POST', '/v1/procedures', { key: k.worker, body: procedure('Staging rollout A') });
    const solid = await call(s.url, 'POST', '/v1/procedures', { key: k.worker, body: procedure('Staging rollout B') });
    expect(solid.status).toBe(201);
    expect(solid.body).toMatchObject({ name: 'Staging rollout B', successCount: 0, failureCount: 0 });

    const outcome = (id: string, success: boolean) =>
      call(s.url, 'POST', `/v1/procedures/${id}/outcomes`, { key: k.worker, body: { success } });
    for (let i = 0; i < 3; i++) {
      expect((await outcome(solid.body.id, true)).status).toBe(200);
      await outcome(flaky.body.id, false);
    }
    const last = await outcome(flaky.body.id, true);
    expect(last.body).toMatchObject({ id: flaky.body.id, successCount: 1, failureCount: 3 });

    const suggested = await call(s.url, 'POST', '/v1/procedures/suggest', {
      key: k.worker,
      body: { query: 'deploy a service to staging' },
    });
    expect(suggested.status).toBe(200);
    expect(suggested.body.results.map((r: { procedure: { id: string } }) => r.procedure.id)).toEqual([
      solid.body.id,
      flaky.body.id,
    ]);
    expect(suggested.body.results[0].successRate).toBe(1);

    const got = await call(s.url, 'GET', `/v1/procedures/${solid.body.id}`, { key: k.worker });
    expect(got.body).toMatchObject({ id: solid.body.id, successCount: 3, steps: [{ toolName: 'kubectl' }] });
    const missing = await call(s.url, 'GET', '/v1/procedures/nope', { key: k.worker });
    expect(missing.status).toBe(404);
    const noSteps = await call(s.url, 'POST', '/v1/procedures', { key: k.worker, body: { name: 'x', steps: [] } });
    expect(noSteps.status).toBe(400);
    const noSuccess = await call(s.url, 'POST', `/v1/procedures/${solid.body.id}/outcomes`, {
      key: k.worker,
      body: {},
    });
    expect(noSuccess.status).toBe(400);
  });
});

describe('consolidation over HTTP', () => {
  it('is lead only, adds facts once, and a second run adds none', async () => {
    const { s, k } = await setup();
    for (let i = 0; i < 4; i++) {
      await call(s.url, 'POST', '/v1/episodes', {
        key: k.worker,
        body: {
          summary: `Deployed service ${i} to staging.`,
          toolsUsed: ['kubectl'],
          outcome: i === 3 ? 'failure' : 'success',
          tags: ['deploy'],
        },
      });
    }
    const denied = await call(s.url, 'POST', '/v1/consolidate', { key: k.worker, body: {} });
    expect([denied.status, denied.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(denied.body.message).toContain('Only a lead may run consolidate');

    const first = await call(s.url, 'POST', '/v1/consolidate', { key: k.lead, body: { minEpisodes: 3 } });
    expect(first.status).toBe(200);
    expect(first.body.skipped).toBeNull();
    expect(first.body.newFacts).toBeGreaterThan(0);
    expect(first.body.episodesProcessed).toBe(4);
    const facts = await call(s.url, 'GET', '/v1/facts?user=agent', { key: k.lead });
    expect(facts.body.facts.map((f: { key: string }) => f.key)).toEqual(
      expect.arrayContaining(['tool.kubectl.success-usage', 'tag.deploy.success-ratio']),
    );
    const second = await call(s.url, 'POST', '/v1/consolidate', { key: k.lead });
    expect(second.body).toMatchObject({ newFacts: 0, updatedFacts: 0 });
    expect(second.body.knownFacts).toBe(first.body.newFacts);

    // Another space has no episodes: skipped, and it never sees acme's facts.
    const elsewhere = await call(s.url, 'POST', '/v1/consolidate', { key: k.other, body: {} });
    expect(elsewhere.body.skipped).toMatchObject({ reason: 'too-few-episodes', episodes: 0 });
  });
});

describe('space isolation', () => {
  it('a key of space B never sees the facts, episodes or procedures of space A', async () => {
    const { s, k } = await setup();
    await call(s.url, 'PUT', '/v1/facts', { key: k.worker, body: { user: 'ana', key: 'language', value: 'pt' } });
    const ep = await call(s.url, 'POST', '/v1/episodes', {
      key: k.worker,
      body: { summary: 'Fixed the invoice export.', tags: ['billing'], outcome: 'success' },
    });
    const proc = await call(s.url, 'POST', '/v1/procedures', {
      key: k.worker,
      body: { name: 'Invoice export', steps: [{ toolName: 'psql' }], trigger: 'export invoices' },
    });
    const b = k.other;
    expect((await call(s.url, 'GET', '/v1/facts?user=ana', { key: b })).body).toEqual({ facts: [] });
    expect((await call(s.url, 'DELETE', '/v1/facts?user=ana&key=language', { key: b })).status).toBe(404);
    const recall = await call(s.url, 'POST', '/v1/episodes/recall', { key: b, body: { query: 'invoice export' } });
    expect(recall.body).toEqual({ results: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } });
    expect((await call(s.url, 'GET', '/v1/episodes/recent', { key: b })).body).toEqual({ episodes: [] });
    expect((await call(s.url, 'GET', '/v1/episodes/by-tag/billing', { key: b })).body).toEqual({ episodes: [] });
    const suggest = await call(s.url, 'POST', '/v1/procedures/suggest', { key: b, body: { query: 'export invoices' } });
    expect(suggest.body).toEqual({ results: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } });
    expect((await call(s.url, 'GET', `/v1/procedures/${proc.body.id}`, { key: b })).status).toBe(404);
    const outcome = await call(s.url, 'POST', `/v1/procedures/${proc.body.id}/outcomes`, {
      key: b,
      body: { success: true },
    });
    expect(outcome.status).toBe(404);
    // Space A still has everything, untouched.
    expect((await call(s.url, 'GET', `/v1/procedures/${proc.body.id}`, { key: k.worker })).body.successCount).toBe(0);
    const mine = await call(s.url, 'GET', '/v1/episodes/by-tag/billing', { key: k.worker });
    expect(mine.body.episodes.map((e: { id: string }) => e.id)).toEqual([ep.body.id]);
  });
});

describe('a stack without structured stores', () => {
  it('answers 501 CAPABILITY_MISSING naming the stores that have the port', async () => {
    const { s, k } = await setup(structuredStack(false));
    const facts = await call(s.url, 'PUT', '/v1/facts', { key: k.worker, body: { user: 'ana', key: 'k', value: 1 } });
    expect([facts.status, facts.body.code]).toEqual([501, 'CAPABILITY_MISSING']);
    expect(facts.body.message).toContain('facts');
    expect(facts.body.message).toContain('@mem/store-sqlite');
    const episodes = await call(s.url, 'POST', '/v1/episodes/recall', { key: k.worker, body: { query: 'x' } });
    expect([episodes.status, episodes.body.code]).toEqual([501, 'CAPABILITY_MISSING']);
    expect(episodes.body.message).toContain('@mem/store-lancedb');
  });
});

describe('structured tools over MCP (streamable HTTP)', () => {
  it('fact-set then fact-get through the SDK client, acting in the key space', async () => {
    const { s, k } = await setup();
    const client = new Client({ name: 'mem-test-structured', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${k.worker}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const setTool = tools.find((t) => t.name === 'fact-set')!;
      for (const phrase of ['one value per key', 'source "user"']) expect(setTool.description).toContain(phrase);
      expect(tools.find((t) => t.name === 'procedure-store')!.description).toContain('procedure-outcome');
      const set = (await client.callTool({
        name: 'fact-set',
        arguments: { user: 'ana', key: 'timezone', value: 'Europe/Lisbon' },
      })) as { isError?: boolean; structuredContent?: any };
      expect(set.isError).toBeFalsy();
      expect(set.structuredContent).toMatchObject({ status: 'created', fact: { source: 'user' } });
      const got = (await client.callTool({ name: 'fact-get', arguments: { user: 'ana' } })) as {
        structuredContent?: any;
      };
      expect(got.structuredContent.facts).toEqual([
        expect.objectContaining({ key: 'timezone', value: 'Europe/Lisbon' }),
      ]);
      const denied = (await client.callTool({ name: 'consolidate', arguments: {} })) as {
        isError?: boolean;
        content: { text?: string }[];
      };
      expect(denied.isError).toBe(true);
      expect(denied.content[0]!.text).toMatch(/^FORBIDDEN: /);
    } finally {
      await client.close();
    }
    // The same fact over HTTP with the same key; not in another space.
    const viaHttp = await call(s.url, 'GET', '/v1/facts?user=ana', { key: k.worker });
    expect(viaHttp.body.facts[0]).toMatchObject({ key: 'timezone', value: 'Europe/Lisbon' });
    expect((await call(s.url, 'GET', '/v1/facts?user=ana', { key: k.other })).body.facts).toEqual([]);
  });
});

describe('forget over HTTP', () => {
  it("removes an agent's memories (lead only) and a user's facts, and reports counts", async () => {
    const { s, k } = await setup();
    const stored = await call(s.url, 'POST', '/v1/memories', {
      key: k.worker,
      body: { content: 'Marker-zebra-42 belongs to the coder.' },
    });
    expect(stored.status).toBe(201);
    await call(s.url, 'PUT', '/v1/facts', { key: k.worker, body: { user: 'ana', key: 'pet', value: 'zebra' } });
    const denied = await call(s.url, 'POST', '/v1/forget', { key: k.worker, body: { agentId: 'coder' } });
    expect(denied.status).toBe(403);
    const bad = await call(s.url, 'POST', '/v1/forget', { key: k.lead, body: { agentId: 'coder', userId: 'ana' } });
    expect(bad.status).toBe(400);
    const other = await call(s.url, 'POST', '/v1/forget', { key: k.other, body: { agentId: 'coder' } });
    expect(other.body.removed.memories.documents).toBe(0);
    const agent = await call(s.url, 'POST', '/v1/forget', { key: k.lead, body: { agentId: 'coder' } });
    expect(agent.status).toBe(200);
    expect(agent.body.removed.memories).toMatchObject({ documents: 1, chunks: 1 });
    const found = await call(s.url, 'POST', '/v1/memories/search', {
      key: k.worker,
      body: { query: 'Marker-zebra-42' },
    });
    expect(found.body.results).toEqual([]);
    const user = await call(s.url, 'POST', '/v1/forget', { key: k.lead, body: { userId: 'ana' } });
    expect(user.body.removed.facts).toBe(1);
    const facts = await call(s.url, 'GET', '/v1/facts?user=ana', { key: k.lead });
    expect(facts.body.facts).toEqual([]);
  });

  it('forgets the memories formed only from some messages (lead only), and refuses an empty list', async () => {
    const { s, k } = await setup();
    const at = '2026-03-02T09:00:00Z';
    const distilled = await call(s.url, 'POST', '/v1/distill', {
      key: k.worker,
      body: {
        messages: [
          { id: 'm1', role: 'user', content: 'I have a dog named Rex.', at },
          { id: 'm2', role: 'user', content: 'I am allergic to peanuts.', at },
        ],
      },
    });
    expect(distilled.status).toBe(200);
    const rex = (distilled.body.decisions as { memoryId: string; value: string }[]).find((d) => d.value === 'Rex')!;
    const empty = await call(s.url, 'POST', '/v1/forget', { key: k.lead, body: { messages: [] } });
    expect([empty.status, empty.body.code]).toEqual([400, 'INVALID_INPUT']);
    const denied = await call(s.url, 'POST', '/v1/forget', { key: k.worker, body: { messages: ['m1'] } });
    expect(denied.status).toBe(403);
    const forgot = await call(s.url, 'POST', '/v1/forget', { key: k.lead, body: { messages: ['m1'] } });
    expect(forgot.status).toBe(200);
    expect(forgot.body).toMatchObject({ subject: { messages: ['m1'] }, removed: { memories: { documents: 1 } } });
    const why = await call(s.url, 'GET', `/v1/memories/${rex.memoryId}/why`, { key: k.worker });
    expect(why.status).toBe(404);
  });
});
