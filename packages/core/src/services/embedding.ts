/** The one way the services call an embedder: vectors checked against the declared dimension, and the tokens spent. */
import { MemError } from '../errors.js';
import type { Embedder, EmbeddingResult } from '../ports/embedder.js';
import { NO_USAGE } from '../ports/summarizer.js';

/**
 * Embed texts with `embedWithUsage` when the embedder has it (else `embed`, spending nothing): `EMBEDDER_FAILED`
 * (retryable) when it throws, `EMBEDDING_MISMATCH` when it answers with the wrong number or length of vectors.
 */
export async function embedTexts(embedder: Embedder, texts: string[]): Promise<EmbeddingResult> {
  let result: EmbeddingResult;
  try {
    result = embedder.embedWithUsage
      ? await embedder.embedWithUsage(texts)
      : { vectors: await embedder.embed(texts), usage: { ...NO_USAGE } };
  } catch (error) {
    if (MemError.is(error)) throw error;
    throw new MemError('EMBEDDER_FAILED', `Embedder "${embedder.id}" failed: ${(error as Error).message}`, {
      cause: error,
      retryable: true,
    });
  }
  if (result.vectors.length !== texts.length) {
    throw new MemError(
      'EMBEDDING_MISMATCH',
      `Embedder "${embedder.id}" returned ${result.vectors.length} vectors for ${texts.length} texts. An embedder must answer one vector per text, in order.`,
    );
  }
  for (const v of result.vectors) {
    if (v.length !== embedder.dimension) {
      throw new MemError(
        'EMBEDDING_MISMATCH',
        `Embedder "${embedder.id}" returned a ${v.length}-dimension vector but declares ${embedder.dimension}. Fix the embedder's dimension option.`,
      );
    }
  }
  return { vectors: result.vectors, usage: result.usage ?? { ...NO_USAGE } };
}
