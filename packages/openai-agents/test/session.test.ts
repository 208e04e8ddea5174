import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInMemoryKnowledgeStore, createStack, MemError, type Stack } from '@mem/core';
import { createMarkdownStores } from '@mem/store-markdown';
import { createSqliteTranscriptStore } from '@mem/store-sqlite';
import type { AgentInputItem } from '@openai/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemSession } from '../src/index.js';

const ITEMS: AgentInputItem[] = [
  { role: 'user', content: 'Deploy billing to staging, please.' },
  {
    type: 'function_call',
    callId: 'call_1',
    name: 'deploy',
    arguments: '{"service":"billing","env":"staging"}',
    status: 'completed',
  },
  {
    type: 'function_call_result',
    callId: 'call_1',
    name: 'deploy',
    status: 'completed',
    output: { type: 'text', text: 'ok: v42' },
  },
  {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Billing v42 is on staging.\n\nAnything else?  ' }],
    providerData: { nested: { a: [1, null, 'é🙂'] } },
  },
];

const stores = {
  sqlite: (dir: string) => createSqliteTranscriptStore({ path: join(dir, 'mem.db') }),
  markdown: (dir: string) => createMarkdownStores({ root: dir }).transcripts,
};

for (const [name, make] of Object.entries(stores)) {
  describe(`MemSession on the ${name} transcript store`, () => {
    let dir: string;
    let stack: Stack;
    const session = (sessionId = 'chat-1', compaction?: ConstructorParameters<typeof MemSession>[0]['compaction']) =>
      new MemSession({ conversations: stack.conversations, space: 'acme', sessionId, compaction });

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), `mem-agents-${name}-`));
      stack = createStack({ knowledge: createInMemoryKnowledgeStore(), transcripts: make(dir) });
    });
    afterEach(async () => {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('round-trips items exactly, in order, and two sessions on one store see each other', async () => {
      const a = session();
      const b = session();
      expect(await a.getSessionId()).toBe('chat-1');
      await a.addItems(ITEMS.slice(0, 2));
      await b.addItems(ITEMS.slice(2));
      expect(await b.getItems()).toEqual(ITEMS);
      expect(await a.getItems()).toEqual(ITEMS);
      expect(await a.getItems(2)).toEqual(ITEMS.slice(2));
      expect(await a.getItems(0)).toEqual([]);
      expect(await session('other').getItems()).toEqual([]);
      // A new stack on the same files (a restart) reads the same items.
      await stack.close();
      stack = createStack({ knowledge: createInMemoryKnowledgeStore(), transcripts: make(dir) });
      expect(await session().getItems()).toEqual(ITEMS);
    });

    it('redacts a credential inside an item and still returns the item as JSON', async () => {
      const s = session();
      await s.addItems([
        { role: 'user', content: 'my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD, "quoted"' },
      ]);
      const [item] = await s.getItems();
      expect(item).toMatchObject({ role: 'user' });
      expect(String((item as { content: string }).content)).toContain('[REDACTED');
      expect(String((item as { content: string }).content)).not.toContain('sk-proj-abcdef');
      expect(String((item as { content: string }).content)).toContain('"quoted"');
    });

    it('popItem removes and returns the newest item; clearSession empties the session', async () => {
      const a = session();
      await a.addItems(ITEMS);
      expect(await session().popItem()).toEqual(ITEMS[3]);
      expect(await a.getItems()).toEqual(ITEMS.slice(0, 3));
      await a.addItems([{ role: 'user', content: 'and prod?' }]);
      expect((await a.getItems()).at(-1)).toEqual({ role: 'user', content: 'and prod?' });
      await a.clearSession();
      expect(await session().getItems()).toEqual([]);
      expect(await a.popItem()).toBeUndefined();
      expect(await stack.conversations!.archives('acme', 'chat-1')).toEqual([]);
    });

    it('compacts when the budget is reached and keeps the summary as an item', async () => {
      const s = session('long', { contextLength: 400, threshold: 0.5 });
      for (let i = 0; i < 12; i++) {
        await s.addItems([
          { role: 'user', content: `Step ${i}: the build of service number ${i} finished in ${i * 7} seconds.` },
        ]);
        if (s.lastCompaction) break;
      }
      expect(s.lastCompaction?.status).toBe('compacted');
      const items = await s.getItems();
      expect(items[0]).toMatchObject({ type: 'message', role: 'system' });
      expect(String((items[0] as { content: string }).content)).toContain('[Compressed Memory Summary]');
      expect((await stack.conversations!.archives('acme', 'long')).length).toBe(1);
      // New items go on after the summary.
      await s.addItems([{ role: 'user', content: 'after' }]);
      expect((await s.getItems()).at(-1)).toEqual({ role: 'user', content: 'after' });
    });

    it('refuses bad input with clear MemErrors and writes nothing', async () => {
      const s = session();
      const bad: [() => unknown, string, string][] = [
        [() => s.getItems(-1), 'INVALID_INPUT', 'limit'],
        [() => s.getItems(1.5), 'INVALID_INPUT', 'limit'],
        [() => s.addItems('hi' as never), 'INVALID_INPUT', 'array'],
        [() => s.addItems([null as never]), 'INVALID_INPUT', 'item 0'],
        [() => session('bad id/..'), 'INVALID_INPUT', 'agent'],
        [
          () => new MemSession({ conversations: undefined, space: 'acme', sessionId: 'x' }),
          'CAPABILITY_MISSING',
          'transcript',
        ],
        [() => session('x', { threshold: 2 }), 'INVALID_INPUT', 'threshold'],
      ];
      for (const [run, code, text] of bad) {
        const error = await (async () => run())().then(
          () => null,
          (e) => e,
        );
        expect(MemError.is(error, code as never), `${text}: ${String(error)}`).toBe(true);
        expect(error.message).toContain(text);
      }
      expect(await s.getItems()).toEqual([]);
    });
  });
}
