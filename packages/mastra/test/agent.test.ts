import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createHashingEmbedder, createStack, type Stack } from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemMastraMemory } from '../src/index.js';
import type { Answer, PromptLines } from './scripted-model.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
let dir: string;
let db: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-mastra-'));
  db = join(dir, 'mem.db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One turn of a real Mastra Agent in a new Node process over the SQLite file (test/child.ts). */
async function processTurn(thread: string, say: string, script: Answer[]) {
  const job = JSON.stringify({ db, thread, resource: 'ben', say, script });
  const { stdout } = await run(
    process.execPath,
    ['--conditions=dev-source', '--import', 'tsx', join(here, 'child.ts'), job],
    {
      cwd: join(here, '..'),
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { text: string; prompts: PromptLines[] };
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
function boot(): { stack: Stack; memory: MemMastraMemory } {
  const stack = createStack({
    stores: createSqliteStores({ path: db }),
    embedder: createHashingEmbedder(),
    logger: quiet,
  });
  const memory = new MemMastraMemory({
    stack,
    space: 'app',
    options: { workingMemory: { enabled: true, template: '# User\n- **Name**:\n' } },
  });
  return { stack, memory };
}

const recallLine = (prompt: PromptLines) => prompt.find((l) => l.includes('Relevant Past Knowledge')) ?? '';

describe('MemMastraMemory as the memory of a real Mastra Agent, across processes', () => {
  it('(a, c) a fact from turn 1 of thread A is recalled in a new process in thread B; working memory shows there', async () => {
    const first = await processTurn('thread-a', 'Hi, I am Ben. I prefer aisle seats on long flights.', [
      { tool: 'updateWorkingMemory', args: { memory: '# User\n- **Name**: Ben\n' } },
      'Noted, Ben.',
    ]);
    expect(first.text).toBe('Noted, Ben.');
    // Nothing known yet: no recall block, empty working memory.
    expect(recallLine(first.prompts[0]!)).toBe('');
    expect(first.prompts[0]!.join('\n')).toContain('<working_memory_data>\n\n</working_memory_data>');

    const later = await processTurn('thread-b', 'Book me a seat on a long flight to Lisbon.', ['An aisle seat, then.']);
    const prompt = later.prompts[0]!;
    expect(recallLine(prompt)).toContain('User prefers aisle seats on long flights.');
    expect(prompt.join('\n')).toContain('<working_memory_data>\n# User\n- **Name**: Ben\n');
    // Thread B's own history holds nothing of thread A: the fact came from mem's recall.
    expect(prompt.filter((l) => l.startsWith('user:'))).toEqual(['user: Book me a seat on a long flight to Lisbon.']);
    expect(prompt.at(-1)).toBe('user: Book me a seat on a long flight to Lisbon.');
  });

  it('(b) the thread and its messages reload in a new process: in the prompt and through the Memory API', async () => {
    const again = await processTurn('thread-a', 'What did I tell you?', ['That you like aisle seats.']);
    const users = again.prompts[0]!.filter((l) => l.startsWith('user:') || l.startsWith('assistant:'));
    expect(users).toEqual([
      'user: Hi, I am Ben. I prefer aisle seats on long flights.',
      'assistant: Noted, Ben.',
      'user: What did I tell you?',
    ]);

    const { stack, memory } = boot();
    try {
      expect(await memory.getThreadById({ threadId: 'thread-a' })).toMatchObject({ id: 'thread-a', resourceId: 'ben' });
      const listed = await memory.listThreads({
        filter: { resourceId: 'ben' },
        orderBy: { field: 'createdAt', direction: 'ASC' },
      });
      expect(listed.threads.map((t) => t.id)).toEqual(['thread-a', 'thread-b']);
      const { messages, total } = await memory.recall({ threadId: 'thread-a', perPage: false });
      expect(total).toBe(messages.length);
      const texts = messages.map(
        (m) =>
          `${m.role}: ${m.content.parts
            .filter((p) => p.type === 'text')
            .map((p) => (p as { text: string }).text)
            .join('')}`,
      );
      expect(texts.filter((t) => !t.endsWith(': '))).toEqual([
        'user: Hi, I am Ben. I prefer aisle seats on long flights.',
        'assistant: Noted, Ben.',
        'user: What did I tell you?',
        'assistant: That you like aisle seats.',
      ]);
      expect(messages.every((m) => m.threadId === 'thread-a' && m.createdAt instanceof Date)).toBe(true);
      expect(await memory.getWorkingMemory({ threadId: 'thread-b', resourceId: 'ben' })).toBe(
        '# User\n- **Name**: Ben\n',
      );
    } finally {
      await stack.close();
    }
  });
});
