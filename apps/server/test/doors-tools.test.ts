/**
 * Every door offers the same tools from the one operation table, and refuses what the others refuse: the MCP server,
 * the HTTP API, and the framework adapters (@mem/ai-sdk, @mem/openai-agents, @mem/langgraph), each with its real
 * framework package, on one stack.
 */

import { memoryTools as aiSdkTools } from '@mem/ai-sdk';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
  createStack,
  MemError,
  type Principal,
  type Stack,
} from '@mem/core';
import { episodicServices } from '@mem/episodic';
import { memoryTools as langgraphTools } from '@mem/langgraph';
import { agentsToolName, memoryTools as agentsTools } from '@mem/openai-agents';
import { defaultOperations, describeTools } from '@mem/operations';
import { proceduralServices } from '@mem/procedural';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { asSchema } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';
import { createMcpServer } from '../src/mcp.js';
import { call, testServer } from './helpers.js';

const worker: Principal = { space: 'acme', agentId: 'coder', role: 'worker' };
const lead: Principal = { space: 'acme', agentId: 'boss', role: 'lead' };

function fullStack(): Stack {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    structured: createInMemoryStructuredStores(),
    notebooks: createInMemoryNotebookStore(),
    transcripts: createInMemoryTranscriptStore(),
    services: [episodicServices(), proceduralServices()],
    embedder: createHashingEmbedder(),
  });
}

/** The outcome of a call, the same shape for every door: ok, or the refusal's code. */
type Outcome = { ok: true } | { ok: false; code: string };
type Door = (who: Principal, tool: string, args: Record<string, unknown>) => Promise<Outcome>;

let stack: Stack;
let server: Awaited<ReturnType<typeof testServer>>;
let keyOf: Map<Principal, string>;
const clients: Client[] = [];
const doors = new Map<string, Door>();

const fromError = (error: unknown): Outcome => {
  if (MemError.is(error)) return { ok: false, code: error.code };
  throw error;
};
const fromJson = (text: string): Outcome => {
  const value = JSON.parse(text) as { error?: { code: string } };
  return value?.error ? { ok: false, code: value.error.code } : { ok: true };
};

beforeAll(async () => {
  stack = fullStack();
  const keys = KeyStore.open(':memory:');
  keyOf = new Map([
    [worker, (await keys.create(worker)).key],
    [lead, (await keys.create(lead)).key],
  ]);
  server = await testServer({ stack, keys, defaultPrincipal: worker });
  const operations = defaultOperations(stack);
  const byTool = new Map(operations.filter((op) => op.tool).map((op) => [op.tool!.name, op]));

  const mcpClients = new Map<Principal, Client>();
  for (const who of [worker, lead]) {
    const mcp = createMcpServer({ operations, stack, principal: who });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'doors-test', version: '1.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    mcpClients.set(who, client);
  }
  doors.set('mcp', async (who, tool, args) => {
    const r = (await mcpClients.get(who)!.callTool({ name: tool, arguments: args })) as {
      isError?: boolean;
      structuredContent?: { error?: { code: string } };
    };
    return r.isError ? { ok: false, code: r.structuredContent!.error!.code } : { ok: true };
  });
  doors.set('http', async (who, tool, args) => {
    const http = byTool.get(tool)!.http!;
    const path = http.path.replace('{agent}', encodeURIComponent(who.agentId));
    const r = await call(server.url, http.method, path, { key: keyOf.get(who)!, body: args });
    return r.status < 300 ? { ok: true } : { ok: false, code: r.body.code };
  });
  doors.set('ai-sdk', async (who, tool, args) => {
    const t = aiSdkTools(stack, who, { only: [tool] })[tool] as unknown as {
      execute: (input: unknown, options: unknown) => Promise<unknown>;
    };
    return t.execute(args, { toolCallId: 'call-1', messages: [] }).then(() => ({ ok: true }) as Outcome, fromError);
  });
  doors.set('openai-agents', async (who, tool, args) => {
    const [t] = agentsTools({ stack, principal: who, only: [tool] });
    return fromJson(String(await t!.invoke({} as never, JSON.stringify(args))));
  });
  doors.set('langgraph', async (who, tool, args) => {
    const [t] = langgraphTools(stack, who, { only: [tool] });
    return fromJson(String(await t!.invoke(args)));
  });
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await server.close();
});

describe('the tools of every door come from the operation table', () => {
  it('MCP, the AI SDK, OpenAI Agents and LangGraph list the same tools with the same descriptions and input schemas', async () => {
    const { tools: mcp } = await clients[0]!.listTools();
    const table = describeTools(defaultOperations(stack));
    expect(mcp.map((t) => t.name)).toEqual(table.map((t) => t.name));
    const names = mcp.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['memory-store', 'consolidate', 'write_memory', 'turn-context']));

    const ai = aiSdkTools(stack, worker, { only: names });
    const agents = agentsTools({ stack, principal: worker, only: names });
    const graph = langgraphTools(stack, worker, { only: names });
    expect(Object.keys(ai)).toEqual(names);
    // The Agents SDK allows only letters, digits and `_` in a name: `memory-store` is `memory_store` there.
    expect(agents.map((t) => t.name)).toEqual(names.map(agentsToolName));
    expect(graph.map((t) => t.name)).toEqual(names);
    for (const [i, m] of mcp.entries()) {
      const aiTool = ai[m.name] as unknown as { description: string; inputSchema: unknown };
      expect(aiTool.description, m.name).toBe(m.description);
      expect(await asSchema(aiTool.inputSchema as never).jsonSchema, m.name).toEqual(m.inputSchema);
      expect(agents[i]!.description, m.name).toBe(m.description);
      expect(agents[i]!.parameters, m.name).toEqual(m.inputSchema);
      expect(graph[i]!.description, m.name).toBe(m.description);
      expect(graph[i]!.schema, m.name).toEqual(m.inputSchema);
    }
  });

  it('the default memory tools are the same eight in each framework', () => {
    const expected = [
      'memory-store',
      'memory-search',
      'memory-edit',
      'memory_rate',
      'write_memory',
      'read_memory',
      'delete_memory',
      'search_memory',
    ];
    expect(Object.keys(aiSdkTools(stack, worker))).toEqual(expected);
    expect(agentsTools({ stack, principal: worker }).map((t) => t.name)).toEqual(expected.map(agentsToolName));
    expect(langgraphTools(stack, worker).map((t) => t.name)).toEqual(expected);
    // Without the notebook, its four are left out, and asking for one is INVALID_INPUT naming what exists.
    expect(Object.keys(aiSdkTools(stack, worker, { notebook: false }))).toEqual(expected.slice(0, 4));
    expect(() => aiSdkTools(stack, worker, { notebook: false, only: ['write_memory'] })).toThrow(
      /no tool named "write_memory" on this stack; available: memory-store/,
    );
  });
});

describe('every door refuses what the others refuse, and allows what they allow', () => {
  const cases: { what: string; who: Principal; tool: string; args: Record<string, unknown>; expect: Outcome }[] = [
    {
      what: 'a worker consolidating',
      who: worker,
      tool: 'consolidate',
      args: {},
      expect: { ok: false, code: 'FORBIDDEN' },
    },
    { what: 'a lead consolidating', who: lead, tool: 'consolidate', args: {}, expect: { ok: true } },
    {
      what: 'a worker injecting a learning',
      who: worker,
      tool: 'inject-learning',
      args: { agentId: 'coder', learning: 'Deploys need a green build.', category: 'best-practice' },
      expect: { ok: false, code: 'FORBIDDEN' },
    },
    {
      // The permission is checked before the arguments, in every door (LangChain's own schema check included).
      what: 'a worker injecting a learning with bad arguments',
      who: worker,
      tool: 'inject-learning',
      args: { learning: '' },
      expect: { ok: false, code: 'FORBIDDEN' },
    },
    {
      what: 'a lead injecting a learning',
      who: lead,
      tool: 'inject-learning',
      args: { agentId: 'coder', learning: 'Deploys need a green build.', category: 'best-practice' },
      expect: { ok: true },
    },
    {
      what: 'an empty memory',
      who: worker,
      tool: 'memory-store',
      args: { content: '' },
      expect: { ok: false, code: 'INVALID_INPUT' },
    },
    {
      what: 'an unknown field',
      who: worker,
      tool: 'memory-store',
      args: { content: 'Staging resets on Sundays.', bogus: 1 },
      expect: { ok: false, code: 'INVALID_INPUT' },
    },
    {
      what: 'a credential',
      who: worker,
      tool: 'memory-store',
      args: { content: `deploy with ${['AKIA', 'IOSFODNN7EXAMPLE'].join('')} please` },
      expect: { ok: false, code: 'SECRET_DETECTED' },
    },
    {
      what: 'a notebook path outside the notebook',
      who: worker,
      tool: 'write_memory',
      args: { file: '../../etc/passwd', content: 'x' },
      expect: { ok: false, code: 'INVALID_INPUT' },
    },
    { what: 'a search', who: worker, tool: 'memory-search', args: { query: 'staging' }, expect: { ok: true } },
  ];

  for (const c of cases) {
    it(`${c.what}: ${c.expect.ok ? 'allowed' : c.expect.code} through MCP, HTTP, AI SDK, OpenAI Agents and LangGraph`, async () => {
      const before = (await stack.knowledge.stats(c.who)).documents;
      const outcomes: Record<string, Outcome> = {};
      for (const [name, door] of doors) outcomes[name] = await door(c.who, c.tool, c.args);
      expect(outcomes).toEqual(Object.fromEntries([...doors.keys()].map((name) => [name, c.expect])));
      // A refusal writes nothing, whatever the door.
      if (!c.expect.ok) expect((await stack.knowledge.stats(c.who)).documents).toBe(before);
    });
  }

  it('an allowed write through each door is one memory, visible to the next door', async () => {
    const before = (await stack.knowledge.stats(worker)).documents;
    for (const [i, door] of [...doors.values()].entries()) {
      expect(
        await door(worker, 'memory-store', { content: `Door ${i} says the release train leaves on Tuesdays.` }),
      ).toEqual({ ok: true });
    }
    expect((await stack.knowledge.stats(worker)).documents).toBe(before + doors.size);
  });
});
