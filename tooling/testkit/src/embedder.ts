/**
 * The Embedder port's conformance suite: every embedder (the hashing one of @mem/core, @mem/embed-local,
 * @mem/embed-openai) runs it. The optional `embedWithUsage` is checked when the embedder has it; without it the
 * services report zero tokens, which is checked through a store.
 */
import { createInMemoryKnowledgeStore, createStack, type Principal } from '@mem/core';
import { calibrationTexts, type Embedder } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';

export interface EmbedderFixture {
  embedder: Embedder;
  /** The tokens the embedder's model reports for these texts, when the fixture knows (a fake server does). */
  expectedInputTokens?: (texts: string[]) => number;
  cleanup?: () => Promise<void>;
}

export type EmbedderFactory = () => Promise<EmbedderFixture>;

const texts = ['The deploy failed on Friday.', 'a second, longer text about rollbacks and canaries', 'δ unicode'];
const principal: Principal = { space: 'embed-conformance', agentId: 'a', role: 'worker' };

export function describeEmbedder(name: string, factory: EmbedderFactory): void {
  describe(`Embedder conformance: ${name}`, () => {
    async function withFixture(run: (f: EmbedderFixture) => Promise<void>): Promise<void> {
      const fixture = await factory();
      try {
        await run(fixture);
      } finally {
        await fixture.cleanup?.();
      }
    }

    it('has an id and answers one vector of its dimension per text, in order, the same for the same text', () =>
      withFixture(async ({ embedder }) => {
        expect(embedder.id.trim().length).toBeGreaterThan(0);
        const vectors = await embedder.embed(texts);
        expect(embedder.dimension).toBeGreaterThan(0);
        expect(vectors).toHaveLength(texts.length);
        for (const v of vectors) {
          expect(v).toBeInstanceOf(Float32Array);
          expect(v).toHaveLength(embedder.dimension);
        }
        const [again] = await embedder.embed([texts[1]!]);
        expect(Array.from(again!)).toEqual(Array.from(vectors[1]!));
        expect(await embedder.embed([])).toEqual([]);
      }));

    it('embedWithUsage, when present, answers the same vectors as embed and whole, consistent token counts', () =>
      withFixture(async ({ embedder, expectedInputTokens }) => {
        if (!embedder.embedWithUsage) return;
        const plain = await embedder.embed(texts);
        const r = await embedder.embedWithUsage(texts);
        expect(r.vectors.map((v) => Array.from(v))).toEqual(plain.map((v) => Array.from(v)));
        for (const n of [r.usage.inputTokens, r.usage.outputTokens, r.usage.totalTokens]) {
          expect(Number.isInteger(n) && n >= 0).toBe(true);
        }
        expect(r.usage.totalTokens).toBeGreaterThanOrEqual(r.usage.inputTokens + r.usage.outputTokens);
        if (expectedInputTokens) expect(r.usage.inputTokens).toBe(expectedInputTokens(texts));
        const empty = await embedder.embedWithUsage([]);
        expect(empty.vectors).toEqual([]);
        expect(empty.usage.totalTokens).toBe(0);
      }));

    it('a store reports what the embedder spent: its usage, or zero without embedWithUsage', () =>
      withFixture(async ({ embedder, expectedInputTokens }) => {
        const { knowledge } = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder });
        const content = 'Canary deploys catch config drift before the fleet sees it.';
        const stored = await knowledge.store(principal, { content });
        const recall = await knowledge.recall(principal, 'how do canary deploys help');
        if (!embedder.embedWithUsage) {
          expect(stored.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
          expect(recall.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
          return;
        }
        expect(stored.usage.totalTokens).toBeGreaterThan(0);
        expect(recall.usage.totalTokens).toBeGreaterThan(0);
        if (expectedInputTokens) {
          expect(stored.usage.inputTokens).toBe(expectedInputTokens([content]));
          // The stack's first recall also embeds the calibration pairs (once); the next pays for its task only.
          const task = 'how do canary deploys help';
          expect(recall.usage.inputTokens).toBe(expectedInputTokens([task]) + expectedInputTokens(calibrationTexts()));
          expect((await knowledge.recall(principal, task)).usage.inputTokens).toBe(expectedInputTokens([task]));
        }
        // Storing the same content again embeds nothing.
        expect((await knowledge.store(principal, { content })).usage.totalTokens).toBe(0);
      }));
  });
}
