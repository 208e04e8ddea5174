import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '@mastra/core/agent';
import type { MastraDBMessage } from '@mastra/core/agent/message-list';
import { createHashingEmbedder, createStack, MemError, type Stack } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MemMastraMemory, type MemMastraMemoryOptions } from '../src/index.js';
import { scriptedModel } from './scripted-model.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const dirs: string[] = [];
const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setup(options: Partial<MemMastraMemoryOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-mastra-api-'));
  dirs.push(dir);
  const stack = createStack({
    stores: createSqliteStores({ path: join(dir, 'mem.db') }),
    embedder: createHashingEmbedder(),
    logger: quiet,
  });
  stacks.push(stack);
  return { stack, memory: new MemMastraMemory({ stack, space: 'app', ...options }) };
}

const message = (id: string, text: string, threadId = 't1', role: 'user' | 'assistant' = 'user'): MastraDBMessage => ({
  id,
  role,
  threadId,
  resourceId: 'ben',
  createdAt: new Date(`2026-01-01T00:00:0${id.slice(-1)}.000Z`),
  content: { format: 2, parts: [{ type: 'text', text }] },
});

async function rejection(p: Promise<unknown> | (() => unknown)) {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (error) {
    return error as MemError;
  }
  throw new Error('expected a rejection');
}

describe('(d) bad input', () => {
  it('a bad thread or resource id is INVALID_INPUT naming the id and the rule', async () => {
    const { memory } = setup();
    for (const bad of ['', 'has space', '../up', 'a/b', 'x'.repeat(81), '.hidden']) {
      const e = await rejection(memory.getThreadById({ threadId: bad }));
      expect(e).toBeInstanceOf(MemError);
      expect(e.code).toBe('INVALID_INPUT');
      expect(e.message).toContain('getThreadById: invalid Mastra threadId');
    }
    const e = await rejection(memory.createThread({ resourceId: 'ben smith', threadId: 'ok-1' }));
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toContain('invalid Mastra resourceId "ben smith"');
    const missing = await rejection(
      memory.saveMessages({ messages: [{ ...message('m1', 'x'), threadId: undefined }] }),
    );
    expect(missing.message).toContain('saveMessages (message 0): invalid Mastra threadId undefined');
    expect((await rejection(memory.recall({ threadId: 't1', page: -1 }))).message).toContain('page must be');
  });

  it('bad options are refused when the memory is made', () => {
    expect(() => new MemMastraMemory(undefined as never)).toThrow(/needs \{ stack, space \}/);
    const { stack } = setup();
    expect(() => new MemMastraMemory({ stack, space: 'a/b' })).toThrow(MemError);
    expect(() => new MemMastraMemory({ stack, space: 'app', options: { semanticRecall: { topK: 0 } } })).toThrow(
      /topK must be a whole number from 1 to 50/,
    );
    expect(
      () =>
        new MemMastraMemory({
          stack,
          space: 'app',
          options: { workingMemory: { enabled: true, schema: {} } as never },
        }),
    ).toThrow(/schema is not supported/);
  });

  it('an Agent run with a bad thread id fails with the message of the MemError before the model is called', async () => {
    const { memory } = setup();
    const { model, prompts } = scriptedModel(['never']);
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'Hi.', model, memory });
    const e = await rejection(agent.generate('hello', { memory: { thread: 'no good', resource: 'ben' } }));
    // Mastra's workflow engine re-creates the error it caught (a plain Error): the MemError's message survives.
    expect(e.message).toContain('getThreadById: invalid Mastra threadId "no good"');
    expect(prompts).toHaveLength(0);
  });
});

describe('the MastraMemory contract on mem', () => {
  it('saving a message again updates it (one message, newest version); deleteMessages removes it for real', async () => {
    const { stack, memory } = setup();
    await memory.saveThread({ thread: { id: 't1', resourceId: 'ben', createdAt: new Date(), updatedAt: new Date() } });
    await memory.saveMessages({ messages: [message('m1', 'first'), message('m2', 'second', 't1', 'assistant')] });
    await memory.saveMessages({
      messages: [message('m1', 'first'), message('m2', 'second, edited', 't1', 'assistant')],
    });
    const { messages } = await memory.recall({ threadId: 't1' });
    expect(messages.map((m) => [m.id, (m.content.parts[0] as { text: string }).text])).toEqual([
      ['m1', 'first'],
      ['m2', 'second, edited'],
    ]);
    await memory.deleteMessages(['m2']);
    expect((await memory.recall({ threadId: 't1' })).messages.map((m) => m.id)).toEqual(['m1']);
    const raw = (await stack.conversations!.store.read('app', 't1'))!.messages.map((m) => m.content).join('\n');
    expect(raw).not.toContain('second');
  });

  it('pages, orders and filters like Mastra storage', async () => {
    const { memory } = setup();
    await memory.saveMessages({ messages: [1, 2, 3, 4, 5].map((i) => message(`m${i}`, `text ${i}`)) });
    const desc = await memory.recall({
      threadId: 't1',
      perPage: 2,
      page: 0,
      orderBy: { field: 'createdAt', direction: 'DESC' },
    });
    expect(desc.messages.map((m) => m.id)).toEqual(['m5', 'm4']);
    expect(desc).toMatchObject({ total: 5, page: 0, perPage: 2, hasMore: true });
    const ranged = await memory.recall({
      threadId: 't1',
      filter: { dateRange: { start: new Date('2026-01-01T00:00:02.000Z'), startExclusive: true } },
    });
    expect(ranged.messages.map((m) => m.id)).toEqual(['m3', 'm4', 'm5']);
  });

  it('updateThread, cloneThread and deleteThread', async () => {
    const { stack, memory } = setup();
    await memory.saveMessages({ messages: [message('m1', 'one'), message('m2', 'two')] });
    expect(await memory.getThreadById({ threadId: 't1' })).toMatchObject({ id: 't1', resourceId: 'ben' });
    const updated = await memory.updateThread({ id: 't1', title: 'Trip', metadata: { topic: 'travel' } });
    expect(updated).toMatchObject({ title: 'Trip', metadata: { topic: 'travel' } });
    expect((await memory.listThreads({ filter: { metadata: { topic: 'travel' } } })).threads.map((t) => t.id)).toEqual([
      't1',
    ]);
    const clone = await memory.cloneThread({ sourceThreadId: 't1', newThreadId: 't2', options: { messageLimit: 1 } });
    expect(clone.thread.metadata).toMatchObject({ clone: { sourceThreadId: 't1', lastMessageId: 'm2' } });
    expect(
      (await memory.recall({ threadId: 't2' })).messages.map((m) => (m.content.parts[0] as { text: string }).text),
    ).toEqual(['two']);
    await memory.deleteThread('t1');
    expect(await memory.getThreadById({ threadId: 't1' })).toBeNull();
    expect(await stack.conversations!.store.read('app', 't1')).toBeNull();
    expect((await memory.listThreads()).threads.map((t) => t.id)).toEqual(['t2']);
    await expect(memory.updateThread({ id: 't1', title: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('thread-scoped working memory lives in the thread and shows in the prompt of a real Agent', async () => {
    const { memory } = setup({ options: { workingMemory: { enabled: true, scope: 'thread', template: '- Mood:' } } });
    const { model, prompts } = scriptedModel([
      { tool: 'updateWorkingMemory', args: { memory: '- Mood: cheerful' } },
      'ok',
      'still ok',
    ]);
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'Hi.', model, memory });
    await agent.generate('I feel great', { memory: { thread: 'wm-1', resource: 'ben' } });
    expect((await memory.getThreadById({ threadId: 'wm-1' }))?.metadata?.workingMemory).toBe('- Mood: cheerful');
    await agent.generate('And now?', { memory: { thread: 'wm-1', resource: 'ben' } });
    expect(prompts.at(-1)!.join('\n')).toContain('<working_memory_data>\n- Mood: cheerful\n</working_memory_data>');
    expect(await memory.getWorkingMemory({ threadId: 'wm-2', resourceId: 'ben' })).toBeNull();
  });

  it('lastMessages bounds the history; semanticRecall: false leaves the recall block out', async () => {
    const { memory, stack } = setup({ options: { lastMessages: 2, semanticRecall: false } });
    await stack.knowledge.store(
      { space: 'app', agentId: 'x', role: 'worker', userId: 'ben' },
      { content: 'Ben prefers aisle seats.' },
    );
    await memory.saveMessages({ messages: [1, 2, 3].map((i) => message(`m${i}`, `earlier ${i}`)) });
    const { model, prompts } = scriptedModel(['ok']);
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'Hi.', model, memory });
    await agent.generate('Which seats does Ben prefer?', { memory: { thread: 't1', resource: 'ben' } });
    expect(prompts[0]).toEqual([
      'system: Hi.',
      'user: earlier 2',
      'user: earlier 3',
      'user: Which seats does Ben prefer?',
    ]);
  });
});
