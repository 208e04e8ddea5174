/**
 * The memory graph over HTTP on a real server (SQLite file): the routes of the nine memory-server operations, a bad
 * body refused without a write, the memory file out and in as JSON Lines, and `/mcp/memory-server` with exactly nine
 * tools; a stack without a graph answers 501.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { call, testServer } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-graph-http-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the memory graph over HTTP', () => {
  it('creates, relates, reads, refuses bad input without a write, exports and imports the memory file', async () => {
    const stack = createStack({
      stores: createSqliteStores({ path: join(dir, 'a.db') }),
      embedder: createHashingEmbedder(),
    });
    const server = await testServer({ stack });
    try {
      const created = await call(server.url, 'POST', '/v1/graph/entities', {
        body: { entities: [{ name: 'Acme Inc.', entityType: 'organization', observations: ['Makes anvils'] }] },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        entities: [{ name: 'Acme Inc.', entityType: 'organization', observations: ['Makes anvils'] }],
      });
      const related = await call(server.url, 'POST', '/v1/graph/relations', {
        body: { relations: [{ from: 'Wile E. Coyote', to: 'ACME', relationType: 'buys_from' }] },
      });
      expect(related.status).toBe(201);

      const bad = await call(server.url, 'POST', '/v1/graph/entities', {
        body: {
          entities: [
            { name: 'Ok', entityType: 'thing', observations: [] },
            { name: '', entityType: 'x', observations: [] },
          ],
        },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('INVALID_INPUT');
      expect(bad.body.message).toMatch(/entity name.*empty/);
      const unknown = await call(server.url, 'POST', '/v1/graph/observations', {
        body: {
          observations: [
            { entityName: 'Acme', contents: ['Founded 1949'] },
            { entityName: 'Nobody', contents: ['x'] },
          ],
        },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('NOT_FOUND');

      const search = await call(server.url, 'GET', '/v1/graph/search?query=anvils');
      expect(search.body.entities.map((e: { name: string }) => e.name)).toEqual(['Acme Inc.']);
      expect(search.body.relations).toEqual([{ from: 'Wile E. Coyote', to: 'Acme Inc.', relationType: 'buys_from' }]);
      const graph = await call(server.url, 'GET', '/v1/graph');
      // Nothing of the refused calls was written; the relation's other end is a name, not an entity.
      expect(graph.body.entities).toEqual([
        { name: 'Acme Inc.', entityType: 'organization', observations: ['Makes anvils'] },
      ]);

      const file = await call(server.url, 'GET', '/v1/graph/export');
      expect(file.status).toBe(200);
      expect(
        file.text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([
        { type: 'entity', name: 'Acme Inc.', entityType: 'organization', observations: ['Makes anvils'] },
        { type: 'relation', from: 'Wile E. Coyote', to: 'Acme Inc.', relationType: 'buys_from' },
      ]);
      const other = await call(server.url, 'POST', '/v1/graph/import', {
        raw: '{"type":"entity","name":"Road Runner","entityType":"bird","observations":["Fast"]}\n',
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect(other.body).toEqual({ entities: 1, relations: 0 });
      const broken = await call(server.url, 'POST', '/v1/graph/import', {
        raw: '{"type":"entity","name":"Coyote"}\n',
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect(broken.status).toBe(400);
      expect(broken.body.message).toMatch(/^Line 1 of the memory file/);
      expect((await call(server.url, 'GET', '/v1/graph')).body.entities).toHaveLength(2);

      const client = new Client({ name: 'graph-http', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/memory-server`)));
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual([
          'create_entities',
          'create_relations',
          'add_observations',
          'delete_entities',
          'delete_observations',
          'delete_relations',
          'read_graph',
          'search_nodes',
          'open_nodes',
        ]);
        const opened = await client.callTool({ name: 'open_nodes', arguments: { names: ['road runner'] } });
        expect(opened.structuredContent).toEqual({
          entities: [{ name: 'Road Runner', entityType: 'bird', observations: ['Fast'] }],
          relations: [],
        });
      } finally {
        await client.close();
      }
    } finally {
      await server.close();
    }
  });

  it('a stack without a graph answers 501 CAPABILITY_MISSING', async () => {
    const server = await testServer();
    try {
      const r = await call(server.url, 'POST', '/mcp/memory-server', {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { accept: 'application/json, text/event-stream' },
      });
      expect(r.status).toBe(501);
      expect(r.body.code).toBe('CAPABILITY_MISSING');
      expect((await call(server.url, 'GET', '/v1/graph')).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
