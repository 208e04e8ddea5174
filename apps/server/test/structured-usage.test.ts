/**
 * Episodes and procedures over HTTP and MCP report the tokens the embedder spent (SQLite stores, a real server on
 * 127.0.0.1): an embedder with embedWithUsage shows its tokens, the hashing embedder shows zero.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack } from '@mem/core';
import { type Embedder, episodeSearchText, procedureSearchText } from '@mem/core/adapter';
import { episodicServices } from '@mem/episodic';
import { proceduralServices } from '@mem/procedural';
import { createSqliteStore, createSqliteStructuredStores } from '@mem/store-sqlite';
import { tokenEmbedder, wordTokens } from '@mem/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, testServer } from './helpers.js';

const open: { close(): unknown }[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function serve(embedder: Embedder) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-structured-usage-'));
  dirs.push(dir);
  const knowledge = createSqliteStore({ path: join(dir, 'mem.db') });
  const stack = createStack({
    knowledge,
    structured: createSqliteStructuredStores({ db: knowledge.db }),
    services: [episodicServices(), proceduralServices()],
    embedder,
  });
  const s = await testServer({ stack });
  open.push(s);
  return s;
}

const tokens = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });
const procedure = {
  name: 'deploy api',
  description: 'Deploy the api service to production',
  trigger: 'user asks to ship the api',
  steps: [{ toolName: 'deploy', argsTemplate: { env: 'prod' } }],
};

describe('episode and procedure usage over HTTP', () => {
  it('an embedder that reports usage: store, recall and suggest show its tokens', async () => {
    const s = await serve(tokenEmbedder());
    const stored = await call(s.url, 'POST', '/v1/episodes', {
      body: { summary: 'Rolled back the friday release', outcome: 'success', tags: ['deploy'] },
    });
    expect(stored.status, stored.text).toBe(201);
    const { usage: storeUsage, ...episode } = stored.body;
    expect(storeUsage).toEqual(tokens(wordTokens([episodeSearchText(episode)])));
    expect(storeUsage.totalTokens).toBeGreaterThan(0);

    const recalled = await call(s.url, 'POST', '/v1/episodes/recall', { body: { query: 'roll back the release' } });
    expect(recalled.status, recalled.text).toBe(200);
    expect(recalled.body.usage).toEqual(tokens(4));
    expect(recalled.body.results[0].episode.id).toBe(episode.id);

    const added = await call(s.url, 'POST', '/v1/procedures', { body: procedure });
    expect(added.status, added.text).toBe(201);
    const { usage: procUsage, ...stored2 } = added.body;
    expect(procUsage).toEqual(tokens(wordTokens([procedureSearchText(stored2)])));
    const suggested = await call(s.url, 'POST', '/v1/procedures/suggest', { body: { query: 'ship the api' } });
    expect(suggested.status, suggested.text).toBe(200);
    expect(suggested.body.usage).toEqual(tokens(3));
    expect(suggested.body.results[0].procedure.id).toBe(stored2.id);

    // Bad input is refused with a stable code and spends nothing.
    const bad = await call(s.url, 'POST', '/v1/episodes/recall', { body: { query: 'x', topK: 0 } });
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect(bad.body.usage).toBeUndefined();
  });

  it('the hashing embedder reports zero', async () => {
    const s = await serve(createHashingEmbedder());
    const stored = await call(s.url, 'POST', '/v1/episodes', { body: { summary: 'Deployed the api' } });
    expect(stored.body.usage).toEqual(tokens(0));
    expect((await call(s.url, 'POST', '/v1/episodes/recall', { body: { query: 'deploy' } })).body.usage).toEqual(
      tokens(0),
    );
    expect((await call(s.url, 'POST', '/v1/procedures', { body: procedure })).body.usage).toEqual(tokens(0));
    expect((await call(s.url, 'POST', '/v1/procedures/suggest', { body: { query: 'deploy' } })).body.usage).toEqual(
      tokens(0),
    );
  });

  it('MCP: the tool results carry usage and pass their declared output schemas', async () => {
    const s = await serve(tokenEmbedder());
    const client = new Client({ name: 'mem-test-structured-usage', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.mcpUrl)));
    open.push(client);
    type Result = { isError?: boolean; structuredContent?: any; content: { text?: string }[] };
    const tool = async (name: string, args: object) => {
      const r = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as Result;
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      return r.structuredContent;
    };
    expect((await tool('episode-store', { summary: 'Rotated the staging keys' })).usage.totalTokens).toBeGreaterThan(0);
    expect((await tool('episode-recall', { query: 'staging keys' })).usage).toEqual(tokens(2));
    expect((await tool('procedure-store', procedure)).usage.totalTokens).toBeGreaterThan(0);
    expect((await tool('procedure-suggest', { query: 'ship api' })).usage).toEqual(tokens(2));
  });
});
