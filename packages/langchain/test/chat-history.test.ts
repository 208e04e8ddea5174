import {
  AIMessage,
  ChatMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { createInMemoryKnowledgeStore, createStack, MemError } from '@mem/core';
import { afterEach, describe, expect, it } from 'vitest';
import { MemChatMessageHistory } from '../src/index.js';
import { assistant, type MessageData, messageData } from './chain.js';
import { cleanup, inChild, world } from './world.js';

afterEach(cleanup);

const SPACE = 'acme';

/** A conversation with every kind of message, tool calls and results included. */
const CONVERSATION = () => [
  new SystemMessage('Answer briefly.'),
  new HumanMessage('Deploy billing to staging, then tell me the weather in Lisbon.'),
  new AIMessage({
    content: 'Deploying now.',
    tool_calls: [
      { type: 'tool_call', name: 'deploy', args: { service: 'billing', env: 'staging' }, id: 'call_1' },
      { type: 'tool_call', name: 'weather', args: { city: 'Lisbon', units: { temp: 'C' } }, id: 'call_2' },
    ],
  }),
  new ToolMessage({ content: 'ok: v42', tool_call_id: 'call_1', name: 'deploy' }),
  new ToolMessage({ content: 'timeout\nafter 30 s', tool_call_id: 'call_2', name: 'weather', status: 'error' }),
  new AIMessage({
    content: '',
    tool_calls: [{ type: 'tool_call', name: 'weather', args: { city: 'Lisbon' }, id: 'call_3' }],
  }),
  new ToolMessage({ content: 'Sunny, 24°C', tool_call_id: 'call_3', name: 'weather' }),
  new AIMessage('Billing v42 is on staging.\n\nLisbon: sunny, 24°C 🙂'),
];

const EXPECTED: MessageData[] = [
  { type: 'system', content: 'Answer briefly.' },
  { type: 'human', content: 'Deploy billing to staging, then tell me the weather in Lisbon.' },
  {
    type: 'ai',
    content: 'Deploying now.',
    tool_calls: [
      { name: 'deploy', args: { service: 'billing', env: 'staging' }, id: 'call_1' },
      { name: 'weather', args: { city: 'Lisbon', units: { temp: 'C' } }, id: 'call_2' },
    ],
  },
  { type: 'tool', content: 'ok: v42', tool_call_id: 'call_1', name: 'deploy' },
  { type: 'tool', content: 'timeout\nafter 30 s', tool_call_id: 'call_2', name: 'weather', status: 'error' },
  { type: 'ai', content: '', tool_calls: [{ name: 'weather', args: { city: 'Lisbon' }, id: 'call_3' }] },
  { type: 'tool', content: 'Sunny, 24°C', tool_call_id: 'call_3', name: 'weather' },
  { type: 'ai', content: 'Billing v42 is on staging.\n\nLisbon: sunny, 24°C 🙂' },
];

const transcript = async (stack: ReturnType<ReturnType<typeof world>['boot']>, agentId: string) =>
  ((await stack.conversations!.store.read(SPACE, agentId))?.messages ?? []).map((m) => `${m.role}: ${m.content}`);

describe('MemChatMessageHistory', () => {
  it('round-trips human, ai (tool calls included), system and tool messages; the transcript stays readable', async () => {
    const stack = world().boot();
    const history = new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'chat-1', distill: false });
    await history.addMessages(CONVERSATION().slice(0, 4));
    for (const m of CONVERSATION().slice(4)) await history.addMessage(m);
    expect((await history.getMessages()).map(messageData)).toEqual(EXPECTED);
    // Another history on the same session sees the same conversation; another session sees nothing.
    const again = new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'chat-1' });
    expect((await again.getMessages()).map(messageData)).toEqual(EXPECTED);
    expect(await new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'chat-2' }).getMessages()).toEqual([]);
    // What the summariser, the distiller and `mem convo show` read: one line per tool call and result.
    expect(await transcript(stack, 'chat-1')).toEqual([
      'system: Answer briefly.',
      'user: Deploy billing to staging, then tell me the weather in Lisbon.',
      'assistant: Deploying now.\n[tool call deploy #call_1] {"service":"billing","env":"staging"}\n[tool call weather #call_2] {"city":"Lisbon","units":{"temp":"C"}}',
      'tool: [tool result deploy #call_1] ok: v42',
      'tool: [tool error weather #call_2] timeout\nafter 30 s',
      'assistant: [tool call weather #call_3] {"city":"Lisbon"}',
      'tool: [tool result weather #call_3] Sunny, 24°C',
      'assistant: Billing v42 is on staging.\n\nLisbon: sunny, 24°C 🙂',
    ]);
  });

  it('survives a new process: a child reads what this process wrote, and this process reads what it added', async () => {
    const w = world();
    const stack = w.boot();
    const history = new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'chat-1', distill: false });
    await history.addMessages(CONVERSATION());
    await stack.close();

    const read = await inChild<{ pid: number; messages: MessageData[] }>({
      task: 'history-read',
      db: w.db,
      space: SPACE,
      sessionId: 'chat-1',
    });
    expect(read.pid).not.toBe(process.pid);
    expect(read.messages).toEqual(EXPECTED);

    await inChild({
      task: 'history-append',
      db: w.db,
      space: SPACE,
      sessionId: 'chat-1',
      text: 'Written by the child.',
    });
    const later = new MemChatMessageHistory({ stack: w.boot(), space: SPACE, sessionId: 'chat-1' });
    const messages = (await later.getMessages()).map(messageData);
    expect(messages).toHaveLength(EXPECTED.length + 1);
    expect(messages.at(-1)).toEqual({ type: 'ai', content: 'Written by the child.' });
  });

  it('a small window compacts; the summary comes back as the first, system, message and is kept pass after pass', async () => {
    const stack = world().boot();
    const history = new MemChatMessageHistory({
      stack,
      space: SPACE,
      sessionId: 'long',
      compaction: { contextLength: 400, threshold: 0.5 },
    });
    const outcomes: string[] = [];
    for (let i = 0; i < 16; i++) {
      await history.addMessages([
        new HumanMessage(`Question ${i}: add stop number ${i} to the itinerary please.`),
        new AIMessage(`Answer ${i}: the itinerary has stop number ${i} in it.`),
      ]);
      if (history.lastCompaction) outcomes.push(history.lastCompaction.status);
    }
    expect(outcomes.filter((s) => s === 'compacted').length).toBeGreaterThanOrEqual(2);
    const messages = await history.getMessages();
    expect(messages[0]).toBeInstanceOf(SystemMessage);
    const summary = String(messages[0]!.content);
    expect(summary.startsWith('[Compressed Memory Summary]')).toBe(true);
    // One summary: the earlier summary is carried into the next (the first turn is still in it), and the newest turn.
    expect(messages.filter((m) => String(m.content).includes('[Compressed Memory Summary]'))).toHaveLength(1);
    expect(summary).toContain('Question 0');
    expect(messages.map((m) => String(m.content)).join('\n')).toContain('Answer 15: the itinerary has stop number 15');
    expect((await stack.conversations!.archives(SPACE, 'long')).length).toBe(
      outcomes.filter((s) => s === 'compacted').length,
    );
    // New messages go on after the summary (or into the next summary, when they fill the window again).
    await history.addMessage(new HumanMessage('And one more stop, please.'));
    const after = await history.getMessages();
    expect(String(after[0]!.content).startsWith('[Compressed Memory Summary]')).toBe(true);
    expect(after.map((m) => String(m.content)).join('\n')).toContain('And one more stop, please.');
  });

  it('with RunnableWithMessageHistory, a small-window conversation is compacted and the prompt keeps the summary', async () => {
    const stack = world().boot();
    const answers = Array.from({ length: 10 }, (_, i) => `Answer ${i}: stop number ${i} is on the itinerary.`);
    const app = assistant(stack, {
      space: SPACE,
      userId: 'ana',
      answers,
      compaction: { contextLength: 400, threshold: 0.5 },
    });
    for (let i = 0; i < 10; i++) await app.ask('trip', `Question ${i}: add stop number ${i} to the itinerary please.`);
    const compacted = app.histories.map((h) => h.lastCompaction?.status).filter((s) => s === 'compacted');
    expect(compacted.length).toBeGreaterThanOrEqual(1);
    const last = app.prompts.at(-1)!;
    expect(last[0]).toMatch(/^system: You are a travel assistant\./);
    expect(last[1]).toMatch(/^system: \[Compressed Memory Summary\]/);
    expect(last.at(-1)).toBe('human: Question 9: add stop number 9 to the itinerary please.');
    expect((await transcript(stack, 'trip')).join('\n')).toContain('Answer 9: stop number 9 is on the itinerary.');
    await app.flush();
  });

  it('reads what other clients wrote: a tool result without its call comes back as a human message', async () => {
    const stack = world().boot();
    const conversation = stack.conversations!.open({ space: SPACE, agentId: 'foreign' });
    await conversation.addMany([
      { role: 'tool', content: '[tool result weather #gone] Sunny' },
      { role: 'tool', content: 'a tool line in no known format' },
      { role: 'assistant', content: 'Plain answer.\n[tool call broken #x] not json' },
    ]);
    const messages = await new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'foreign' }).getMessages();
    expect(messages.map(messageData)).toEqual([
      { type: 'human', content: '[tool result weather #gone] Sunny' },
      { type: 'human', content: 'a tool line in no known format' },
      { type: 'ai', content: 'Plain answer.\n[tool call broken #x] not json' },
    ]);
  });

  it('keeps the text of content blocks, redacts credentials, skips empty messages, and clear() empties it', async () => {
    const stack = world().boot();
    const history = new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'chat-1' });
    await history.addMessages([
      new HumanMessage({
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      }),
      new AIMessage(''),
      new ChatMessage('my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD', 'user'),
    ]);
    const messages = (await history.getMessages()).map(messageData);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toEqual({ type: 'human', content: 'What is in this picture?\n[image_url]' });
    expect(String(messages[1]!.content)).toContain('[REDACTED');
    expect(String(messages[1]!.content)).not.toContain('sk-proj-abcdef');
    await history.clear();
    expect(await history.getMessages()).toEqual([]);
    expect(await stack.conversations!.archives(SPACE, 'chat-1')).toEqual([]);
  });

  it('refuses bad input with MemErrors of stable codes and clear messages, and writes nothing', async () => {
    const stack = world().boot();
    const history = new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'chat-1' });
    const noTranscripts = createStack({ knowledge: createInMemoryKnowledgeStore() });
    const bad: [() => unknown, string, string][] = [
      [() => new MemChatMessageHistory(undefined as never), 'INVALID_INPUT', 'needs { stack, space, sessionId }'],
      [() => new MemChatMessageHistory({ stack, space: '', sessionId: 'x' }), 'INVALID_INPUT', 'space'],
      [() => new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'bad/id' }), 'INVALID_INPUT', 'agent'],
      [() => new MemChatMessageHistory({ stack, space: SPACE, sessionId: 42 as never }), 'INVALID_INPUT', 'agent'],
      [
        () => new MemChatMessageHistory({ stack: noTranscripts, space: SPACE, sessionId: 'x' }),
        'CAPABILITY_MISSING',
        'transcript store',
      ],
      [
        () => new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'x', distillTokens: 0 }),
        'INVALID_INPUT',
        'distillTokens',
      ],
      [
        () => new MemChatMessageHistory({ stack, space: SPACE, sessionId: 'x', compaction: { threshold: 2 } }),
        'INVALID_INPUT',
        'threshold',
      ],
      [
        () =>
          new MemChatMessageHistory({
            conversations: stack.conversations,
            space: SPACE,
            sessionId: 'x',
            distill: true,
          }),
        'INVALID_INPUT',
        'distill needs `stack`',
      ],
      [() => history.addMessages('hi' as never), 'INVALID_INPUT', 'array of LangChain messages'],
      [() => history.addMessages([{ role: 'user', content: 'hi' } as never]), 'INVALID_INPUT', 'message 0 is not'],
      [() => history.addMessage('hi' as never), 'INVALID_INPUT', 'new HumanMessage(text)'],
      [
        () => history.addMessages([new HumanMessage('ok'), new RemoveMessage({ id: 'm1' })]),
        'INVALID_INPUT',
        'message 1 is a "remove" message',
      ],
      [() => history.addMessage(new ChatMessage('hm', 'critic')), 'INVALID_INPUT', 'role "critic"'],
    ];
    for (const [run, code, text] of bad) {
      const error = await (async () => run())().then(
        () => null,
        (e) => e,
      );
      expect(MemError.is(error, code as never), `${text}: ${String(error)}`).toBe(true);
      expect(error.message).toContain(text);
    }
    expect(await history.getMessages()).toEqual([]);
    await noTranscripts.close();
  });
});
