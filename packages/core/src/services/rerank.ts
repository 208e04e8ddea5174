/**
 * The rerank step of a search (docs/ranking.md): the fused top `depth` results are scored by the stack's reranker and
 * its score becomes their relevance; recency, access, quality, path and usefulness multiply it as before. The
 * reranked block keeps the top; the rest follow in mem's order. A reranker that fails or answers the wrong number of
 * scores leaves mem's order unchanged and is logged (a search never fails for it).
 */
import type { Logger } from '../ports/logger.js';
import type { Reranker } from '../ports/reranker.js';
import { NO_USAGE, type TokenUsage } from '../ports/summarizer.js';

interface Ranked {
  id: string;
  content: string;
  relevance: number;
  score: number;
}

/** A reranker score as a relevance in [0, 1]: scores already in [0, 1] are kept, others go through a logistic. */
export function rerankRelevance(score: number): number {
  if (!Number.isFinite(score)) return 0;
  return score >= 0 && score <= 1 ? score : 1 / (1 + Math.exp(-score));
}

export async function rerankResults<T extends Ranked>(
  query: string,
  results: T[],
  reranker: Reranker,
  depth: number,
  logger: Logger,
): Promise<{ results: T[]; usage: TokenUsage }> {
  const unchanged = { results, usage: { ...NO_USAGE } };
  if (results.length < 2 || depth < 2) return unchanged;
  const top = results.slice(0, depth);
  let scores: number[];
  let usage: TokenUsage = { ...NO_USAGE };
  try {
    const answer = await reranker.rerank({ query, documents: top.map((r) => r.content) });
    scores = answer.scores;
    if (answer.usage) usage = answer.usage;
  } catch (error) {
    logger.warn('rerank failed: kept the fused order', {
      reranker: reranker.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return unchanged;
  }
  if (!Array.isArray(scores) || scores.length !== top.length || scores.some((s) => typeof s !== 'number')) {
    logger.warn('rerank answered the wrong number of scores: kept the fused order', {
      reranker: reranker.id,
      expected: top.length,
      got: Array.isArray(scores) ? scores.length : typeof scores,
    });
    return { results, usage };
  }
  const reranked = top.map((r, i) => {
    const relevance = rerankRelevance(scores[i]!);
    const factors = r.relevance > 0 ? r.score / r.relevance : 1;
    return { ...r, relevance, score: relevance * factors };
  });
  reranked.sort((a, b) => b.score - a.score || b.relevance - a.relevance || a.id.localeCompare(b.id));
  return { results: [...reranked, ...results.slice(depth)], usage };
}
