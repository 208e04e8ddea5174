import { Conversation, createTemplateSummarizer } from '@mem/core';
import { ManualClock } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { at, header, msg, type TranscriptSuite, wordTokenizer } from './fixture.js';

/** Removing one agent, and the conversation service of @mem/core on the store. */
export function removalAndServiceTests(t: TranscriptSuite): void {
  const { setup, another } = t;
  it('remove deletes one agent’s transcript and archives, and nothing else', async () => {
    const { store } = await setup();
    await store.append('acme', 'alice', [msg('user', 'x')], header('c1'));
    await store.compact('acme', 'alice', {
      basis: { conversationId: 'c1', messageCount: 1 },
      header: header('c2'),
      messages: [msg('system', 's')],
      archivedAt: at(0),
    });
    await store.compact('acme', 'alice', {
      basis: { conversationId: 'c2', messageCount: 1 },
      header: header('c3'),
      messages: [msg('system', 's2')],
      archivedAt: at(1),
    });
    await store.append('acme', 'bob', [msg('user', 'y')], header('c4'));
    await store.append('globex', 'alice', [msg('user', 'z')], header('c5'));
    expect(await store.remove('acme', 'alice')).toEqual({ transcripts: 1, archives: 2 });
    expect(await store.read('acme', 'alice')).toBeNull();
    expect(await store.listArchives('acme', 'alice')).toEqual([]);
    expect(await store.agents('acme')).toEqual(['bob']);
    expect((await store.read('globex', 'alice'))?.messages).toHaveLength(1);
    expect(await store.remove('acme', 'alice')).toEqual({ transcripts: 0, archives: 0 });
  });

  it('serves the conversation service: reload as persistent memory, compaction at the threshold', async () => {
    const f = await setup();
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const conv = new Conversation({
      store: f.store,
      space: 'acme',
      agentId: 'alice',
      clock,
      tokenizer: wordTokenizer,
      systemPrompt: 'SYS',
      options: { contextLength: 200 },
    });
    for (let i = 0; i < 30; i++) {
      await conv.maybeCompress();
      await conv.add('user', `fact ${i} one two three four five`);
    }
    expect((await f.store.listArchives('acme', 'alice')).length).toBeGreaterThanOrEqual(1);
    const restarted = new Conversation({
      store: await another(f),
      space: 'acme',
      agentId: 'alice',
      clock,
      tokenizer: wordTokenizer,
      systemPrompt: 'SYS',
      summarizer: createTemplateSummarizer(),
    });
    const history = await restarted.history();
    expect(history[0]).toEqual({ role: 'system', content: 'SYS' });
    expect(history[1]!.content).toContain('[Compressed Memory Summary]');
    expect(history[1]!.content).toContain('fact 29 one two');
  });
}
