import { factSetInput, memoryEditInput, memoryStoreInput } from '@mem/core';
import { defaultOperations, toJsonSchema } from '@mem/operations';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolDefinitions } from '../src/mcp.js';
import { agentStack, call, memoryStack, testServer } from './helpers.js';

let server: Awaited<ReturnType<typeof testServer>>;
let doc: any;
beforeAll(async () => {
  server = await testServer({ stack: agentStack() });
  const r = await call(server.url, 'GET', '/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});
afterAll(() => server.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has valid JSON Schema 2020-12 components', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    // Components refer to each other (`#/components/schemas/…`): compile each one within the document.
    ajv.addSchema(doc, 'urn:mem:openapi');
    for (const name of Object.keys(doc.components.schemas)) {
      const ref = `urn:mem:openapi#/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      expect(() => ajv.compile({ $ref: ref }), name).not.toThrow();
    }
    // The recursive JSON value of a fact is a component of its own.
    const factSet = ajv.compile({ $ref: 'urn:mem:openapi#/components/schemas/fact-set.body' });
    expect(factSet({ user: 'ana', key: 'team', value: { name: 'billing', members: [1, 'two', null] } })).toBe(true);
    expect(factSet({ user: 'ana', key: 'team', value: { deep: [{ deeper: { deepest: [true] } }] } })).toBe(true);
    expect(factSet({ user: 'ana', key: 'team' })).toBe(false);
  });

  it('has no $defs and no $ref that does not resolve within the document', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const item of node) walk(item);
        return;
      }
      for (const [k, v] of Object.entries(node)) {
        expect(k, 'no $defs or $id left in the document').not.toMatch(/^\$(defs|id)$/);
        if (k === '$ref' && typeof v === 'string') refs.push(v);
        else walk(v);
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref, ref).toMatch(/^#\//);
      let target: any = doc;
      for (const part of ref.slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      expect(target, `${ref} resolves`).toBeTypeOf('object');
    }
  });

  it('lists every operation of the table once, with its MCP tool', () => {
    const ops = defaultOperations(agentStack());
    expect(ops.map((o) => o.group)).toEqual(
      expect.arrayContaining(['knowledge', 'notebook', 'conversation', 'structured']),
    );
    const listed = new Map<string, { path: string; method: string; op: any }>();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(listed.has(op.operationId), op.operationId).toBe(false);
        listed.set(op.operationId, { path, method, op });
      }
    }
    for (const op of ops) {
      const found = listed.get(op.name);
      expect(found, op.name).toBeDefined();
      expect([found!.method.toUpperCase(), found!.path]).toEqual([op.http!.method, op.http!.path]);
      expect(found!.op['x-mcp-tool']).toBe(op.tool?.name);
    }
    expect(doc.paths['/v1/agents/{agent}/notebook'].post['x-mcp-tool']).toBe('write_memory');
    expect(doc.paths['/v1/agents/{agent}/conversation/messages'].post).toBeDefined();
    for (const fixed of ['/healthz', '/readyz', '/openapi.json', '/', '/mcp']) expect(doc.paths[fixed]).toBeDefined();
    for (const route of [
      ['post', '/v1/memories'],
      ['post', '/v1/memories/search'],
      ['get', '/v1/memories/{id}'],
      ['patch', '/v1/memories/{id}'],
      ['delete', '/v1/memories/{id}'],
      ['post', '/v1/memories/{id}/ratings'],
      ['post', '/v1/memories/dedup-check'],
      ['post', '/v1/recall'],
      ['post', '/v1/smart-recall'],
      ['post', '/v1/task-context'],
      ['post', '/v1/learnings'],
      ['post', '/v1/index'],
      ['get', '/v1/memories/{id}/versions'],
      ['get', '/v1/stats'],
      ['post', '/v1/gc'],
      ['get', '/v1/export'],
      ['post', '/v1/import'],
      ['put', '/v1/facts'],
      ['get', '/v1/facts'],
      ['delete', '/v1/facts'],
      ['post', '/v1/episodes'],
      ['post', '/v1/episodes/recall'],
      ['get', '/v1/episodes/recent'],
      ['get', '/v1/episodes/by-tag/{tag}'],
      ['post', '/v1/procedures'],
      ['post', '/v1/procedures/suggest'],
      ['post', '/v1/procedures/{id}/outcomes'],
      ['get', '/v1/procedures/{id}'],
      ['post', '/v1/consolidate'],
      ['post', '/v1/forget'],
    ] as const) {
      expect(doc.paths[route[1]]?.[route[0]], route.join(' ')).toBeDefined();
    }
  });

  it('describes each input from the one zod schema that HTTP and MCP also use', () => {
    const body = (name: string) => doc.components.schemas[`${name}.body`];
    expect(body('memory-store')).toEqual(toJsonSchema(memoryStoreInput));
    // PATCH: memory-edit minus the reference fields (the id is in the path).
    expect(body('memory-edit')).toEqual(toJsonSchema(memoryEditInput.omit({ id: true, key: true, scope: true })));
    const tools = toolDefinitions(defaultOperations(memoryStack()));
    expect(tools.find((t) => t.name === 'memory-store')!.inputSchema).toEqual(body('memory-store'));
    expect(tools.find((t) => t.name === 'memory-edit')!.inputSchema).toEqual(toJsonSchema(memoryEditInput));
    // Errors are {code, message}; protected routes need the bearer key.
    expect(doc.components.schemas.Error.required).toEqual(['code', 'message']);
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/v1/memories'].post.responses['201']).toBeDefined();
    expect(doc.paths['/v1/memories/search'].post.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/memory-search.result',
    );
    // Structured memory: core's schemas too; the recursive JSON value (zod's `$defs`) is the component JsonValue,
    // shared by every schema that uses it.
    const { $defs, ...factSetJson } = toJsonSchema(factSetInput) as { $defs: Record<string, unknown> };
    expect(Object.keys($defs)).toEqual(['__schema0']);
    expect(body('fact-set')).toEqual({
      ...factSetJson,
      properties: { ...(factSetJson as any).properties, value: { $ref: '#/components/schemas/JsonValue' } },
    });
    expect(doc.components.schemas.JsonValue.anyOf).toHaveLength(6);
    expect(JSON.stringify(doc.components.schemas['episode-store.body'])).toContain(
      '"$ref":"#/components/schemas/JsonValue"',
    );
    expect(Object.keys(doc.components.schemas).filter((n) => /schema\d|JsonValue/.test(n))).toEqual(['JsonValue']);
    expect(tools.find((t) => t.name === 'fact-set')!.inputSchema).toEqual(toJsonSchema(factSetInput));
    expect(doc.paths['/v1/facts'].put['x-mcp-tool']).toBe('fact-set');
    expect(doc.paths['/v1/facts'].delete.requestBody.required).toBe(false);
    expect(doc.paths['/v1/facts'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['user', 'topic']);
    expect(doc.paths['/v1/episodes'].post.responses['201']).toBeDefined();
    expect(doc.paths['/v1/consolidate'].post.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/consolidate.result',
    );
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain('structured');
  });
});
