/**
 * A MemSession over a whole stack distils what the user says (docs/formation.md): through a real Agents SDK run, the
 * items read as their words, a change of mind superseding across processes on one SQLite file, tool output never
 * read, distillation before a compaction, and off with `distill: false`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, MemError, type Principal, type Stack } from '@mem/core';
import { createSqliteStore, createSqliteStructuredStores, createSqliteTranscriptStore } from '@mem/store-sqlite';
import { startFakeChatServer } from '@mem/testkit/internal';
import { Agent, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemSession } from '../src/index.js';

setTracingDisabled(true);

let dir: string;
let server: Awaited<ReturnType<typeof startFakeChatServer>>;
const opened: Stack[] = [];

/** One "process": a stack over the SQLite file. */
function boot(): Stack {
  const db = join(dir, 'mem.db');
  const stack = createStack({
    knowledge: createSqliteStore({ path: db }),
    embedder: createHashingEmbedder(),
    transcripts: createSqliteTranscriptStore({ path: db }),
    structured: createSqliteStructuredStores({ path: db }),
  });
  opened.push(stack);
  return stack;
}

const ben: Principal = { space: 'acme', agentId: 'desk', role: 'worker', userId: 'ben' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-agents-distill-'));
  server = await startFakeChatServer((_request, send) =>
    send(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Noted.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    }),
  );
});

afterAll(async () => {
  await server.close();
  for (const s of opened) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const agentRunner = () =>
  new Runner({
    modelProvider: new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'test-key', useResponses: false }),
    tracingDisabled: true,
  });
const agent = () => new Agent({ name: 'travel', instructions: 'Be brief.', model: 'fake-model' });

describe('MemSession distillation', () => {
  it('a real run: the change of mind is current in the next process, the old preference is history', async () => {
    const stack = boot();
    const session = new MemSession({ stack, space: 'acme', sessionId: 'chat-1', userId: 'ben' });
    const runner = agentRunner();
    await runner.run(agent(), 'I prefer morning flights.', { session });
    await runner.run(agent(), 'Actually, afternoon flights suit me better now.', { session });
    const run = await session.flush();
    expect(run).toMatchObject({ trigger: 'flush', error: null });
    const runs = session.distillation()!.finished;
    expect(runs.reduce((n, r) => n + r.add + r.update, 0)).toBe(2);

    const next = boot();
    const current = await next.knowledge.search(ben, { query: 'flights' });
    expect(current.filter((r) => r.source === 'distilled').map((r) => r.content)).toEqual([
      'User prefers afternoon flights.',
    ]);
    const history = await next.knowledge.search(ben, { query: 'flights', history: true });
    expect(history.map((r) => r.content).sort()).toEqual([
      'User prefers afternoon flights.',
      'User prefers morning flights.',
    ]);
    const why = await next.knowledge.why(ben, { id: current[0]!.docId });
    expect(why.decisions.some((e) => e.decision === 'update' && e.evidence.length === 1)).toBe(true);

    // Forgetting the session forgets what rested on it alone: both memories and their log.
    await new MemSession({ stack: next, space: 'acme', sessionId: 'chat-1', userId: 'ben' }).clearSession();
    expect(await next.knowledge.search(ben, { query: 'flights', history: true })).toEqual([]);
  });

  it('never reads a tool result, distils before a compaction archives, and can be turned off', async () => {
    const stack = boot();
    const session = new MemSession({
      stack,
      space: 'acme',
      sessionId: 'chat-2',
      userId: 'ada',
      distillTokens: 1_000_000,
      compaction: { contextLength: 300, threshold: 0.5, strategy: 'sliding-window' },
    });
    await session.addItems([
      { role: 'user', content: 'My dog is called Pixel.' },
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'fetch',
        status: 'completed',
        output: { type: 'text', text: 'I live in Oslo.' },
      },
    ]);
    await session.addItems([{ role: 'user', content: 'Tell me about the weather in the mountains. '.repeat(30) }]);
    expect(session.lastCompaction?.status).toBe('compacted');
    const ada = { ...ben, userId: 'ada' };
    expect((await stack.knowledge.search(ada, { query: 'dog Pixel' })).map((r) => r.content)).toContain(
      'User has a dog named Pixel.',
    );
    expect(
      (await stack.knowledge.search(ada, { query: 'Oslo live', history: true })).map((r) => r.content).join('\n'),
    ).not.toContain('Oslo');

    const off = new MemSession({ stack, space: 'acme', sessionId: 'chat-3', userId: 'cy', distill: false });
    await off.addItems([{ role: 'user', content: 'I love jazz.' }]);
    expect(await off.flush()).toBeNull();
    expect(off.distillation()).toBeNull();
    const cy = { ...ben, userId: 'cy' };
    expect((await stack.knowledge.search(cy, { query: 'jazz' })).filter((r) => r.source === 'distilled')).toEqual([]);
  });

  it('refuses options that cannot work', () => {
    const stack = boot();
    const bad: ConstructorParameters<typeof MemSession>[0][] = [
      { conversations: stack.conversations, space: 'acme', sessionId: 's', distill: true },
      { stack, space: 'acme', sessionId: 's', distillTokens: 0 },
      { stack, space: 'acme', sessionId: 's', userId: '' },
    ];
    for (const options of bad) {
      expect(() => new MemSession(options)).toThrow(MemError);
    }
  });
});
