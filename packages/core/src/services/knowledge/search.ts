/** Search and recall: memory-search, dedup check, smart recall, task context and the pre-task recall block. */
import {
  calibratedSimilarity,
  duplicateLikeness,
  type EmbedderCalibration,
  matchConfidence,
} from '../../domain/calibration.js';
import { contentHash } from '../../domain/ids.js';
import { pathWeight } from '../../domain/keys.js';
import { ageDays, effectiveTier } from '../../domain/lifecycle.js';
import {
  accessFactor,
  cosine,
  finalScore,
  fuseScores,
  type KeywordLengthNorm,
  recencyFactor,
  sessionContext,
  usefulnessFactor,
  withoutLengthNorm,
} from '../../domain/ranking.js';
import { countWords, termCoverage, termOverlap } from '../../domain/text.js';
import { nearTimeCue, timeCue } from '../../domain/time-cue.js';
import { MemError } from '../../errors.js';
import type { KeywordHit, KnowledgeReader, KnowledgeSearcher, SearchFilter } from '../../ports/knowledge-store.js';
import { NO_USAGE, sumUsage, type TokenUsage } from '../../ports/summarizer.js';
import { dedupCheckInput, memorySearchInput, parseInput, smartRecallInput, taskContextInput } from '../../schemas.js';
import type { MemoryRecord, Principal } from '../../types.js';
import { rerankResults } from '../rerank.js';
import { runSearchArms } from '../search-arms.js';
import type { KnowledgeContext } from './context.js';
import { renderRecallBlock } from './recall-block.js';
import { toResult } from './records.js';
import type { DedupResult, RecallBlock, SearchResult, SmartRecallResult } from './types.js';

/**
 * memory-search with what the door reports besides the results: the caller's `intent` (why it searched, e.g.
 * "dedup before store"), secret-checked like other free text and logged, or null when none was given.
 */
export async function searchReport(
  ctx: KnowledgeContext,
  p: Principal,
  raw: unknown,
): Promise<{ results: SearchResult[]; intent: string | null; usage: TokenUsage }> {
  ctx.checkPrincipal(p);
  const input = parseInput(memorySearchInput, 'memory-search', raw);
  const intent = input.intent ?? null;
  if (intent !== null) {
    ctx.guardLabels(p.space, { 'search intent': intent });
    ctx.logger.info('memory-search', { space: p.space, agentId: p.agentId, intent });
  }
  const limit = input.limit ?? ctx.options.searchLimit;
  const filter: SearchFilter = {
    space: p.space,
    viewerAgentId: p.agentId,
    now: ctx.now().toISOString(),
    ...(input.scope ? { scope: input.scope } : {}),
    ...(input.keyPrefix ? { keyPrefix: input.keyPrefix } : {}),
    ...(input.tags && input.tags.length > 0 ? { tags: input.tags } : {}),
    ...(input.source ? { source: input.source } : {}),
  };
  return { ...(await rankedSearch(ctx, input.query, filter, limit)), intent };
}

/** Ranked results for a query and the tokens its embedding spent. */
async function rankedSearch(
  ctx: KnowledgeContext,
  query: string,
  filter: SearchFilter,
  limit: number,
): Promise<{ results: SearchResult[]; usage: TokenUsage }> {
  // The roles this path uses: the two arms and a row read (the embedding space is checked inside `ctx.embed`).
  const store: KnowledgeSearcher & Pick<KnowledgeReader, 'getChunks'> = ctx.knowledge;
  const { keywordHits, vectorHits, vector, ran, usage } = await runSearchArms(query, limit, ctx.options, {
    keyword: store.capabilities.keyword,
    embed: (texts) => ctx.embed(texts),
    keywordSearch: (terms, n) => store.keywordSearch({ filter, terms, limit: n }),
    vectorSearch: (v, n) => ctx.withVectors(() => store.vectorSearch({ filter, vector: v, limit: n })),
  });
  const ids = [...new Set([...keywordHits.map((h) => h.id), ...vectorHits.map((h) => h.id)])];
  if (ids.length === 0) return { results: [], usage };
  // Rows carrying vectors of another length than the query's: the store may have been re-embedded meanwhile.
  const rows = await ctx.withVectors(
    () => store.getChunks(filter.space, ids),
    (found) => vector !== undefined && found.some((r) => r.embedding !== null && r.embedding.length !== vector.length),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const fused = fuseScores(
    lengthFreeHits(keywordHits, byId, store.capabilities.keywordLengthNorm),
    vectorHits,
    ctx.options.fusion,
    ran,
  );
  // A period the query names lifts the memories said in it (docs/ranking.md); then the session context.
  const cue = ctx.options.timeCue.weight > 0 ? timeCue(query) : null;
  const { weight: cueWeight, afterDays } = ctx.options.timeCue;
  const contextual = sessionContext(
    fused.flatMap((f) => {
      const rec = byId.get(f.id);
      if (!rec) return [];
      const at = Date.parse(rec.createdAt);
      const relevance = cue
        ? (f.relevance * (nearTimeCue(cue, at, afterDays) ? 1 + cueWeight : 1)) / (1 + cueWeight)
        : f.relevance;
      return [{ id: f.id, relevance, owner: `${rec.scope}/${rec.agentId}`, at }];
    }),
    ctx.options.session,
  );
  const similarityById = new Map(vectorHits.map((h) => [h.id, h.similarity]));
  const now = ctx.now();
  const results: SearchResult[] = [];
  for (const f of fused) {
    const rec = byId.get(f.id);
    if (!rec) continue;
    let similarity = similarityById.get(f.id) ?? null;
    if (similarity === null && vector && rec.embedding && rec.embedding.length === vector.length)
      similarity = cosine(vector, rec.embedding);
    const tier = effectiveTier(rec.source, rec.key, ctx.options.tiers);
    const hoursSinceAccess = rec.lastAccessedAt ? (now.getTime() - Date.parse(rec.lastAccessedAt)) / 3_600_000 : null;
    const relevance = contextual.get(f.id) ?? f.relevance;
    const score = finalScore({
      relevance,
      recency: recencyFactor(ageDays(rec.createdAt, now), tier.halfLifeDays),
      access: accessFactor(rec.accessCount, hoursSinceAccess, ctx.options.access),
      quality: tier.quality,
      pathWeight: pathWeight(rec.key, rec.tags),
      usefulness: usefulnessFactor(rec.alpha, rec.beta),
    });
    results.push(
      toResult(rec, {
        similarity,
        keywordRank: f.keywordRank,
        vectorRank: f.vectorRank,
        relevance,
        score,
      }),
    );
  }
  results.sort((a, b) => b.score - a.score || b.relevance - a.relevance || a.id.localeCompare(b.id));
  if (!ctx.reranker) return { results: results.slice(0, limit), usage };
  const depth = Math.max(limit, ctx.options.rerankDepth);
  const reranked = await rerankResults(query, results, ctx.reranker, depth, ctx.logger);
  return { results: reranked.results.slice(0, limit), usage: sumUsage([usage, reranked.usage]) };
}

/** memory-get: the whole document; counts one access. */

/** memory-dedup-check: is this text already remembered? Compares a likeness of wording and calibrated meaning (docs/ranking.md). */
export async function dedupCheck(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<DedupResult> {
  ctx.checkPrincipal(p);
  const input = parseInput(dedupCheckInput, 'memory-dedup-check', raw);
  const threshold = input.threshold ?? ctx.options.dedupThreshold;
  const limit = input.limit ?? 10;
  const filter: SearchFilter = { space: p.space, viewerAgentId: p.agentId, now: ctx.now().toISOString() };
  const searched = await rankedSearch(ctx, input.text, filter, Math.max(limit, 10));
  const calibration = searched.results.length > 0 ? await ctx.calibration() : { calibration: null, usage: NO_USAGE };
  const usage = sumUsage([searched.usage, calibration.usage]);
  const hash = contentHash(input.text);
  const scored = searched.results.map((r) => {
    const similarity =
      r.chunkCount === 1 && contentHash(r.content) === hash
        ? 1
        : duplicateLikeness(
            termOverlap(input.text, r.content),
            calibratedOrNull(r.similarity, calibration.calibration),
          );
    return { r, similarity };
  });
  scored.sort((a, b) => b.similarity - a.similarity);
  const duplicates = scored
    .filter((s) => s.similarity >= threshold)
    .slice(0, limit)
    .map(({ r, similarity }) => ({
      id: r.docId,
      name: r.name,
      similarity,
      scope: r.scope,
      source: r.source,
      preview: r.content.slice(0, 200),
    }));
  return { isDuplicate: duplicates.length > 0, topSimilarity: scored[0]?.similarity ?? 0, duplicates, usage };
}

/** smart-recall with the tokens the embedder spent on the queries. */
export async function smartRecallReport(
  ctx: KnowledgeContext,
  p: Principal,
  raw: unknown,
): Promise<{ results: SmartRecallResult[]; usage: TokenUsage }> {
  ctx.checkPrincipal(p);
  const input = parseInput(smartRecallInput, 'smart-recall', raw);
  const limit = input.limit ?? ctx.options.searchLimit;
  const { memories, usage } = await recallMany(ctx, p, input.queries, limit);
  return { results: memories, usage };
}

async function recallMany(
  ctx: KnowledgeContext,
  p: Principal,
  queries: string[],
  limit: number,
): Promise<{ memories: SmartRecallResult[]; usage: TokenUsage }> {
  const filter: SearchFilter = { space: p.space, viewerAgentId: p.agentId, now: ctx.now().toISOString() };
  const merged = new Map<string, { r: SearchResult; best: number; hits: number }>();
  const spent: TokenUsage[] = [];
  for (const query of queries) {
    const { results, usage } = await rankedSearch(ctx, query, filter, limit);
    spent.push(usage);
    for (const r of results) {
      const s = r.similarity ?? r.relevance;
      const m = merged.get(r.id);
      if (!m) merged.set(r.id, { r, best: s, hits: 1 });
      else {
        m.hits += 1;
        if (s > m.best) m.best = s;
      }
    }
  }
  const memories = [...merged.values()]
    .map(({ r, best, hits }) => ({ ...r, hits, recallScore: best + ctx.options.smartRecallHitBonus * hits }))
    .sort((a, b) => b.recallScore - a.recallScore || a.id.localeCompare(b.id))
    .slice(0, Math.min(2 * limit, ctx.options.maxCandidates));
  return { memories, usage: sumUsage(spent) };
}

/** task-context-gathering: the task plus a smart recall (queries default to the task itself). */
export async function taskContext(
  ctx: KnowledgeContext,
  p: Principal,
  raw: unknown,
): Promise<{ task: string; taskId: string | null; memories: SmartRecallResult[]; usage: TokenUsage }> {
  ctx.checkPrincipal(p);
  const input = parseInput(taskContextInput, 'task-context-gathering', raw);
  const queries = input.queries && input.queries.length > 0 ? input.queries : [input.task];
  const taskId = input.taskId ?? null;
  const { memories, usage } = await recallMany(ctx, p, queries, input.limit ?? ctx.options.searchLimit);
  if (taskId !== null)
    ctx.logger.info('task-context', { space: p.space, agentId: p.agentId, taskId, memories: memories.length });
  return { task: input.task, taskId, memories, usage };
}

/** The pre-task recall block (docs/ranking.md): memories passing the injection threshold, or no block at all. */
export async function recall(
  ctx: KnowledgeContext,
  p: Principal,
  task: string,
  options: { limit?: number; threshold?: number } = {},
): Promise<RecallBlock> {
  ctx.checkPrincipal(p);
  if (typeof task !== 'string' || task.trim().length === 0) {
    throw new MemError('INVALID_INPUT', 'Invalid input for recall: task must not be empty (give the task text).');
  }
  const limit = options.limit ?? ctx.options.recallLimit;
  const threshold = options.threshold ?? ctx.options.injectionThreshold;
  const filter: SearchFilter = { space: p.space, viewerAgentId: p.agentId, now: ctx.now().toISOString() };
  const query = task.slice(0, 4000);
  const searched = await rankedSearch(ctx, query, filter, limit);
  const calibration = searched.results.length > 0 ? await ctx.calibration() : { calibration: null, usage: NO_USAGE };
  const usage = sumUsage([searched.usage, calibration.usage]);
  const memories = searched.results
    .map((r) => ({
      ...r,
      confidence: matchConfidence(
        termCoverage(query, `${r.name}\n${r.content}`),
        calibratedOrNull(r.similarity, calibration.calibration),
      ),
    }))
    .filter((r) => r.confidence >= threshold);
  return { block: renderRecallBlock(memories, ctx.options.recallPreviewChars), memories, usage };
}

/** A similarity on the embedder's calibrated scale, or null when there is none (no vectors, no usable calibration). */
function calibratedOrNull(similarity: number | null, calibration: EmbedderCalibration | null): number | null {
  return similarity === null || calibration === null ? null : calibratedSimilarity(similarity, calibration);
}

/** Keyword hits with the store's length normalisation taken out (docs/ranking.md), lengths from the fetched rows. */
function lengthFreeHits(
  hits: readonly KeywordHit[],
  rows: ReadonlyMap<string, MemoryRecord>,
  norm: KeywordLengthNorm | undefined,
): KeywordHit[] {
  if (!norm || hits.length === 0) return [...hits];
  const lengths = hits.map((h) => {
    const rec = rows.get(h.id);
    return rec ? countWords(rec.name) + countWords(rec.content) : 0;
  });
  const average = lengths.reduce((a, b) => a + b, 0) / lengths.length;
  return hits
    .map((h, i) => ({ ...h, score: withoutLengthNorm(h.score, lengths[i]!, average, norm) }))
    .sort((a, b) => b.score - a.score);
}
