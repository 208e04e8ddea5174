import { createInMemoryKnowledgeStore, createStack, type Principal } from '@mem/core';
import type { Logger } from '@mem/core/adapter';
import { type ChatRequest, startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLlmQueryRewriter, DEFAULT_REWRITE_PROMPT } from './index.js';

// A real OpenAI-compatible server on 127.0.0.1; the model name picks the answer:
//   'split'   → a JSON array splitting the two-part question into one query per part
//   'fenced'  → {"queries": [...]} in a code fence with prose around it
//   'prose'   → no JSON at all
//   'down'    → 500
//   'many'    → eight queries, some blank or repeated
const seen: ChatRequest[] = [];
const USAGE = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 };
const ANSWERS: Record<string, string> = {
  split: JSON.stringify(['Caroline adoption agency', 'Melanie pottery class']),
  fenced: 'Here you go:\n```json\n{"queries": ["ferry timetable pier", "island trip date"]}\n```\nHope it helps.',
  prose: 'I think you should search for the ferry.',
  many: JSON.stringify(['one', ' ', 'two', 'three', 'four', 'five', 'six', 'seven']),
};
let server: Awaited<ReturnType<typeof startFakeChatServer>>;

beforeAll(async () => {
  server = await startFakeChatServer((request, send) => {
    seen.push(request);
    const model = request.body.model as string;
    if (model === 'down') return send(500, { error: { message: 'model crashed' } });
    send(200, {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: ANSWERS[model] ?? '[]' }, finish_reason: 'stop' }],
      usage: USAGE,
    });
  });
});
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
});

const rewriter = (model: string) => createLlmQueryRewriter({ baseURL: server.baseURL, model, maxRetries: 0 });

describe('createLlmQueryRewriter', () => {
  it('asks the model for queries, with the number wanted and secrets redacted, and reads its list', async () => {
    const out = await rewriter('split').rewrite({
      query: 'What did Caroline and Melanie do? token ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      max: 3,
    });
    expect(out.queries).toEqual(['Caroline adoption agency', 'Melanie pottery class']);
    expect(out.usage).toMatchObject({ inputTokens: 120, outputTokens: 30 });
    expect(seen).toHaveLength(1);
    const [system, user] = seen[0]!.body.messages;
    expect(system.content).toBe(DEFAULT_REWRITE_PROMPT.replaceAll('{max}', '3'));
    expect(user.content).toContain('Caroline and Melanie');
    expect(seen[0]!.raw).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(seen[0]!.body.temperature).toBe(0);
  });

  it('reads a wrapped list out of a code fence; drops blanks and keeps at most `max`', async () => {
    expect((await rewriter('fenced').rewrite({ query: 'when is the ferry', max: 3 })).queries).toEqual([
      'ferry timetable pier',
      'island trip date',
    ]);
    expect((await rewriter('many').rewrite({ query: 'x', max: 3 })).queries).toEqual(['one', 'two', 'three']);
  });

  it('fails with INTERNAL saying why when the answer has no list or the server fails', async () => {
    await expect(rewriter('prose').rewrite({ query: 'ferry', max: 3 })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('gave no JSON list of queries'),
    });
    await expect(rewriter('down').rewrite({ query: 'ferry', max: 3 })).rejects.toMatchObject({
      code: 'INTERNAL',
      retryable: true,
    });
  });

  it('refuses bad options with a message that says how to fix them', () => {
    expect(() => createLlmQueryRewriter({ model: '' })).toThrow(/give the chat model name/);
    expect(() => createLlmQueryRewriter({ model: 'm', prompt: ' ' })).toThrow(/`prompt` must be a non-empty text/);
  });

  it('in a stack: a two-part question finds both parts, and a failing model leaves the search as it was', async () => {
    const p: Principal = { space: 's', agentId: 'a', role: 'worker' };
    const store = createInMemoryKnowledgeStore();
    const seed = createStack({ knowledge: store });
    const adoption = await seed.knowledge.store(p, { content: 'Caroline contacted an adoption agency in May.' });
    const pottery = await seed.knowledge.store(p, { content: 'Melanie signed up for a pottery class.' });
    for (let i = 0; i < 5; i++) await seed.knowledge.store(p, { content: `Caroline and Melanie chatted, note ${i}.` });
    const warnings: string[] = [];
    const logger: Logger = { info: () => {}, warn: (m) => warnings.push(m), error: () => {} };
    const query = 'What did Caroline and Melanie do?';
    const plain = (await seed.knowledge.search(p, { query, limit: 3 })).map((r) => r.docId);
    expect(plain).not.toContain(adoption.id);
    const rewritten = createStack({ knowledge: store, queryRewriter: rewriter('split'), logger });
    const found = (await rewritten.knowledge.search(p, { query, limit: 3 })).map((r) => r.docId);
    expect(found).toContain(adoption.id);
    expect(found).toContain(pottery.id);
    const failing = createStack({ knowledge: store, queryRewriter: rewriter('down'), logger });
    expect((await failing.knowledge.search(p, { query, limit: 3 })).map((r) => r.docId)).toEqual(plain);
    expect(warnings).toContain('query rewrite failed: searched the query as given');
  });
});
