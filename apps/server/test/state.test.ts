import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack, type Stack } from '@mem/core';
import { episodicServices } from '@mem/episodic';
import { proceduralServices } from '@mem/procedural';
import { createMarkdownStores } from '@mem/store-markdown';
import { createSqliteStore, createSqliteStructuredStores } from '@mem/store-sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { call, testServer } from './helpers.js';

const open: { close(): unknown }[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A stack over a real SQLite file (knowledge and structured stores share the connection); with `files`, Markdown
 * transcripts and notebooks as well (what the runner and the context settings need).
 */
function sqliteStack(files = false): Stack {
  const dir = mkdtempSync(join(tmpdir(), 'mem-state-'));
  dirs.push(dir);
  const knowledge = createSqliteStore({ path: join(dir, 'mem.db') });
  return createStack({
    knowledge,
    structured: createSqliteStructuredStores({ db: knowledge.db }),
    services: [episodicServices(), proceduralServices()],
    embedder: createHashingEmbedder(),
    ...(files ? createMarkdownStores({ root: join(dir, 'ws') }) : {}),
  });
}

async function setup(stack = sqliteStack()) {
  const keys = KeyStore.open(':memory:');
  const k = {
    coder: (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key,
    tester: (await keys.create({ space: 'acme', agentId: 'tester', role: 'worker' })).key,
    lead: (await keys.create({ space: 'acme', agentId: 'boss', role: 'lead' })).key,
    other: (await keys.create({ space: 'globex', agentId: 'coder', role: 'lead' })).key,
  };
  const s = await testServer({ keys, stack, requireAuth: true });
  open.push(s, keys);
  return { s, k, stack };
}

const S = '/v1/agents/coder/sessions/chat-1';

describe('goals over HTTP', () => {
  it('keeps one active goal per user and topic, lists, finishes, and refuses bad input and secrets', async () => {
    const { s, k } = await setup();
    const set = (body: object, key = k.coder) => call(s.url, 'PUT', '/v1/goals', { key, body });
    const first = await set({ user: 'ana', goal: 'Ship the billing export' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ goal: { goal: 'Ship the billing export', status: 'active' }, replaced: null });
    const second = await set({ user: 'ana', goal: 'Ship the billing export with CSV', metadata: { prio: 1 } });
    expect(second.body.replaced).toMatchObject({ id: first.body.goal.id, status: 'replaced' });
    await set({ user: 'ana', goal: 'Learn Rust', topic: 'hobby' });

    const active = await call(s.url, 'GET', '/v1/goals/active?user=ana', { key: k.lead });
    expect(active.body.goal).toMatchObject({ goal: 'Ship the billing export with CSV', metadata: { prio: 1 } });
    const hobby = await call(s.url, 'GET', '/v1/goals/active?user=ana&topic=hobby', { key: k.tester });
    expect(hobby.body.goal.goal).toBe('Learn Rust');
    const list = await call(s.url, 'GET', '/v1/goals?user=ana&limit=2', { key: k.coder });
    expect(list.body.goals.map((g: { goal: string }) => g.goal)).toEqual([
      'Learn Rust',
      'Ship the billing export with CSV',
    ]);

    const done = await call(s.url, 'POST', '/v1/goals/finish', {
      key: k.coder,
      body: { user: 'ana', status: 'completed' },
    });
    expect(done.body.goal).toMatchObject({ status: 'completed' });
    const none = await call(s.url, 'GET', '/v1/goals/active?user=ana', { key: k.coder });
    expect(none.body).toEqual({ goal: null });
    const again = await call(s.url, 'POST', '/v1/goals/finish', {
      key: k.coder,
      body: { user: 'ana', status: 'completed' },
    });
    expect([again.status, again.body.code]).toEqual([404, 'NOT_FOUND']);
    // Another space sees nothing.
    expect((await call(s.url, 'GET', '/v1/goals?user=ana', { key: k.other })).body.goals).toEqual([]);

    const before = (await call(s.url, 'GET', '/v1/goals?user=ana', { key: k.coder })).body.goals.length;
    const secret = await set({ user: 'ana', goal: 'deploy with AKIAIOSFODNN7EXAMPLE' });
    expect([secret.status, secret.body.code]).toEqual([400, 'SECRET_DETECTED']);
    const badStatus = await call(s.url, 'POST', '/v1/goals/finish', {
      key: k.coder,
      body: { user: 'ana', status: 'won' },
    });
    expect([badStatus.status, badStatus.body.code]).toEqual([400, 'INVALID_INPUT']);
    const empty = await set({ user: 'ana', goal: '   ' });
    expect([empty.status, empty.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect(empty.body.message).toContain('goal must not be empty');
    const badUser = await set({ user: '../x', goal: 'x' });
    expect([badUser.status, badUser.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect((await call(s.url, 'GET', '/v1/goals?user=ana', { key: k.coder })).body.goals.length).toBe(before);
  });
});

describe('session state over HTTP', () => {
  it('summaries version up with compare-and-set; state replaces whole; delete answers 404 the second time', async () => {
    const { s, k } = await setup();
    const save = (body: object) => call(s.url, 'PUT', `${S}/summary`, { key: k.coder, body });
    const v1 = await save({ summary: 'Asked for CSV export.', messagesCovered: 4 });
    expect(v1.body).toMatchObject({ agent: 'coder', sessionId: 'chat-1', version: 1, messagesCovered: 4 });
    const v2 = await save({ summary: 'CSV export done.', messagesCovered: 9, expectedVersion: 1 });
    expect(v2.body.version).toBe(2);
    const stale = await save({ summary: 'lost update', messagesCovered: 10, expectedVersion: 1 });
    expect([stale.status, stale.body.code]).toEqual([409, 'CONFLICT']);
    const got = await call(s.url, 'GET', `${S}/summary`, { key: k.coder });
    expect(got.body.summary).toMatchObject({ summary: 'CSV export done.', version: 2 });
    const bad = await save({ summary: 'x', messagesCovered: -1 });
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_INPUT']);
    const smuggled = await save({ summary: 'x', messagesCovered: 1, agent: 'tester' });
    expect([smuggled.status, smuggled.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect((await call(s.url, 'DELETE', `${S}/summary`, { key: k.coder })).body).toEqual({ deleted: true });
    const gone = await call(s.url, 'DELETE', `${S}/summary`, { key: k.coder });
    expect([gone.status, gone.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await call(s.url, 'GET', `${S}/summary`, { key: k.coder })).body).toEqual({ summary: null });

    const state = { plan: ['read', 'write'], step: 1 };
    const put = await call(s.url, 'PUT', `${S}/state`, { key: k.coder, body: { state } });
    expect(put.body).toMatchObject({ agent: 'coder', sessionId: 'chat-1', state });
    await call(s.url, 'PUT', `${S}/state`, { key: k.coder, body: { state: { step: 2 } } });
    expect((await call(s.url, 'GET', `${S}/state`, { key: k.coder })).body.state.state).toEqual({ step: 2 });
    const huge = await call(s.url, 'PUT', `${S}/state`, {
      key: k.coder,
      body: { state: 'x'.repeat(1_100_000) },
    });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect((await call(s.url, 'GET', `${S}/state`, { key: k.coder })).body.state.state).toEqual({ step: 2 });
    expect((await call(s.url, 'DELETE', `${S}/state`, { key: k.coder })).status).toBe(200);
    expect((await call(s.url, 'GET', `${S}/state`, { key: k.coder })).body).toEqual({ state: null });
  });

  it('phases keep their history; tool events filter and count', async () => {
    const { s, k } = await setup();
    for (const phase of ['planning', 'executing', 'review'])
      expect((await call(s.url, 'PUT', `${S}/phase`, { key: k.coder, body: { phase } })).status).toBe(200);
    expect((await call(s.url, 'GET', `${S}/phase`, { key: k.coder })).body.phase.phase).toBe('review');
    const history = await call(s.url, 'GET', `${S}/phases?limit=2`, { key: k.coder });
    expect(history.body.phases.map((p: { phase: string }) => p.phase)).toEqual(['executing', 'review']);
    const badPhase = await call(s.url, 'PUT', `${S}/phase`, { key: k.coder, body: { phase: '' } });
    expect([badPhase.status, badPhase.body.code]).toEqual([400, 'INVALID_INPUT']);

    const record = (body: object) => call(s.url, 'POST', `${S}/tool-events`, { key: k.coder, body });
    const ok = await record({
      tool: 'grep',
      input: { q: 'x' },
      output: ['a'],
      latencyMs: 12,
      at: '2026-01-01T00:00:00Z',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.event).toMatchObject({ agent: 'coder', sessionId: 'chat-1', tool: 'grep', error: null });
    await record({ tool: 'deploy', latencyMs: 900, error: 'timeout', at: '2026-01-01T00:01:00Z', id: 'ev-2' });
    await record({ tool: 'grep', latencyMs: 8, at: '2026-01-01T00:02:00Z' });
    const dup = await record({ tool: 'grep', latencyMs: 1, id: 'ev-2' });
    expect([dup.status, dup.body.code]).toEqual([409, 'CONFLICT']);
    const negative = await record({ tool: 'grep', latencyMs: -1 });
    expect([negative.status, negative.body.code]).toEqual([400, 'INVALID_INPUT']);

    const all = await call(s.url, 'GET', `${S}/tool-events`, { key: k.coder });
    expect(all.body.total).toBe(3);
    expect(all.body.events.map((e: { tool: string }) => e.tool)).toEqual(['grep', 'deploy', 'grep']);
    const failed = await call(s.url, 'GET', `${S}/tool-events?failed=true`, { key: k.coder });
    expect(failed.body.events).toEqual([expect.objectContaining({ id: 'ev-2', error: 'timeout' })]);
    const greps = await call(s.url, 'GET', `${S}/tool-events?tool=grep&limit=1`, { key: k.coder });
    expect([greps.body.total, greps.body.events.length, greps.body.events[0].latencyMs]).toEqual([2, 1, 8]);
    const since = await call(s.url, 'GET', `${S}/tool-events?since=2026-01-01T00:01:00Z`, { key: k.coder });
    expect(since.body.total).toBe(2);
    const badTime = await call(s.url, 'GET', `${S}/tool-events?since=yesterday`, { key: k.coder });
    expect([badTime.status, badTime.body.code]).toEqual([400, 'INVALID_INPUT']);
  });

  it("keeps agents' sessions apart: a worker only its own, a lead any of its space, never another space", async () => {
    const { s, k } = await setup();
    await call(s.url, 'PUT', `${S}/state`, { key: k.coder, body: { state: 'coder-state' } });
    // Same session id, other agent: a separate session.
    await call(s.url, 'PUT', '/v1/agents/tester/sessions/chat-1/state', { key: k.tester, body: { state: 'tester' } });
    expect((await call(s.url, 'GET', `${S}/state`, { key: k.coder })).body.state.state).toBe('coder-state');

    const peek = await call(s.url, 'GET', `${S}/state`, { key: k.tester });
    expect([peek.status, peek.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(peek.body.message).toContain('a worker may open only its own');
    const write = await call(s.url, 'PUT', `${S}/phase`, { key: k.tester, body: { phase: 'hijack' } });
    expect(write.status).toBe(404);
    expect((await call(s.url, 'GET', `${S}/phase`, { key: k.coder })).body.phase).toBeNull();

    const lead = await call(s.url, 'GET', `${S}/state`, { key: k.lead });
    expect(lead.body.state).toMatchObject({ agent: 'coder', state: 'coder-state' });
    expect((await call(s.url, 'GET', `${S}/state`, { key: k.other })).body).toEqual({ state: null });
    const badAgent = await call(s.url, 'GET', '/v1/agents/..%2Fx/sessions/chat-1/state', { key: k.lead });
    expect(badAgent.status).toBeGreaterThanOrEqual(400);
  });

  it('answers CAPABILITY_MISSING (501) on a stack without structured stores', async () => {
    const { s, k } = await setup(
      createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: createHashingEmbedder() }),
    );
    const r = await call(s.url, 'GET', `${S}/summary`, { key: k.coder });
    expect([r.status, r.body.code]).toEqual([501, 'CAPABILITY_MISSING']);
    const g = await call(s.url, 'GET', '/v1/goals?user=ana', { key: k.coder });
    expect([g.status, g.body.code]).toEqual([501, 'CAPABILITY_MISSING']);
  });
});

describe('session state over MCP (streamable HTTP)', () => {
  it('the tools act on the caller agent; a lead names another; the output matches the declared schema', async () => {
    const { s, k } = await setup();
    const connect = async (key: string) => {
      const client = new Client({ name: 'mem-test-state', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(s.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      open.push(client);
      return client;
    };
    type Result = { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
    const coder = await connect(k.coder);
    const { tools } = await coder.listTools();
    for (const name of [
      'goal-set',
      'goal-get',
      'goal-list',
      'goal-finish',
      'summary-save',
      'summary-get',
      'summary-delete',
      'session-state-set',
      'session-state-get',
      'session-state-delete',
      'phase-set',
      'phase-get',
      'phase-history',
      'tool-event-record',
      'tool-event-list',
    ]) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.outputSchema, name).toBeDefined();
    }
    const phase = (await coder.callTool({
      name: 'phase-set',
      arguments: { sessionId: 'task-7', phase: 'planning' },
    })) as Result;
    expect(phase.isError).toBeFalsy();
    expect(phase.structuredContent.phase).toMatchObject({ agent: 'coder', sessionId: 'task-7', phase: 'planning' });
    const goal = (await coder.callTool({
      name: 'goal-set',
      arguments: { user: 'ana', goal: 'Tidy the docs' },
    })) as Result;
    expect(goal.structuredContent.goal.status).toBe('active');

    const denied = (await coder.callTool({
      name: 'phase-get',
      arguments: { agent: 'tester', sessionId: 'task-7' },
    })) as Result;
    expect(denied.isError).toBe(true);
    expect(denied.content[0]!.text).toMatch(/^NOT_FOUND: /);

    const lead = await connect(k.lead);
    const seen = (await lead.callTool({
      name: 'phase-get',
      arguments: { agent: 'coder', sessionId: 'task-7' },
    })) as Result;
    expect(seen.structuredContent.phase).toMatchObject({ agent: 'coder', phase: 'planning' });
    // The same session over HTTP.
    const viaHttp = await call(s.url, 'GET', '/v1/agents/coder/sessions/task-7/phase', { key: k.coder });
    expect(viaHttp.body.phase.phase).toBe('planning');
  });
});

describe('forget removes the session state of an agent', () => {
  it("deletes A's summaries, states, phases, tool events, settings and open tasks; B keeps all of its own", async () => {
    const { s, k } = await setup(sqliteStack(true));
    type Result = { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
    const sessions = { coder: ['chat-1', 'chat-2'], tester: ['chat-1'] } as const;
    const keyOf = { coder: k.coder, tester: k.tester };
    for (const agent of ['coder', 'tester'] as const) {
      const key = keyOf[agent];
      for (const session of sessions[agent]) {
        const base = `/v1/agents/${agent}/sessions/${session}`;
        const writes = [
          await call(s.url, 'PUT', `${base}/summary`, {
            key,
            body: { summary: `${agent} summary`, messagesCovered: 4 },
          }),
          await call(s.url, 'PUT', `${base}/state`, { key, body: { state: { owner: agent } } }),
          await call(s.url, 'PUT', `${base}/phase`, { key, body: { phase: 'planning' } }),
          await call(s.url, 'PUT', `${base}/phase`, { key, body: { phase: 'execution' } }),
          await call(s.url, 'POST', `${base}/tool-events`, { key, body: { tool: 'grep', latencyMs: 3 } }),
        ];
        for (const w of writes) expect(w.status, JSON.stringify(w.body)).toBeLessThan(300);
      }
      // Coder stores the default settings, so its server-side runner stays the same after forget (the key of a
      // runner includes the settings): forget must drop it, or its open task's text would survive in memory.
      const defaults = (await call(s.url, 'GET', `/v1/agents/${agent}/conversation/settings`, { key })).body.settings;
      const settings = await call(s.url, 'PUT', `/v1/agents/${agent}/conversation/settings`, {
        key,
        body: agent === 'coder' ? defaults : { contextLength: 8000 },
      });
      expect(settings.status, JSON.stringify(settings.body)).toBe(200);
      const turn = await call(s.url, 'POST', `/v1/agents/${agent}/turns`, {
        key,
        body: { task: `release for ${agent}`, taskId: `T-${agent}`, messages: [{ role: 'user', content: 'go' }] },
      });
      expect(turn.status, JSON.stringify(turn.body)).toBe(200);
      // The runner distils in the background; one distillation here, so that the cursor row surely exists.
      expect((await call(s.url, 'POST', '/v1/distill', { key, body: {} })).status).toBe(200);
    }

    const client = new Client({ name: 'mem-test-forget', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${k.lead}` } },
      }),
    );
    open.push(client);
    // The MCP client checks the answer against the tool's declared output schema.
    const forgot = (await client.callTool({ name: 'forget', arguments: { agentId: 'coder' } })) as Result;
    expect(forgot.isError, forgot.content[0]?.text).toBeFalsy();
    // Two sessions: 2 summaries, 2 states + context settings + open tasks + distill cursor, 2 × 2 phase changes, 2
    // tool events.
    expect(forgot.structuredContent.removed.sessions).toEqual({ summaries: 2, states: 5, phases: 4, toolEvents: 2 });

    const read = (agent: string, session: string, what: string) =>
      call(s.url, 'GET', `/v1/agents/${agent}/sessions/${session}/${what}`, { key: k.lead });
    for (const session of sessions.coder) {
      expect((await read('coder', session, 'summary')).body).toEqual({ summary: null });
      expect((await read('coder', session, 'state')).body).toEqual({ state: null });
      expect((await read('coder', session, 'phases')).body.phases).toEqual([]);
      expect((await read('coder', session, 'tool-events')).body.total).toBe(0);
    }
    const coderSettings = await call(s.url, 'GET', '/v1/agents/coder/conversation/settings', { key: k.lead });
    expect(coderSettings.body.stored).toEqual({});
    // Ending coder's task finds no open task text any more.
    const ended = await call(s.url, 'POST', '/v1/agents/coder/tasks/end', {
      key: k.coder,
      body: { taskId: 'T-coder', summary: 'done' },
    });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    expect(ended.body.stored.name).toBe('Task T-coder: done');

    expect((await read('tester', 'chat-1', 'summary')).body.summary).toMatchObject({ summary: 'tester summary' });
    expect((await read('tester', 'chat-1', 'state')).body.state.state).toEqual({ owner: 'tester' });
    expect((await read('tester', 'chat-1', 'phases')).body.phases).toHaveLength(2);
    expect((await read('tester', 'chat-1', 'tool-events')).body.total).toBe(1);
    const testerSettings = await call(s.url, 'GET', '/v1/agents/tester/conversation/settings', { key: k.lead });
    expect(testerSettings.body.stored).toEqual({ contextLength: 8000 });

    // Over HTTP the report has the same shape; nothing is left to remove.
    const again = await call(s.url, 'POST', '/v1/forget', { key: k.lead, body: { agentId: 'coder' } });
    expect(again.body.removed.sessions).toEqual({ summaries: 0, states: 0, phases: 0, toolEvents: 0 });
  });
});
