/** An in-process embedder that spends tokens the way an API one reports them, for the tests of token usage. */
import { createHashingEmbedder } from '@mem/core';
import type { Embedder, EmbeddingResult } from '@mem/core/adapter';

/** Tokens a text costs the token embedder: one a word (split on whitespace). */
export function wordTokens(texts: string[]): number {
  return texts.reduce((sum, t) => sum + t.split(/\s+/).filter(Boolean).length, 0);
}

/**
 * The hashing embedder's vectors plus `embedWithUsage` reporting one input token a word (`wordTokens`), so a test can
 * predict what a call spent.
 */
export function tokenEmbedder(dimension?: number): Embedder {
  const inner = createHashingEmbedder(dimension === undefined ? {} : { dimension });
  return {
    id: 'api-like',
    dimension: inner.dimension,
    embed: (texts) => inner.embed(texts),
    async embedWithUsage(texts): Promise<EmbeddingResult> {
      const n = wordTokens(texts);
      return { vectors: await inner.embed(texts), usage: { inputTokens: n, outputTokens: 0, totalTokens: n } };
    },
  };
}
