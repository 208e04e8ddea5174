import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, MemError, type Stack } from '@mem/core';
import { createSqliteNotebookStore, createSqliteStore, createSqliteTranscriptStore } from '@mem/store-sqlite';
import { type ChatRequest, startFakeChatServer } from '@mem/testkit/internal';
import { Agent, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemSession, memoryTools } from '../src/index.js';
import { completion, toolCall } from './chat-completion.js';

setTracingDisabled(true);

const me = { space: 'acme', agentId: 'helper', role: 'worker' } as const;
let dir: string;
let stack: Stack;
let server: Awaited<ReturnType<typeof startFakeChatServer>>;
const requests: ChatRequest[] = [];

const answer = (message: Record<string, unknown>) => completion(message, requests.length);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-agents-run-'));
  const db = join(dir, 'mem.db');
  stack = createStack({
    knowledge: createSqliteStore({ path: db }),
    embedder: createHashingEmbedder(),
    transcripts: createSqliteTranscriptStore({ path: db }),
    notebooks: createSqliteNotebookStore({ path: db }),
  });
  await stack.knowledge.store(me, {
    content: 'The staging database is reset every Sunday at 02:00 UTC.',
    key: '/projects/ops/staging-reset',
  });
  // The fake model: on a new user turn it calls memory_search (the SDK's name of the table's memory-search); once the tool result is in, it answers with it.
  server = await startFakeChatServer((request, send) => {
    requests.push(request);
    const messages = request.body.messages as { role: string; content?: unknown }[];
    const last = messages.at(-1)!;
    if (last.role === 'tool') {
      const found = JSON.parse(String(last.content)) as { results: { content: string }[] };
      return send(200, answer({ content: `From memory: ${found.results[0]?.content ?? 'nothing'}` }));
    }
    return send(200, toolCall('memory_search', { query: String(last.content), limit: 3 }, requests.length));
  });
});

afterAll(async () => {
  await server.close();
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a real Agent run with the session and a memory tool', () => {
  it('calls memory-search through the SDK, answers from it, and the session holds the turn for the next run', async () => {
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'test-key', useResponses: false }),
      tracingDisabled: true,
    });
    const agent = new Agent({
      name: 'helper',
      instructions: 'Answer from memory.',
      model: 'fake-model',
      tools: memoryTools({ stack, principal: me, only: ['memory-search'] }),
    });
    const session = new MemSession({ conversations: stack.conversations, space: 'acme', sessionId: 'chat-7' });

    const first = await runner.run(agent, 'When is the staging database reset?', { session });
    expect(first.finalOutput).toBe('From memory: The staging database is reset every Sunday at 02:00 UTC.');
    expect(requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'memory_search',
    ]);

    const items = await session.getItems();
    expect(items.map((i) => (i as { type?: string }).type ?? 'message')).toEqual([
      'message',
      'function_call',
      'function_call_result',
      'message',
    ]);

    // A second run (a fresh session object on the same store) sends the stored history to the model.
    const again = new MemSession({ conversations: stack.conversations, space: 'acme', sessionId: 'chat-7' });
    const before = requests.length;
    await runner.run(agent, 'And the production database?', { session: again });
    const sent = requests[before]!.body.messages as { role: string; content?: unknown }[];
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(String(sent[1]!.content)).toBe('When is the staging database reset?');
    expect((await again.getItems()).length).toBe(8);
  });

  it('returns a MemError to the model as { error } when a tool call is bad, and writes nothing', async () => {
    const [write] = memoryTools({ stack, principal: me, only: ['write_memory'] });
    const [store] = memoryTools({ stack, principal: me, only: ['memory_store'] });
    const ctx = {} as never;
    const badWrite = JSON.parse(
      String(await write!.invoke(ctx, JSON.stringify({ content: 'x', file: '../../etc/passwd' }))),
    );
    expect(badWrite.error.code).toBe('INVALID_INPUT');
    const badStore = JSON.parse(String(await store!.invoke(ctx, JSON.stringify({ content: 'x', bogus: 1 }))));
    expect(badStore.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(badStore.error.message).toContain('bogus');
    const ok = JSON.parse(String(await write!.invoke(ctx, JSON.stringify({ content: 'Staging resets on Sundays' }))));
    expect(ok.error).toBeUndefined();
    expect((await stack.notebook!.read(me, {})).content).toContain('Staging resets on Sundays');
    expect(() => memoryTools({ principal: me } as never)).toThrow(/give the stack createStack returned/);
    expect(() => memoryTools({ stack, principal: me, notebook: false, only: ['write_memory'] })).toThrow(
      /no tool named "write_memory" on this stack; available: memory-store/,
    );
    const e = (() => {
      try {
        memoryTools({ stack, principal: me, only: ['memory-forget'] });
      } catch (error) {
        return error;
      }
    })();
    expect(MemError.is(e, 'INVALID_INPUT')).toBe(true);
  });
});
