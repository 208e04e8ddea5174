import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createStack,
  MemError,
  type Stack,
} from '@mem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryTools } from '../src/index.js';

const me = { space: 'lg', agentId: 'graph', role: 'worker' } as const;
let stack: Stack;

beforeEach(() => {
  stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    notebooks: createInMemoryNotebookStore(),
    embedder: createHashingEmbedder(),
  });
});
afterEach(() => stack.close());

/** Run a model's tool calls through LangGraph's own ToolNode, as a graph's `tools` node does. */
async function runCalls(calls: { name: string; args: Record<string, unknown> }[]): Promise<ToolMessage[]> {
  const node = new ToolNode(memoryTools(stack, me));
  const message = new AIMessage({
    content: '',
    tool_calls: calls.map((c, i) => ({ id: `call-${i}`, name: c.name, args: c.args, type: 'tool_call' as const })),
  });
  const out = (await node.invoke({ messages: [message] })) as { messages: ToolMessage[] };
  return out.messages;
}

describe('memoryTools for LangGraph', () => {
  it('a ToolNode runs the tools on the stack: store, then search finds it', async () => {
    const [stored] = await runCalls([
      { name: 'memory-store', args: { content: 'The release train leaves on Tuesdays.' } },
    ]);
    const id = JSON.parse(String(stored!.content)).id as string;
    const [found] = await runCalls([{ name: 'memory-search', args: { query: 'when does the release train leave' } }]);
    expect(JSON.parse(String(found!.content)).results[0]).toMatchObject({ id });
    const [noted] = await runCalls([{ name: 'write_memory', args: { content: 'Ada leads billing.' } }]);
    expect(noted!.tool_call_id).toBe('call-0');
    expect((await stack.notebook!.read(me, {})).content).toContain('Ada leads billing.');
  });

  it("a bad call comes back to the model as mem's error (code and what to fix), even when LangChain's schema check refuses it first", async () => {
    const [unknownField, empty, secret] = await runCalls([
      { name: 'memory-store', args: { content: 'Staging resets on Sundays.', bogus: 1 } },
      { name: 'memory-store', args: { content: '' } },
      { name: 'memory-store', args: { content: `deploy with ${['AKIA', 'IOSFODNN7EXAMPLE'].join('')} please` } },
    ]);
    const error = (m: ToolMessage | undefined) => JSON.parse(String(m!.content)).error;
    expect(error(unknownField)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(error(unknownField).message).toContain('bogus');
    expect(unknownField!.tool_call_id).toBe('call-0');
    expect(error(empty)).toMatchObject({ code: 'INVALID_INPUT' });
    expect(error(secret)).toMatchObject({ code: 'SECRET_DETECTED' });
    expect((await stack.knowledge.stats(me)).documents).toBe(0);
  });

  it('picks tools by table name and says which exist when a name is unknown', () => {
    expect(memoryTools(stack, me, { only: ['memory-get', 'smart-recall'] }).map((t) => t.name)).toEqual([
      'memory-get',
      'smart-recall',
    ]);
    const e = (() => {
      try {
        return memoryTools(stack, me, { only: ['memory_store'] });
      } catch (error) {
        return error;
      }
    })();
    expect(MemError.is(e, 'INVALID_INPUT')).toBe(true);
    expect((e as Error).message).toMatch(/no tool named "memory_store" on this stack; available: memory-store/);
    expect(() => memoryTools(undefined as never, me)).toThrow(/give the stack createStack returned/);
  });
});
