import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, type Stack } from '@mem/core';
import type { Logger } from '@mem/core/adapter';
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

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-ctx-'));
  dirs.push(dir);
  return dir;
}

/** SQLite file + Markdown transcripts in `dir`: a second call over the same folder is a restarted server. */
function fileStack(dir: string, logger?: Logger): Stack {
  const knowledge = createSqliteStore({ path: join(dir, 'mem.db') });
  const { transcripts, notebooks } = createMarkdownStores({ root: join(dir, 'ws') });
  return createStack({
    knowledge,
    structured: createSqliteStructuredStores({ db: knowledge.db }),
    services: [episodicServices(), proceduralServices()],
    embedder: createHashingEmbedder(),
    transcripts,
    notebooks,
    ...(logger ? { logger } : {}),
  });
}

async function setup(dir = tempDir(), logger?: Logger) {
  const keys = KeyStore.open(join(dir, 'keys.db'));
  const k = {
    coder: (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key,
    tester: (await keys.create({ space: 'acme', agentId: 'tester', role: 'worker' })).key,
    lead: (await keys.create({ space: 'acme', agentId: 'boss', role: 'lead' })).key,
  };
  const s = await testServer({ keys, stack: fileStack(dir, logger), requireAuth: true });
  open.push(s, keys);
  return { s, k, dir };
}

const SETTINGS = '/v1/agents/coder/conversation/settings';

describe('per-agent context settings over HTTP', () => {
  it('are stored per agent, used by later calls, survive a restart, and refuse bad values', async () => {
    const dir = tempDir();
    const { s, k } = await setup(dir);
    const initial = await call(s.url, 'GET', SETTINGS, { key: k.coder });
    expect(initial.body).toEqual({
      agent: 'coder',
      settings: { contextLength: 128_000, threshold: 0.9, strategy: 'summarize' },
      stored: {},
    });
    const set = await call(s.url, 'PUT', SETTINGS, {
      key: k.coder,
      body: { contextLength: 300, threshold: 0.5, strategy: 'sliding-window' },
    });
    expect(set.status).toBe(200);
    expect(set.body.settings).toEqual({ contextLength: 300, threshold: 0.5, strategy: 'sliding-window' });
    // One field at a time: the others stay.
    const partial = await call(s.url, 'PUT', SETTINGS, { key: k.coder, body: { threshold: 0.6 } });
    expect(partial.body.stored).toEqual({ contextLength: 300, threshold: 0.6, strategy: 'sliding-window' });

    for (const [body, phrase] of [
      [{ threshold: 1.5 }, 'threshold must be at most 1'],
      [{ threshold: 0 }, 'threshold must be above 0'],
      [{ contextLength: 10 }, 'contextLength must be at least 256'],
      [{ contextLength: 1000.5 }, 'whole number'],
      [{ strategy: 'forget-everything' }, 'strategy must be one of summarize, sliding-window, drop-tool-results'],
      [{ window: 4096 }, 'window'],
    ] as const) {
      const bad = await call(s.url, 'PUT', SETTINGS, { key: k.coder, body });
      expect([bad.status, bad.body.code], JSON.stringify(body)).toEqual([400, 'INVALID_INPUT']);
      expect(bad.body.message).toContain(phrase);
    }
    expect((await call(s.url, 'GET', SETTINGS, { key: k.coder })).body.stored).toEqual({
      contextLength: 300,
      threshold: 0.6,
      strategy: 'sliding-window',
    });

    // Other agents keep the defaults; a worker cannot touch another agent's settings; a lead can.
    const tester = await call(s.url, 'GET', '/v1/agents/tester/conversation/settings', { key: k.tester });
    expect(tester.body.settings.contextLength).toBe(128_000);
    const denied = await call(s.url, 'PUT', SETTINGS, { key: k.tester, body: { contextLength: 999 } });
    expect([denied.status, denied.body.code]).toEqual([404, 'NOT_FOUND']);
    const byLead = await call(s.url, 'GET', SETTINGS, { key: k.lead });
    expect(byLead.body.settings.contextLength).toBe(300);

    // Later calls use them: compaction without a summary runs the agent's strategy.
    for (let i = 0; i < 12; i++) {
      const added = await call(s.url, 'POST', '/v1/agents/coder/conversation/messages', {
        key: k.coder,
        body: { role: i % 2 ? 'assistant' : 'user', content: `Message ${i} about the billing export and its CSV.` },
      });
      expect(added.status).toBe(201);
    }
    const compacted = await call(s.url, 'POST', '/v1/agents/coder/conversation/compact', { key: k.coder, body: {} });
    expect(compacted.body).toMatchObject({ status: 'compacted', strategy: 'sliding-window' });
    expect(compacted.body.tokensAfter).toBeLessThan(compacted.body.tokensBefore);

    // A restarted server over the same files uses the stored settings.
    await s.close();
    open.splice(open.indexOf(s), 1);
    const again = await setup(dir);
    const after = await call(again.s.url, 'GET', SETTINGS, { key: again.k.coder });
    expect(after.body.settings).toEqual({ contextLength: 300, threshold: 0.6, strategy: 'sliding-window' });
  });

  it('over MCP: the caller sets its own settings, with the output schema declared', async () => {
    const { s, k } = await setup();
    const client = new Client({ name: 'mem-test-ctx', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${k.coder}` } },
      }),
    );
    open.push(client);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'conversation-settings-set')?.outputSchema).toBeDefined();
    type Result = { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
    const set = (await client.callTool({
      name: 'conversation-settings-set',
      arguments: { contextLength: 8192, strategy: 'drop-tool-results' },
    })) as Result;
    expect(set.isError).toBeFalsy();
    expect(set.structuredContent).toMatchObject({
      agent: 'coder',
      settings: { contextLength: 8192, threshold: 0.9, strategy: 'drop-tool-results' },
    });
    const bad = (await client.callTool({ name: 'conversation-settings-set', arguments: { threshold: 7 } })) as Result;
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/^INVALID_INPUT: .*threshold must be at most 1/);
    const other = (await client.callTool({
      name: 'conversation-settings-get',
      arguments: { agent: 'tester' },
    })) as Result;
    expect(other.isError).toBe(true);
    expect((await call(s.url, 'GET', SETTINGS, { key: k.coder })).body.stored).toEqual({
      contextLength: 8192,
      strategy: 'drop-tool-results',
    });
  });
});

describe('intent on memory-search and taskId on task-context', () => {
  it('records the intent (result and log), echoes the taskId, and refuses bad or secret values', async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger: Logger = {
      info: (message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
      warn: () => {},
      error: () => {},
    };
    const { s, k } = await setup(tempDir(), logger);
    await call(s.url, 'POST', '/v1/memories', {
      key: k.coder,
      body: { content: 'The billing export runs nightly at 02:00 UTC.' },
    });
    const search = await call(s.url, 'POST', '/v1/memories/search', {
      key: k.coder,
      body: { query: 'billing export', intent: 'dedup before store' },
    });
    expect(search.status).toBe(200);
    expect(search.body.intent).toBe('dedup before store');
    expect(search.body.results[0].content).toContain('nightly');
    expect(lines).toContainEqual({
      message: 'memory-search',
      fields: { space: 'acme', agentId: 'coder', intent: 'dedup before store' },
    });
    const plain = await call(s.url, 'POST', '/v1/memories/search', { key: k.coder, body: { query: 'billing' } });
    expect(plain.body.intent).toBeNull();

    const logged = lines.length;
    for (const [intent, code] of [
      ['x'.repeat(201), 'INVALID_INPUT'],
      ['   ', 'INVALID_INPUT'],
      ['check AKIAIOSFODNN7EXAMPLE', 'SECRET_DETECTED'],
    ] as const) {
      const r = await call(s.url, 'POST', '/v1/memories/search', { key: k.coder, body: { query: 'billing', intent } });
      expect([r.status, r.body.code]).toEqual([400, code]);
    }
    expect(lines.length).toBe(logged);

    const task = await call(s.url, 'POST', '/v1/task-context', {
      key: k.coder,
      body: { task: 'Fix the billing export', taskId: 'task-42' },
    });
    expect(task.status).toBe(200);
    expect(task.body.taskId).toBe('task-42');
    expect(task.body.memories.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatchObject({ message: 'task-context', fields: { taskId: 'task-42', agentId: 'coder' } });
    // The echoed taskId is the one memory-rate takes.
    const rated = await call(s.url, 'POST', `/v1/memories/${task.body.memories[0].id}/ratings`, {
      key: k.coder,
      body: { useful: true, taskId: task.body.taskId },
    });
    expect(rated.status).toBeLessThan(300);
    const noId = await call(s.url, 'POST', '/v1/task-context', { key: k.coder, body: { task: 'x' } });
    expect(noId.body.taskId).toBeNull();
    const badId = await call(s.url, 'POST', '/v1/task-context', { key: k.coder, body: { task: 'x', taskId: '' } });
    expect([badId.status, badId.body.code]).toEqual([400, 'INVALID_INPUT']);
  });
});
