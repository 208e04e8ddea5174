/** The runner over HTTP and MCP: a non-JS agent gets the turn context, the task memory and the session summary. */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack } from '@mem/core';
import type { Embedder } from '@mem/core/adapter';
import { episodicServices } from '@mem/episodic';
import { proceduralServices } from '@mem/procedural';
import { createMarkdownStores } from '@mem/store-markdown';
import { createSqliteStore, createSqliteStructuredStores } from '@mem/store-sqlite';
import { tokenEmbedder } from '@mem/testkit';
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

async function setup(embedder: Embedder = createHashingEmbedder()) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-runner-doors-'));
  dirs.push(dir);
  const knowledge = createSqliteStore({ path: join(dir, 'mem.db') });
  const { transcripts, notebooks } = createMarkdownStores({ root: join(dir, 'ws') });
  const stack = createStack({
    knowledge,
    structured: createSqliteStructuredStores({ db: knowledge.db }),
    services: [episodicServices(), proceduralServices()],
    embedder,
    transcripts,
    notebooks,
  });
  const keys = KeyStore.open(join(dir, 'keys.db'));
  const k = {
    coder: (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key,
    tester: (await keys.create({ space: 'acme', agentId: 'tester', role: 'worker' })).key,
    lead: (await keys.create({ space: 'acme', agentId: 'boss', role: 'lead' })).key,
  };
  const s = await testServer({ keys, stack, requireAuth: true });
  open.push(s, keys);
  return { s, k };
}

type Turn = { messages: { role: string; content: string }[]; report: { recalled: { id: string }[]; written: number } };

describe('the runner over HTTP', () => {
  it('assembles a turn with the transcript and the recalled task memory, records the answer, ends the task', async () => {
    const { s, k } = await setup();
    const first = await call(s.url, 'POST', '/v1/agents/coder/turns', {
      key: k.coder,
      body: {
        systemPrompt: 'You are a release engineer.',
        task: 'deploy billing to staging',
        taskId: 'T-1',
        messages: [{ role: 'user', content: 'Deploy billing to staging, please.' }],
      },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const turn = first.body as Turn;
    expect(turn.messages[0]).toEqual({ role: 'system', content: expect.stringContaining('release engineer') });
    expect(turn.messages.some((m) => m.content.includes('Deploy billing to staging, please.'))).toBe(true);
    expect(turn.report.written).toBe(1);

    const recorded = await call(s.url, 'POST', '/v1/agents/coder/turns/record', {
      key: k.coder,
      body: { messages: [{ role: 'assistant', content: 'Deployed billing 2.3 to staging.' }] },
    });
    expect(recorded.body).toEqual({ written: 1 });

    const ended = await call(s.url, 'POST', '/v1/agents/coder/tasks/end', {
      key: k.coder,
      body: { taskId: 'T-1', summary: 'Billing deploys to staging need the STAGING_ONLY feature flag set first.' },
    });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    const stored = (ended.body as { stored: { id: string } }).stored;
    expect(stored.id).toBeTruthy();

    // The next task recalls the task memory, and the transcript holds the whole first turn.
    const next = (
      await call(s.url, 'POST', '/v1/agents/coder/turns', {
        key: k.coder,
        body: {
          task: 'deploy billing to staging again',
          taskId: 'T-2',
          messages: [{ role: 'user', content: 'Again?' }],
        },
      })
    ).body as Turn;
    expect(next.report.recalled.map((r) => r.id)).toContain(stored.id);
    const all = next.messages.map((m) => m.content).join('\n');
    expect(all).toContain('STAGING_ONLY');
    expect(all).toContain('Deployed billing 2.3 to staging.');

    const automatic = await call(s.url, 'POST', '/v1/agents/coder/tasks/end', {
      key: k.coder,
      body: { taskId: 'T-3', summary: 'Heartbeat: all green.', automatic: true },
    });
    expect(automatic.body).toMatchObject({ stored: null, skipped: expect.any(String) });

    const session = await call(s.url, 'POST', '/v1/agents/coder/session/end', { key: k.coder, body: {} });
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    expect((session.body as { stored: { id: string } | null }).stored?.id).toBeTruthy();
  });

  it('refuses bad input with a clear code and writes nothing; a worker cannot act for another agent', async () => {
    const { s, k } = await setup();
    const bad = await call(s.url, 'POST', '/v1/agents/coder/turns', {
      key: k.coder,
      body: { messages: [{ role: 'wizard', content: 'x' }] },
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { code: string }).code).toBe('INVALID_INPUT');
    const noSummary = await call(s.url, 'POST', '/v1/agents/coder/tasks/end', {
      key: k.coder,
      body: { taskId: 'T-9' },
    });
    expect(noSummary.status).toBe(400);
    const other = await call(s.url, 'POST', '/v1/agents/tester/turns', {
      key: k.coder,
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(other.status).toBe(404);
    const lead = await call(s.url, 'POST', '/v1/agents/tester/turns', {
      key: k.lead,
      body: { messages: [{ role: 'user', content: 'A lead speaks for the tester.' }] },
    });
    expect(lead.status).toBe(200);
    const transcript = await call(s.url, 'GET', '/v1/agents/coder/conversation', { key: k.coder });
    expect(JSON.stringify(transcript.body)).not.toContain('wizard');
  });
});

describe('the runner over MCP', () => {
  it('offers turn-context, turn-record, task-end and session-end with output schemas', async () => {
    const { s, k } = await setup();
    const client = new Client({ name: 'mem-test-runner', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${k.coder}` } },
      }),
    );
    open.push(client);
    const { tools } = await client.listTools();
    for (const name of ['turn-context', 'turn-record', 'task-end', 'session-end'])
      expect(tools.find((t) => t.name === name)?.outputSchema, name).toBeDefined();
    type Result = { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
    const turn = (await client.callTool({
      name: 'turn-context',
      arguments: {
        task: 'rotate the TLS certificates',
        taskId: 'T-7',
        messages: [{ role: 'user', content: 'Rotate them.' }],
      },
    })) as Result;
    expect(turn.isError, turn.content[0]?.text).toBeFalsy();
    expect(turn.structuredContent.report.written).toBe(1);
    const end = (await client.callTool({
      name: 'task-end',
      arguments: { taskId: 'T-7', summary: 'Rotated the TLS certificates with certbot renew; nginx reloaded.' },
    })) as Result;
    expect(end.isError, end.content[0]?.text).toBeFalsy();
    expect(end.structuredContent.stored.id).toBeTruthy();
    const bad = (await client.callTool({ name: 'task-end', arguments: { summary: 'no task id' } })) as Result;
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/^INVALID_INPUT/);
  });
});

describe('the tokens spent show in the JSON of the doors', () => {
  const tokens = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });

  it('HTTP: store, search, recall, turn report, task end and session end', async () => {
    const { s, k } = await setup(tokenEmbedder());
    const stored = await call(s.url, 'POST', '/v1/memories', {
      key: k.coder,
      body: { content: 'Billing deploys need the migration flag' },
    });
    expect(stored.status).toBe(201);
    expect(stored.body.usage).toEqual(tokens(6));
    const found = await call(s.url, 'POST', '/v1/memories/search', {
      key: k.coder,
      body: { query: 'billing deploys' },
    });
    expect(found.body.usage).toEqual(tokens(2));
    // The first call that needs the embedder's calibrated scale also embeds the calibration pairs (once per stack).
    const first = await call(s.url, 'POST', '/v1/recall', { key: k.coder, body: { task: 'deploy billing today' } });
    expect(first.body.usage.inputTokens).toBeGreaterThan(3 + 500);
    const recall = await call(s.url, 'POST', '/v1/recall', { key: k.coder, body: { task: 'deploy billing today' } });
    expect(recall.body.usage).toEqual(tokens(3));
    const smart = await call(s.url, 'POST', '/v1/smart-recall', {
      key: k.coder,
      body: { queries: ['billing deploys', 'staging database reset'] },
    });
    expect(smart.body.usage).toEqual(tokens(5)); // 2 + 3 words, one embedding per query

    const turn = await call(s.url, 'POST', '/v1/agents/coder/turns', {
      key: k.coder,
      body: { task: 'deploy billing to staging', taskId: 'T-9', messages: [{ role: 'user', content: 'Go.' }] },
    });
    expect(turn.body.report.spent).toEqual([{ operation: 'recall-embedding', by: 'api-like', usage: tokens(4) }]);
    expect(turn.body.report.usage).toEqual(tokens(4));
    const ended = await call(s.url, 'POST', '/v1/agents/coder/tasks/end', {
      key: k.coder,
      body: { taskId: 'T-9', summary: 'Deployed with the flag.' },
    });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    // "Task T-9: deploy billing to staging" + "Deployed with the flag." = 6 + 4 words.
    expect(ended.body.spent).toEqual([{ operation: 'memory-embedding', by: 'api-like', usage: tokens(10) }]);
    expect(ended.body.stored.usage).toEqual(tokens(10));
    const session = await call(s.url, 'POST', '/v1/agents/coder/session/end', {
      key: k.coder,
      body: { summary: 'Billing is on staging.' },
    });
    expect(session.body.usage).toEqual(tokens(4));
  });

  it('MCP: the tool results carry usage and pass their declared output schemas', async () => {
    const { s, k } = await setup(tokenEmbedder());
    const client = new Client({ name: 'mem-test-usage', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${k.coder}` } },
      }),
    );
    open.push(client);
    type Result = { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
    const stored = (await client.callTool({
      name: 'memory-store',
      arguments: { content: 'The staging database is read only on Sundays' },
    })) as Result;
    expect(stored.isError, stored.content[0]?.text).toBeFalsy();
    expect(stored.structuredContent.usage).toEqual(tokens(8));
    const turn = (await client.callTool({
      name: 'turn-context',
      arguments: { task: 'staging database', taskId: 'T-1' },
    })) as Result;
    expect(turn.isError, turn.content[0]?.text).toBeFalsy();
    // The first recall of the stack includes the calibration pairs' embedding; the next pays for its query only.
    expect(turn.structuredContent.report.usage.inputTokens).toBeGreaterThan(2 + 500);
    const again = (await client.callTool({
      name: 'turn-context',
      arguments: { task: 'staging database', taskId: 'T-1' },
    })) as Result;
    expect(again.isError, again.content[0]?.text).toBeFalsy();
    expect(again.structuredContent.report.usage).toEqual(tokens(2));
    const end = (await client.callTool({
      name: 'task-end',
      arguments: { taskId: 'T-1', summary: 'Checked it.' },
    })) as Result;
    expect(end.isError, end.content[0]?.text).toBeFalsy();
    expect(end.structuredContent.usage.totalTokens).toBeGreaterThan(0);
  });
});
