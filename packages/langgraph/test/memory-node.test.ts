import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createHashingEmbedder, createStack, MemError, type Stack } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  MemoryAnnotation,
  type MemoryNodeOptions,
  memoryNode,
  memoryPrompt,
  memoryRoute,
  memoryTools,
} from '../src/index.js';
import { type Answer, promptLines, ScriptedChatModel } from './scripted-model.js';

const ben = { space: 'lg', agentId: 'travel', role: 'worker', userId: 'ben' } as const;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One SQLite file; each `boot()` is one process over it (a restart). */
function world() {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lg-node-'));
  dirs.push(dir);
  return {
    boot: () => {
      const stack = createStack({
        stores: createSqliteStores({ path: join(dir, 'mem.db') }),
        embedder: createHashingEmbedder(),
        logger: quiet,
      });
      stacks.push(stack);
      return stack;
    },
  };
}

const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}, 24°C`, {
  name: 'weather',
  description: 'The weather in a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

/** The graph a user writes: memory → agent → (tools → memory → agent)* → memory → end. */
function graph(
  stack: Stack,
  script: Answer[],
  options: Partial<MemoryNodeOptions> = {},
  checkpointer?: MemorySaver,
  tools: StructuredToolInterface[] = [weather],
) {
  const model = new ScriptedChatModel(script);
  const memory = memoryNode({ stack, principal: ben, systemPrompt: 'You are a travel agent.', ...options });
  const app = new StateGraph(MemoryAnnotation)
    .addNode('memory', memory)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(memoryPrompt(state))] }))
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'memory')
    .addConditionalEdges('memory', memoryRoute('agent'))
    .addConditionalEdges('agent', (state) =>
      ((state.messages.at(-1) as AIMessage).tool_calls?.length ?? 0) > 0 ? 'tools' : 'memory',
    )
    .addEdge('tools', 'memory')
    .compile(checkpointer ? { checkpointer } : {});
  return { app, model, memory };
}

const transcript = async (stack: Stack, agentId: string = ben.agentId) =>
  ((await stack.conversations!.store.read(ben.space, agentId))?.messages ?? []).map((m) => `${m.role}: ${m.content}`);

describe('memoryNode: mem inside a LangGraph graph', () => {
  it('writes every message through, the answer too, and the next process sends the history from mem', async () => {
    const w = world();
    const first = graph(w.boot(), ['Lisbon is lovely in May.']);
    await first.app.invoke({ messages: [new HumanMessage('I am planning a trip to Lisbon.')] });
    const stack = w.boot();
    expect(await transcript(stack)).toEqual([
      'user: I am planning a trip to Lisbon.',
      'assistant: Lisbon is lovely in May.',
    ]);

    const second = graph(stack, ['Noted: May.']);
    await second.app.invoke({ messages: [new HumanMessage('Which month did you say?')] });
    const lines = promptLines(second.model.prompts[0]!);
    expect(lines[0]).toMatch(/^system: You are a travel agent\./);
    // mem's history: one message with the transcript's lines, oldest first.
    expect(lines.join('\n')).toMatch(/user: I am planning a trip to Lisbon\.\n.*assistant: Lisbon is lovely in May\./);
    expect(lines.at(-1)).toBe('human: Which month did you say?');
    expect(await transcript(stack)).toHaveLength(4);
  });

  it('a tool loop: the call and its results go to the model in their own format and to the transcript as lines', async () => {
    const w = world();
    const stack = w.boot();
    const { app, model } = graph(stack, [
      { calls: [{ name: 'weather', args: { city: 'Lisbon' }, id: 'call-7' }] },
      'It is sunny, 24°C.',
    ]);
    const out = await app.invoke({ messages: [new HumanMessage('What is the weather in Lisbon?')] });
    expect(out.messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'ai']);
    const second = model.prompts[1]!;
    const call = second.at(-2) as AIMessage;
    expect(call.tool_calls?.[0]).toMatchObject({ name: 'weather', id: 'call-7' });
    expect(second.at(-1)).toBeInstanceOf(ToolMessage);
    expect((second.at(-1) as ToolMessage).tool_call_id).toBe('call-7');
    expect(promptLines(second).join('\n')).toContain('user: What is the weather in Lisbon?');
    expect(await transcript(stack)).toEqual([
      'user: What is the weather in Lisbon?',
      'assistant: [tool call weather #call-7] {"city":"Lisbon"}',
      'tool: [tool result weather #call-7] Sunny in Lisbon, 24°C',
      'assistant: It is sunny, 24°C.',
    ]);
  });

  it('recalls what mem knows into the prompt, for the latest human message, also inside a tool loop', async () => {
    const stack = world().boot();
    await stack.knowledge.store(ben, { content: 'Ben is allergic to peanuts.', name: 'allergy' });
    const { app, model, memory } = graph(stack, [
      { calls: [{ name: 'weather', args: { city: 'Porto' }, id: 'c1' }] },
      'Booked a peanut-free dinner.',
    ]);
    await app.invoke({ messages: [new HumanMessage('Book a dinner in Porto; I am allergic to peanuts')] });
    expect(model.prompts).toHaveLength(2);
    for (const prompt of model.prompts) {
      const recall = promptLines(prompt).find((l) => l.includes('Relevant Past Knowledge')) ?? '';
      expect(recall).toContain('allergic to peanuts');
    }
    expect(memory.lastReport!.recalled.map((r) => r.name)).toContain('allergy');
  });

  it("the state's own system messages join the system prompt and are not written as conversation", async () => {
    const stack = world().boot();
    const { app, model } = graph(stack, ['Bonjour.']);
    await app.invoke({ messages: [new SystemMessage('Answer in French.'), new HumanMessage('Hello')] });
    const lines = promptLines(model.prompts[0]!);
    expect(lines.filter((l) => l.startsWith('system:')).join('\n')).toContain('Answer in French.');
    expect(await transcript(stack)).toEqual(['user: Hello', 'assistant: Bonjour.']);
  });

  it("with LangGraph's own checkpointer the thread's messages are written once", async () => {
    const stack = world().boot();
    const saver = new MemorySaver();
    const { app, model } = graph(stack, ['One.', 'Two.'], {}, saver);
    const config = { configurable: { thread_id: 't1' } };
    await app.invoke({ messages: [new HumanMessage('first question')] }, config);
    await app.invoke({ messages: [new HumanMessage('second question')] }, config);
    expect(await transcript(stack)).toEqual([
      'user: first question',
      'assistant: One.',
      'user: second question',
      'assistant: Two.',
    ]);
    const lines = promptLines(model.prompts[1]!);
    expect(lines.join('\n').split('first question')).toHaveLength(2);
    expect(lines.at(-1)).toBe('human: second question');
  });

  it('a small window compacts: the prompt keeps the summary and the newest turn', async () => {
    const stack = world().boot();
    const answers = Array.from({ length: 8 }, (_, i) => `Answer ${i}: the itinerary has stop number ${i} in it.`);
    const compactions: string[] = [];
    const { app, model, memory } = graph(stack, answers, {
      contextWindow: 400,
      threshold: 0.5,
      onReport: (r) => r.compaction && compactions.push(r.compaction.status),
    });
    for (let i = 0; i < 8; i++) {
      await app.invoke({
        messages: [new HumanMessage(`Question ${i}: add stop number ${i} to the itinerary please.`)],
      });
    }
    const last = promptLines(model.prompts.at(-1)!);
    expect(compactions).toContain('compacted');
    expect(last.join('\n')).toContain('[Compressed Memory Summary]');
    expect(last.at(-1)).toBe('human: Question 7: add stop number 7 to the itinerary please.');
    expect(memory.lastReport!.tokens).toBeLessThan(400);
  });

  it('distils with no extra code: a change of mind is current for the user in the next process', async () => {
    const w = world();
    const first = graph(w.boot(), ['Noted.']);
    await first.app.invoke({ messages: [new HumanMessage('I prefer morning flights.')] });
    await first.app.invoke({ messages: [new HumanMessage('Actually, afternoon flights suit me better now.')] });
    await first.memory.flush();

    const stack = w.boot();
    const later = graph(stack, ['Booked.'], { principal: { ...ben, agentId: 'concierge' } });
    await later.app.invoke({ messages: [new HumanMessage('Book me flights to Lisbon.')] });
    const recall = promptLines(later.model.prompts[0]!).find((l) => l.includes('Relevant Past Knowledge')) ?? '';
    expect(recall).toContain('afternoon flights');
    expect(recall).not.toContain('morning flights');
    const history = await stack.knowledge.search(ben, { query: 'flights', history: true });
    expect(history.map((r) => r.content).sort()).toEqual([
      'User prefers afternoon flights.',
      'User prefers morning flights.',
    ]);
  });

  it('distill: false turns it off', async () => {
    const stack = world().boot();
    const { app, memory } = graph(stack, ['Noted.'], { distill: false });
    await app.invoke({ messages: [new HumanMessage('I prefer morning flights.')] });
    await memory.flush();
    expect(memory.lastReport!.distillation).toBeNull();
    const found = await stack.knowledge.search(ben, { query: 'flights' });
    expect(found.filter((r) => r.source === 'distilled')).toEqual([]);
  });

  it('the principal can come from the run config: one graph, a transcript per thread', async () => {
    const stack = world().boot();
    const { app } = graph(stack, ['Hi.'], {
      principal: (config) => ({ ...ben, agentId: String(config.configurable?.thread_id) }),
    });
    await app.invoke({ messages: [new HumanMessage('from thread a')] }, { configurable: { thread_id: 'thread-a' } });
    await app.invoke({ messages: [new HumanMessage('from thread b')] }, { configurable: { thread_id: 'thread-b' } });
    expect(await transcript(stack, 'thread-a')).toEqual(['user: from thread a', 'assistant: Hi.']);
    expect(await transcript(stack, 'thread-b')).toEqual(['user: from thread b', 'assistant: Hi.']);
  });

  it('the model ends a task with the task-end tool, and a later run recalls what the task did', async () => {
    const stack = world().boot();
    const summary = 'Booked the Riverside hotel in Lisbon for May 3-10; the river view rooms were the only ones left.';
    const tools = [weather, ...memoryTools(stack, ben, { only: ['task-end'] })];
    const { app } = graph(
      stack,
      [{ calls: [{ name: 'task-end', args: { taskId: 'T-7', summary, outcome: 'success' }, id: 'end-1' }] }, 'Done.'],
      { taskId: 'T-7' },
      undefined,
      tools,
    );
    const out = await app.invoke({ messages: [new HumanMessage('Book the Lisbon hotel, then close the task.')] });
    const result = JSON.parse(String((out.messages.at(-2) as ToolMessage).content));
    expect(result).toMatchObject({ taskId: 'T-7', stored: { id: expect.any(String) } });
    const found = await stack.knowledge.search(ben, { query: 'Lisbon hotel booked river', limit: 5 });
    expect(found.find((r) => r.source === 'task_completion')?.content).toContain('Riverside hotel');

    const later = graph(stack, ['The Riverside.']);
    await later.app.invoke({ messages: [new HumanMessage('Which hotel did we book in Lisbon?')] });
    const recall = promptLines(later.model.prompts[0]!).find((l) => l.includes('Relevant Past Knowledge')) ?? '';
    expect(recall).toContain('Riverside hotel');
  });

  it('bad input gets a clear error and writes nothing', async () => {
    const stack = world().boot();
    expect(() => memoryNode(undefined as never)).toThrow(MemError);
    expect(() => memoryNode({ stack } as never)).toThrow(/principal/);
    const memory = memoryNode({ stack, principal: ben });
    const noId = new HumanMessage('hello');
    await expect(memory({ messages: [noId] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory({ messages: [noId] })).rejects.toThrow(/message 0 of the state has no id/);
    await expect(memory({} as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(() => memoryNode({ stack, principal: ben, distillTokens: -1 })).toThrow(MemError);
    expect(await transcript(stack)).toEqual([]);
  });
});
