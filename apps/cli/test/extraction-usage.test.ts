/**
 * Consolidation with the LLM fact extractor, assembled as an app does (the CLI ships both packages), against a fake
 * OpenAI-compatible chat server on 127.0.0.1: the run's report carries the tokens the extraction spent.
 */
import { createInMemoryStructuredStores } from '@mem/core';
import { ManualClock } from '@mem/core/adapter';
import { createConsolidationPipeline, createEpisodicMemory } from '@mem/episodic';
import { createLlmFactExtractor } from '@mem/summarizer-llm';
import { startFakeChatServer } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const S = 'acme';
const USAGE = { prompt_tokens: 812, completion_tokens: 64, total_tokens: 876 };
const FACTS = [
  { key: 'tool.kubectl.rollout-status', value: 'kubectl rollout status shows a stuck deploy.' },
  { key: 'pitfall.friday-deploys.rollback-needed', value: 'Friday deploys needed rollbacks.' },
];
let fake: Awaited<ReturnType<typeof startFakeChatServer>>;
let requests = 0;

beforeAll(async () => {
  fake = await startFakeChatServer(({ body }, send) => {
    requests++;
    const content = body.model === 'prose' ? 'I found nothing useful, sorry.' : JSON.stringify(FACTS);
    send(200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: USAGE,
    });
  });
});

afterAll(() => fake.close());

async function seeded() {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const { episodes, facts } = createInMemoryStructuredStores();
  const memory = createEpisodicMemory({ store: episodes, clock });
  for (let i = 0; i < 4; i++) {
    await memory.store(S, {
      summary: `Deployed service ${i}; ${i === 3 ? 'rolled back on Friday' : 'went fine'}.`,
      toolsUsed: ['kubectl'],
      outcome: i === 3 ? 'failure' : 'success',
      tags: ['deploy'],
    });
  }
  return { clock, episodes, facts };
}

describe('consolidation reports the tokens its fact extraction spent', () => {
  it('an LLM extractor: the chat API usage; the keyword extractor: zero', async () => {
    const { clock, episodes, facts } = await seeded();
    const extractor = createLlmFactExtractor({ baseURL: fake.baseURL, model: 'facts', maxRetries: 0 });
    const report = await createConsolidationPipeline({ episodes, facts, clock, extractor }).run(S, { minEpisodes: 3 });
    expect(requests).toBe(1);
    expect(report).toMatchObject({ extractor: extractor.id, newFacts: 2, fallbackReason: null });
    expect(report.usage).toEqual({ inputTokens: 812, outputTokens: 64, totalTokens: 876 });

    const keyword = await createConsolidationPipeline({ episodes, facts, clock }).run(S, { minEpisodes: 3 });
    expect(keyword.extractor).toBe('keyword');
    expect(keyword.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

    const skipped = await createConsolidationPipeline({ episodes, facts, clock, extractor }).run('empty-space');
    expect(skipped.skipped).not.toBeNull();
    expect(skipped.usage.totalTokens).toBe(0);
  });

  it('an answer that is no list of facts falls back to the keyword extractor and still counts what the model spent', async () => {
    const { clock, episodes, facts } = await seeded();
    const extractor = createLlmFactExtractor({ baseURL: fake.baseURL, model: 'prose', maxRetries: 0 });
    const report = await createConsolidationPipeline({ episodes, facts, clock, extractor }).run(S, { minEpisodes: 3 });
    expect(report.extractor).toBe('keyword');
    expect(report.fallbackReason).toContain('no JSON list of facts');
    expect(report.usage).toEqual({ inputTokens: 812, outputTokens: 64, totalTokens: 876 });
  });
});
