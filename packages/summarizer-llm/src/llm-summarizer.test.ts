import type { IncomingHttpHeaders } from 'node:http';
import { Conversation, createInMemoryTranscriptStore, type TranscriptMessage } from '@mem/core';
import { ManualClock, silentLogger } from '@mem/core/adapter';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLlmSummarizer, DEFAULT_SUMMARY_PROMPT, type LlmSummarizerOptions } from './index.js';

// A real OpenAI-compatible server on 127.0.0.1 (node:http), POST /v1/chat/completions. The model name picks what it
// does, so the tests share one server:
//   'good'    → a long summary that quotes the last message, with usage
//   'terse'   → "OK." (too short: the extractive summariser takes over)
//   'empty'   → no choices at all
//   'broken'  → 500
//   'locked'  → 401 unless `Authorization: Bearer right-key`
//   'silent'  → never answers (the client times out)

interface Seen {
  body: {
    model: string;
    temperature?: number;
    max_tokens?: number;
    max_completion_tokens?: number;
    messages: { role: string; content: string }[];
  };
  headers: IncomingHttpHeaders;
}

let fake: Awaited<ReturnType<typeof startFakeChatServer>>;
let baseURL: string;
let seen: Seen[] = [];

beforeAll(async () => {
  fake = await startFakeChatServer(async ({ body, headers }, send) => {
    seen.push({ body, headers });
    const reply = (content: string | null, usage = { prompt_tokens: 321, completion_tokens: 54, total_tokens: 375 }) =>
      send(200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: content === null ? [] : [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage,
      });
    switch (body.model) {
      case 'good': {
        const lines = body.messages[1]!.content.split('\n').filter((l: string) => l.startsWith('['));
        return reply(
          `## Facts\n- The last message was: ${lines.at(-1)}\n## Decisions\n- Deploy on Mondays.\n## Open questions\n- Who owns backups?`,
        );
      }
      case 'terse':
        return reply('OK.', { prompt_tokens: 100, completion_tokens: 2, total_tokens: 102 });
      case 'empty':
        return reply(null);
      case 'broken':
        return send(500, { error: { message: 'the GPU caught fire', type: 'server_error' } });
      case 'locked':
        if (headers.authorization !== 'Bearer right-key')
          return send(401, { error: { message: `Incorrect API key provided: ${headers.authorization}` } });
        return reply('## Facts\n- Authenticated summary with enough characters to be trusted.');
      case 'silent':
        return; // never answers
      default:
        return send(404, { error: { message: `model ${body.model} not found` } });
    }
  });
  baseURL = fake.baseURL;
});

afterAll(() => fake.close());

beforeEach(() => {
  seen = [];
});

const at = (i: number) => new Date(Date.UTC(2026, 2, 1, 12, 0, i)).toISOString();
const messages: TranscriptMessage[] = [
  { role: 'user', content: 'We deploy on Mondays from now on.', at: at(0) },
  { role: 'tool', content: 'backup job: exit code 2 (disk full)', at: at(1) },
  { role: 'assistant', content: 'Noted. Who owns backups?', at: at(2) },
];
const make = (o: Partial<LlmSummarizerOptions> & { model: string }) =>
  createLlmSummarizer({ baseURL, maxRetries: 0, ...o });

describe('LLM summariser', () => {
  it('asks the model with the prompt, the transcript, temperature and max tokens, and reports the tokens used', async () => {
    const s = make({ model: 'good', apiKey: 'sk-test', temperature: 0.1, maxTokens: 300 });
    const r = await s.summarize({ messages, agent: 'alice' });
    expect(r.summary).toContain('The last message was: [2026-03-01T12:00:02.000Z] assistant: Noted. Who owns backups?');
    expect(r.usage).toEqual({ inputTokens: 321, outputTokens: 54, totalTokens: 375 });
    expect(r.summarizer).toBe('llm:good');
    expect(r.fallback).toBeUndefined();
    expect(seen).toHaveLength(1);
    const { body, headers } = seen[0]!;
    expect(body).toMatchObject({ model: 'good', temperature: 0.1, max_tokens: 300 });
    expect(body.max_completion_tokens).toBeUndefined();
    expect(headers.authorization).toBe('Bearer sk-test');
    expect(body.messages[0]).toEqual({ role: 'system', content: DEFAULT_SUMMARY_PROMPT });
    for (const kept of ['fact', 'decision', 'constraint', 'tool call', 'error', 'open question'])
      expect(DEFAULT_SUMMARY_PROMPT.toLowerCase()).toContain(kept);
    expect(DEFAULT_SUMMARY_PROMPT).toContain('Drop greetings');
    expect(body.messages[1]!.content).toBe(
      'Conversation of agent "alice", oldest message first:\n\n[2026-03-01T12:00:00.000Z] user: We deploy on Mondays from now on.\n[2026-03-01T12:00:01.000Z] tool: backup job: exit code 2 (disk full)\n[2026-03-01T12:00:02.000Z] assistant: Noted. Who owns backups?',
    );
  });

  it('can send max_completion_tokens, a custom prompt, and no Authorization header without a key', async () => {
    await make({
      model: 'good',
      maxTokensParam: 'max_completion_tokens',
      maxTokens: 77,
      prompt: 'Summarise.',
    }).summarize({ messages });
    const { body, headers } = seen[0]!;
    expect(body.max_completion_tokens).toBe(77);
    expect(body.max_tokens).toBeUndefined();
    expect(body.messages[0]!.content).toBe('Summarise.');
    expect(headers.authorization).toBeUndefined();
  });

  it("keeps to a caller's budget: max_tokens is the lower of its own and the input's, and the prompt names it", async () => {
    await make({ model: 'good', maxTokens: 500 }).summarize({ messages, maxTokens: 120 });
    await make({ model: 'good', maxTokens: 100 }).summarize({ messages, maxTokens: 120 });
    await make({ model: 'good', maxTokens: 100 }).summarize({ messages });
    expect(seen.map((s) => s.body.max_tokens)).toEqual([120, 100, 100]);
    expect(seen[0]!.body.messages[1]!.content).toContain('Keep the summary under 120 tokens.');
    expect(seen[2]!.body.messages[1]!.content).not.toContain('Keep the summary under');
  });

  it('falls back to the extractive summariser on a summary under 50 characters, still reporting the tokens spent', async () => {
    const r = await make({ model: 'terse' }).summarize({ messages });
    expect(r.summarizer).toBe('extractive');
    expect(r.summary).toBe(
      '- [user]: We deploy on Mondays from now on.\n- [tool]: backup job: exit code 2 (disk full)\n- [assistant]: Noted. Who owns backups?',
    );
    expect(r.fallback).toEqual({
      from: 'llm:terse',
      reason: 'model "terse" gave a summary of only 3 characters, under the minimum of 50',
    });
    expect(r.usage).toEqual({ inputTokens: 100, outputTokens: 2, totalTokens: 102 });
    expect((await make({ model: 'empty' }).summarize({ messages })).fallback?.reason).toContain('an empty answer');
  });

  it('falls back to the extractive summariser on a server error, a refused key, a timeout or no server, never leaking the key', async () => {
    const broken = await make({ model: 'broken', maxRetries: 1 }).summarize({ messages });
    expect(broken.summarizer).toBe('extractive');
    expect(broken.fallback?.reason).toContain('500');
    expect(broken.usage.totalTokens).toBe(0);
    expect(seen).toHaveLength(2); // one retry

    const locked = await make({ model: 'locked', apiKey: 'wrong-key-123' }).summarize({ messages });
    expect(locked.fallback?.reason).toContain('401');
    expect(JSON.stringify(locked)).not.toContain('wrong-key-123');
    expect((await make({ model: 'locked', apiKey: 'right-key' }).summarize({ messages })).fallback).toBeUndefined();

    const silent = await make({ model: 'silent', timeoutMs: 200 }).summarize({ messages });
    expect(silent.fallback?.reason).toContain('timed out after 200 ms');

    const nowhere = await createLlmSummarizer({
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'good',
      maxRetries: 0,
      timeoutMs: 2_000,
    }).summarize({ messages });
    expect(nowhere.fallback?.reason).toContain('could not be reached');
    expect(nowhere.summary).toContain('- [user]: We deploy on Mondays');
  });

  it('keeps the newest messages when the transcript is longer than maxInputChars', async () => {
    const many = Array.from({ length: 50 }, (_, i) => ({
      role: 'user' as const,
      content: `message ${i} ${'x'.repeat(40)}`,
      at: at(i),
    }));
    await make({ model: 'good', maxInputChars: 700 }).summarize({ messages: many });
    const sent = seen[0]!.body.messages[1]!.content.split('\n');
    expect(sent[2]).toMatch(/^\(\d+ earlier messages left out for length\)$/);
    expect(sent.at(-1)).toContain('message 49');
    expect(seen[0]!.body.messages[1]!.content.length).toBeLessThan(900);
  });

  it('refuses bad options with a message that says how to fix them', () => {
    expect(() => createLlmSummarizer({ model: '' })).toThrow(/give the chat model name/);
    expect(() => createLlmSummarizer({ model: 'm', baseURL: 'not a url' })).toThrow(/is not a URL/);
    expect(() => createLlmSummarizer({ model: 'm', temperature: 3 })).toThrow(/temperature/);
  });

  it('compresses a conversation at the threshold through the model', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const store = createInMemoryTranscriptStore();
    const conv = new Conversation({
      store,
      space: 'acme',
      agentId: 'alice',
      clock,
      logger: silentLogger,
      summarizer: make({ model: 'good' }),
      tokenizer: { id: 'words', count: (t) => t.split(/\s+/).filter(Boolean).length },
      options: { contextLength: 100 },
    });
    for (let i = 0; i < 12; i++) await conv.add('user', `fact ${i}: one two three four`);
    const outcome = await conv.maybeCompress();
    expect(outcome).toMatchObject({ status: 'compacted', summarizer: 'llm:good', usage: { totalTokens: 375 } });
    const now = (await store.read('acme', 'alice'))!.messages;
    // The newest turn stays verbatim after the summary of the rest.
    expect(now).toHaveLength(2);
    expect(now[0]!.content).toMatch(
      /^\[Compressed Memory Summary\]\n## Facts\n- The last message was: \[2026-03-01T12:00:00.000Z\] user: fact 10/,
    );
    expect(now[1]!.content).toBe('fact 11: one two three four');
  });
});
