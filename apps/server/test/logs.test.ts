/**
 * Issue 9 §8: logs never contain memory content or keys at info level. The server runs with its production logger
 * (`jsonLogger`, level info) writing into a buffer, real API keys, and every kind of content — memories, searches,
 * notebooks, transcripts, facts, MCP tool calls, refused and malformed requests — carries a marker; neither the
 * marker nor any key (nor a secret pasted into a refused write) may appear in a log line.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
} from '@mem/core';
import { episodicServices } from '@mem/episodic';
import { proceduralServices } from '@mem/procedural';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { jsonLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { call, until } from './helpers.js';

const MARKER = 'plumtree-zephyr-4711';
const SECRET = `ghp_${'Zq9Xw8Vu7Ts6Rp5On4Ml3Kj2Ih1Gf0Ed9CbA'}`;

const dir = mkdtempSync(join(tmpdir(), 'mem-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('server logs at info level (issue 9 §8)', () => {
  it('never contain memory content, keys, or a refused secret', async () => {
    const lines: string[] = [];
    const keys = KeyStore.open(join(dir, 'logs.keys.db'));
    const lead = await keys.create({ space: 'acme', agentId: 'lead-1', role: 'lead' });
    const worker = await keys.create({ space: 'acme', agentId: 'alice', role: 'worker' });
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      embedder: createHashingEmbedder(),
      structured: createInMemoryStructuredStores(),
      services: [episodicServices(), proceduralServices()],
      transcripts: createInMemoryTranscriptStore(),
      notebooks: createInMemoryNotebookStore(),
    });
    const server = await startServer({
      stack,
      keys,
      port: 0,
      defaultPrincipal: { space: 'acme', agentId: 'alice', role: 'worker' },
      rateLimit: false,
      closeStack: true,
      logger: jsonLogger({ level: 'info', write: (line) => lines.push(line) }),
    });
    const key = worker.key;
    const expected: [string, number][] = [];
    const send = async (method: string, path: string, body?: unknown, k: string = key) => {
      const r = await call(server.url, method, path, { ...(body !== undefined ? { body } : {}), key: k });
      expected.push([path, r.status]);
      return r;
    };
    try {
      const stored = await send('POST', '/v1/memories', {
        content: `Alice keeps the ${MARKER} checklist.`,
        name: `${MARKER} checklist`,
        key: `/notes/${MARKER}`,
        tags: [MARKER],
      });
      expect(stored.status).toBe(201);
      expect((await send('POST', '/v1/memories/search', { query: MARKER, keyPrefix: '/notes/' })).status).toBe(200);
      expect((await send('GET', `/v1/memories/${stored.body.id}`)).body.content).toContain(MARKER);
      expect(
        (await send('PATCH', `/v1/memories/${stored.body.id}`, { intent: `fix ${MARKER}`, content: `New ${MARKER}.` }))
          .status,
      ).toBe(200);
      expect((await send('POST', '/v1/agents/alice/notebook', { content: `- ${MARKER} note` })).status).toBe(201);
      expect(
        (await send('POST', '/v1/agents/alice/conversation/messages', { role: 'user', content: `Hi ${MARKER}` }))
          .status,
      ).toBe(201);
      expect((await send('PUT', '/v1/facts', { user: 'ada', key: 'drink', value: MARKER })).status).toBe(200);
      // Refused and malformed requests echo nothing into the log either.
      const refused = await send('POST', '/v1/memories', { content: `token ${SECRET} for ${MARKER}` });
      expect([refused.status, refused.body.code]).toEqual([400, 'SECRET_DETECTED']);
      expect((await send('POST', '/v1/memories', { content: MARKER, bogus: MARKER })).status).toBe(400);
      expect((await send('GET', `/v1/memories/${MARKER}`)).status).toBe(404);
      expect((await send('GET', `/v1/${MARKER}/x`)).status).toBe(404);
      expect((await send('POST', '/v1/memories', { content: MARKER }, `mem_${MARKER}_nottherealsecret`)).status).toBe(
        401,
      );
      // A lead's forget carries the subject only.
      expect((await send('POST', '/v1/forget', { userId: 'ada' }, lead.key)).status).toBe(200);

      // MCP over streamable HTTP with the same key.
      const client = new Client({ name: 'logs-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      try {
        const r = await client.callTool({ name: 'memory-store', arguments: { content: `MCP ${MARKER} note.` } });
        expect(r.isError ?? false).toBe(false);
        await client.callTool({ name: 'memory-search', arguments: { query: MARKER } });
        await client.callTool({ name: 'memory-store', arguments: { content: `MCP ${SECRET}` } });
        await client.callTool({ name: `tool-${MARKER}`, arguments: { content: MARKER } }).catch(() => undefined);
      } finally {
        await client.close();
      }

      // Every HTTP request above is logged once (the line is written when the response closes).
      await until(() =>
        lines.filter((l) => JSON.parse(l).msg === 'request').length >= expected.length ? true : undefined,
      );
    } finally {
      await server.close();
      keys.close();
    }

    const log = lines.join('');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // The capture works: one request line per call, with status and principal, at info level.
    for (const [, status] of expected) {
      expect(parsed.some((p) => p.msg === 'request' && p.status === status)).toBe(true);
    }
    expect(parsed.some((p) => p.msg === 'request' && p.principal === 'acme/alice' && p.status === 201)).toBe(true);
    expect(parsed.some((p) => p.msg === 'request' && p.path === '/mcp' && p.tool === 'memory-store')).toBe(true);
    expect(parsed.some((p) => p.msg === 'request' && p.path === '/mcp' && p.tool === '(unknown)')).toBe(true);
    // Paths are route templates, never the raw URL.
    expect(parsed.some((p) => p.msg === 'request' && p.path === '/v1/memories/{id}' && p.status === 404)).toBe(true);
    expect(parsed.some((p) => p.msg === 'request' && p.path === '(unmatched)' && p.status === 404)).toBe(true);
    expect(new Set(parsed.map((p) => p.level))).not.toContain('debug');
    // Nothing of the content, the keys or the refused secret.
    expect(lines.filter((l) => l.includes('plumtree'))).toEqual([]);
    expect(log).not.toContain(MARKER);
    expect(log).not.toContain('plumtree');
    expect(log).not.toContain(SECRET);
    for (const k of [worker.key, lead.key]) {
      expect(log).not.toContain(k);
      // The secret part: everything after `mem_<id>_` (it may itself hold a `_`).
      expect(log).not.toContain(/^mem_[^_]+_(.+)$/.exec(k)![1]!);
    }
    expect(log).not.toContain('nottherealsecret');
  });
});
