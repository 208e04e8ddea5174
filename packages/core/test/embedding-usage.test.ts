import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../src/adapters/hashing-embedder.js';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { createInMemoryTranscriptStore } from '../src/adapters/in-memory-transcript.js';
import { calibrationTexts } from '../src/domain/calibration.js';
import { MemError } from '../src/errors.js';
import type { Embedder, EmbeddingResult } from '../src/ports/embedder.js';
import { Runner } from '../src/services/runner/runner.js';
import { createStack } from '../src/stack.js';
import type { Principal } from '../src/types.js';

const alice: Principal = { space: 'acme', agentId: 'alice', role: 'lead' };
const words = (texts: string[]) => texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);

/** The hashing embedder plus a token count (one token a word), as an API embedder would report; counts its calls. */
function countingEmbedder(): Embedder & { calls: number } {
  const inner = createHashingEmbedder({ dimension: 32 });
  const e = {
    id: 'counting',
    dimension: 32,
    calls: 0,
    embed: (texts: string[]) => inner.embed(texts),
    async embedWithUsage(texts: string[]): Promise<EmbeddingResult> {
      e.calls++;
      const n = words(texts);
      return { vectors: await inner.embed(texts), usage: { inputTokens: n, outputTokens: 0, totalTokens: n } };
    },
  };
  return e;
}

const usage = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });

describe('embedding usage in the knowledge results (an embedder with embedWithUsage)', () => {
  it('store, search, recall, task context, dedup check, edit, index and reindex report what they spent', async () => {
    const embedder = countingEmbedder();
    const { knowledge } = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder });
    const stored = await knowledge.store(alice, { content: 'rollback plans live in the runbook' });
    expect(stored.usage).toEqual(usage(6));
    expect((await knowledge.store(alice, { content: 'rollback plans live in the runbook' })).usage).toEqual(usage(0));

    expect((await knowledge.searchReport(alice, { query: 'where are rollback plans' })).usage).toEqual(usage(4));
    // The first call that needs the embedder's cosine scale also embeds the calibration pairs, once per stack.
    const calibration = words(calibrationTexts());
    expect((await knowledge.recall(alice, 'find the rollback plan')).usage).toEqual(usage(4 + calibration));
    expect((await knowledge.recall(alice, 'find the rollback plan')).usage).toEqual(usage(4));
    const ctx = await knowledge.taskContext(alice, { task: 'deploy', queries: ['rollback plan', 'runbook'] });
    expect(ctx.usage).toEqual(usage(3));
    expect((await knowledge.dedupCheck(alice, { text: 'rollback plans in runbook' })).usage).toEqual(usage(4));

    const edited = await knowledge.edit(alice, {
      id: stored.id,
      content: 'rollback plans live in the wiki now',
      intent: 'moved',
    });
    expect(edited.usage).toEqual(usage(7));
    const moved = await knowledge.edit(alice, { id: stored.id, newKey: '/ops/rollback', intent: 'tidy' });
    expect(moved.usage).toEqual(usage(0));

    const indexed = await knowledge.index(alice, { sourcePath: 'docs/a.md', content: 'alpha beta' });
    expect(indexed.usage).toEqual(usage(2));
    expect((await knowledge.index(alice, { sourcePath: 'docs/a.md', content: 'alpha beta' })).usage).toEqual(usage(0));
    expect((await knowledge.index(alice, { sourcePath: 'docs/a.md', content: 'alpha beta gamma' })).usage).toEqual(
      usage(3),
    );

    const re = await knowledge.reindex();
    expect(re.usage).toEqual(usage(7 + 3));
  });

  it('a batch store embeds once and its results sum to what it spent; an import reports the total', async () => {
    const embedder = countingEmbedder();
    const { knowledge } = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder });
    const results = await knowledge.storeMany(alice, [
      { content: 'one two' },
      { content: 'three four five' },
      { content: 'one two' },
    ]);
    expect(embedder.calls).toBe(1);
    const spent = results.map((r) => (r instanceof MemError ? 0 : r.usage.totalTokens));
    expect(spent.reduce((a, b) => a + b, 0)).toBe(5);
    expect(spent[2]).toBe(0); // the duplicate of the first item

    const lines = [{ content: 'six seven' }, { content: 'one two' }, { content: 'eight' }].map((l) =>
      JSON.stringify(l),
    );
    const report = await knowledge.importLines(alice, lines.join('\n'));
    expect(report).toMatchObject({ imported: 2, duplicates: 1, usage: usage(3) });
  });

  it('refuses an embedder that answers the wrong number of vectors, storing nothing', async () => {
    const inner = countingEmbedder();
    const broken: Embedder = {
      ...inner,
      embedWithUsage: async (texts) => ({ vectors: (await inner.embed(texts)).slice(1), usage: usage(1) }),
    };
    const { knowledge } = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: broken });
    const error = await knowledge.store(alice, { content: 'lost vector' }).catch((e: unknown) => e);
    expect(MemError.is(error, 'EMBEDDING_MISMATCH')).toBe(true);
    expect((error as MemError).message).toMatch(/0 vectors for 1 texts/);
    expect((await knowledge.stats(alice)).documents).toBe(0);
  });

  it('the runner reports the recall embedding only when it spent tokens (a local embedder spends none)', async () => {
    for (const [embedder, expected] of [
      [countingEmbedder(), [{ operation: 'recall-embedding', by: 'counting', usage: usage(3) }]],
      [createHashingEmbedder({ dimension: 32 }), []],
    ] as const) {
      const stack = createStack({
        knowledge: createInMemoryKnowledgeStore(),
        transcripts: createInMemoryTranscriptStore(),
        embedder,
      });
      const runner = new Runner(stack, { contextWindow: 8_000 });
      const turn = await runner.assembleTurn({ principal: alice, task: 'fix the build', taskId: 't' });
      expect(turn.report.spent).toEqual(expected);
      const ended = await runner.endTask({ principal: alice, taskId: 't', summary: 'fixed' });
      expect(ended.usage.totalTokens).toBe(ended.stored!.usage.totalTokens);
    }
  });
});
