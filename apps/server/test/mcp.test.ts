import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formationOperations,
  knowledgeOperations,
  memoryStore,
  reviewOperations,
  stateOperations,
  structuredOperations,
} from '@mem/operations';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { createMcpServer } from '../src/mcp.js';
import { call, memoryStack, memProcess, testServer, worker } from './helpers.js';
import { startEnv } from './hostile-kit.js';

/** The MCP tools of the knowledge operations (docs/ranking.md). */
const OPERATION_TOOLS = [
  'memory-store',
  'memory-search',
  'memory-get',
  'memory-edit',
  'memory-delete',
  'memory_rate',
  'memory-dedup-check',
  'smart-recall',
  'task-context-gathering',
  'inject-learning',
];

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: any };

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-server-mcp-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('MCP over stdio (mem mcp)', () => {
  it('lists the operation tools with teaching descriptions, runs them, and returns refusals as tool errors', async () => {
    const db = join(dir, 'stdio.db');
    const p = memProcess(['mcp', '--db', db, '--embedder', 'hashing', '--space', 'acme', '--agent', 'coder']);
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: p.command,
      args: p.args,
      env: { ...(process.env as Record<string, string>), MEM_EMBEDDER: 'hashing' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (c) => stderr.push(String(c)));
    const client = new Client({ name: 'mem-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getInstructions()).toContain('one fact');
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of OPERATION_TOOLS) expect(names).toContain(name);
      const store = tools.find((t) => t.name === 'memory-store')!;
      expect(store.inputSchema).toMatchObject({ type: 'object', required: ['content'], additionalProperties: false });
      for (const phrase of ['one fact', 'searchable name', 'context', 'secrets', 'memory-edit', 'memory-dedup-check'])
        expect(store.description).toContain(phrase);
      const get = tools.find((t) => t.name === 'memory-get')!;
      expect(get.inputSchema).toMatchObject({ type: 'object', properties: { id: {}, key: {}, scope: {} } });

      const stored = await tool(client, 'memory-store', {
        content: 'The billing service retries failed invoices three times.',
        name: 'Invoice retries',
        key: '/longterm/facts/billing/invoice-retries',
      });
      expect(stored.isError).toBeFalsy();
      const { id } = stored.structuredContent;
      expect(JSON.parse(stored.content[0]!.text!)).toMatchObject({
        id,
        key: '/longterm/facts/billing/invoice-retries',
        chunkCount: 1,
      });

      const found = await tool(client, 'memory-search', { query: 'failed invoice retries' });
      expect(found.structuredContent.results[0]).toMatchObject({ id, name: 'Invoice retries', agentId: 'coder' });
      const byKey = await tool(client, 'memory-get', { key: '/longterm/facts/billing/invoice-retries' });
      expect(byKey.structuredContent).toMatchObject({ id, accessCount: 1 });
      const edited = await tool(client, 'memory-edit', {
        id,
        intent: 'policy changed',
        mode: 'exact',
        oldText: 'three times',
        newText: 'five times',
      });
      expect(edited.structuredContent).toMatchObject({ version: 2 });
      const dup = await tool(client, 'memory-dedup-check', {
        text: 'The billing service retries failed invoices five times.',
      });
      expect(dup.structuredContent.isDuplicate).toBe(true);
      const ctx = await tool(client, 'task-context-gathering', { task: 'change the invoice retry policy' });
      expect(ctx.structuredContent.memories[0].id).toBe(id);
      const rated = await tool(client, 'memory_rate', { id, useful: true, taskId: 'T-9' });
      expect(rated.structuredContent).toMatchObject({ alpha: 1, counted: false }); // own memory: not counted

      // Refusals are tool errors with code and message; the session keeps working.
      const secret = await tool(client, 'memory-store', {
        content: 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB',
      });
      expect(secret.isError).toBe(true);
      expect(secret.content[0]!.text).toMatch(/^SECRET_DETECTED: /);
      expect(secret.structuredContent.error.code).toBe('SECRET_DETECTED');
      const badArgs = await tool(client, 'memory-search', { query: 'x', limit: 'ten' });
      expect(badArgs.isError).toBe(true);
      expect(badArgs.content[0]!.text).toMatch(/^INVALID_INPUT: .*limit/);
      const workerLearn = await tool(client, 'inject-learning', {
        agentId: 'tester',
        learning: 'x y z',
        category: 'preference',
      });
      expect(workerLearn.content[0]!.text).toMatch(/^FORBIDDEN: /);
      const unknown = await tool(client, 'no-such-tool', {});
      expect(unknown.isError).toBe(true);
      const again = await tool(client, 'memory-delete', { id });
      expect(again.structuredContent).toEqual({ id, deletedChunks: 1 });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- server stderr ---\n${stderr.join('')}`);
    } finally {
      await client.close();
    }
  });
});

describe('MCP over streamable HTTP (POST /mcp)', () => {
  it('acts as the principal of the bearer key, shares data with the HTTP API, and refuses without a key', async () => {
    const keys = KeyStore.open(':memory:');
    const worker = (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key;
    const lead = (await keys.create({ space: 'acme', agentId: 'boss', role: 'lead' })).key;
    const server = await testServer({ keys });
    const connect = async (key: string) => {
      const client = new Client({ name: 'mem-test-http', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      return client;
    };
    const asWorker = await connect(worker);
    const asLead = await connect(lead);
    try {
      const { tools } = await asWorker.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        [
          ...knowledgeOperations,
          ...formationOperations,
          ...reviewOperations,
          ...structuredOperations,
          ...stateOperations,
        ]
          .filter((op) => op.tool)
          .map((op) => op.tool!.name)
          .sort(),
      );
      const stored = await tool(asWorker, 'memory-store', {
        content: 'The staging cluster runs on three nodes.',
        scope: 'swarm',
      });
      const { id } = stored.structuredContent;
      // Same memory through the HTTP API with the same key: the owner is the key's agent.
      const viaHttp = await call(server.url, 'GET', `/v1/memories/${id}`, { key: worker });
      expect(viaHttp.body).toMatchObject({ agentId: 'coder', scope: 'swarm' });

      const forbidden = await tool(asWorker, 'memory-store', {
        content: 'Founded in 2019.',
        key: '/longterm/company-story',
      });
      expect(forbidden.content[0]!.text).toMatch(/^FORBIDDEN_KEY: /);
      const learn = await tool(asLead, 'inject-learning', {
        agentId: 'coder',
        learning: 'Check the staging node count before load tests.',
        category: 'best-practice',
      });
      expect(learn.isError).toBeFalsy();
      const seen = await tool(asWorker, 'smart-recall', { queries: ['staging nodes', 'load tests'] });
      expect(seen.structuredContent.results.map((r: { id: string }) => r.id)).toEqual(
        expect.arrayContaining([id, learn.structuredContent.id]),
      );
    } finally {
      await asWorker.close();
      await asLead.close();
    }
    const anonymous = new Client({ name: 'anon', version: '1.0.0' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)))).rejects.toThrow();
    await server.close();
    keys.close();
  });
});

describe('MCP output schemas', () => {
  it('every tool declares an object outputSchema, and each structuredContent validates against it', async () => {
    const env = await startEnv('mem-server-mcp-output-');
    const key = await env.key('acme', 'coder', 'worker');
    const client = new Client({ name: 'mem-test-output', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(env.server.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of [...OPERATION_TOOLS, 'write_memory', 'read_memory', 'fact-set', 'fact-get', 'episode-store'])
        expect(names).toContain(name);
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      const validators = new Map<string, ValidateFunction>();
      for (const t of tools) {
        expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
        validators.set(t.name, ajv.compile(t.outputSchema!));
      }
      const valid = (name: string, content: unknown) => {
        const validate = validators.get(name)!;
        return validate(content) ? 'valid' : ajv.errorsText(validate.errors);
      };
      // The SDK client validates every structuredContent against the tool's outputSchema (it throws otherwise).
      const checked = async (name: string, args: Record<string, unknown>) => {
        const r = await tool(client, name, args);
        expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy();
        expect(valid(name, r.structuredContent), name).toBe('valid');
        return r.structuredContent;
      };

      const stored = await checked('memory-store', {
        content: 'The deploy freeze starts on the 20th of December.',
        name: 'Deploy freeze',
      });
      const found = await checked('memory-search', { query: 'deploy freeze' });
      expect(found.results[0].id).toBe(stored.id);
      expect(await checked('memory-get', { id: stored.id })).toMatchObject({ id: stored.id, accessCount: 1 });
      expect(await checked('write_memory', { content: '- Deploy freeze from Dec 20.' })).toMatchObject({
        file: 'MEMORY.md',
        status: 'created',
      });
      expect((await checked('read_memory', {})).content).toContain('Deploy freeze');
      expect(await checked('list_memory', {})).toMatchObject({ files: [{ file: 'MEMORY.md' }] });
      const fact = await checked('fact-set', { user: 'ana', key: 'team', value: { name: 'ops', size: [3, null] } });
      expect(fact).toMatchObject({ status: 'created', fact: { value: { name: 'ops', size: [3, null] } } });
      expect((await checked('fact-get', { user: 'ana' })).facts).toHaveLength(1);
      await checked('episode-store', { summary: 'Moved the deploy freeze', outcome: 'success', tags: ['deploy'] });

      // A refusal's {error} is declared too, so the SDK client hands it over as a tool error.
      const refused = await tool(client, 'memory-get', { id: 'no-such-memory' });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toBe('NOT_FOUND');
      expect(valid('memory-get', refused.structuredContent)).toBe('valid');

      // The check can fail: shapes other than the declared ones are refused.
      expect(valid('memory-store', { ...stored, chunkCount: 'one' })).toMatch(/chunkCount/);
      expect(valid('memory-search', { results: [{ id: 7 }] })).not.toBe('valid');
      expect(valid('fact-set', { status: 'maybe', fact: fact.fact })).not.toBe('valid');
      expect(valid('read_memory', { error: { code: 'X' } })).not.toBe('valid');
    } finally {
      await client.close();
      await env.close();
    }
  });

  it('the SDK client refuses a structuredContent that does not match the outputSchema', async () => {
    const broken = { ...memoryStore, run: async () => ({ id: 42, chunks: 'many' }) };
    const server = createMcpServer({ operations: [broken], stack: memoryStack(), principal: worker });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'mem-test-broken', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      await client.listTools();
      await expect(client.callTool({ name: 'memory-store', arguments: { content: 'x' } })).rejects.toThrow(
        /output schema/,
      );
    } finally {
      await client.close();
      await server.close();
    }
  });
});
