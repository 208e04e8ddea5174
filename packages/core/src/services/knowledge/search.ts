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
  neighbourShare,
  recencyFactor,
  type SessionMember,
  sessionContext,
  usefulnessFactor,
  withoutLengthNorm,
} from '../../domain/ranking.js';
import { redactSecrets } from '../../domain/secrets.js';
import { countWords, queryTerms, termCoverage, termOverlap } from '../../domain/text.js';
import { nearTimeCue, type TimeCue, timeCue } from '../../domain/time-cue.js';
import { MemError } from '../../errors.js';
import type { FoundCandidates, KeywordHit, SearchFilter } from '../../ports/knowledge-store.js';
import { NO_USAGE, sumUsage, type TokenUsage } from '../../ports/summarizer.js';
import { dedupCheckInput, memorySearchInput, parseInput, smartRecallInput, taskContextInput } from '../../schemas.js';
import type { MemoryRecord, Principal } from '../../types.js';
import { rerankResults } from '../rerank.js';
import { armCandidates } from '../search-arms.js';
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
    ...ctx.viewFilter(p, input),
    ...(input.scope ? { scope: input.scope } : {}),
    ...(input.keyPrefix ? { keyPrefix: input.keyPrefix } : {}),
    ...(input.tags && input.tags.length > 0 ? { tags: input.tags } : {}),
    ...(input.source ? { source: input.source } : {}),
  };
  return { ...(await rankedSearch(ctx, input.query, filter, limit, { rewrite: true, graph: p })), intent };
}

/** The longest query text searched (a longer task is cut for its recall). */
const MAX_QUERY_CHARS = 4000;

/**
 * Ranked results for a query and the tokens spent on it: the query (and, with `rewrite` and a query rewriter, the
 * queries it was rewritten into, their rankings interleaved; with `graph` and a memory graph, the graph's query of
 * what it knows around the entities named, fused by weighted reciprocal ranks), then the reranker over the merged top.
 */
export async function rankedSearch(
  ctx: KnowledgeContext,
  query: string,
  filter: SearchFilter,
  limit: number,
  options: { rewrite?: boolean; graph?: Principal } = {},
): Promise<{ results: SearchResult[]; usage: TokenUsage }> {
  const depth = ctx.reranker ? Math.max(limit, ctx.options.rerankDepth) : limit;
  const rewritten = options.rewrite ? await rewrittenQueries(ctx, query) : { queries: [query], usage: NO_USAGE };
  const runs: { results: SearchResult[]; usage: TokenUsage }[] = [];
  for (const q of rewritten.queries) runs.push(await fusedSearch(ctx, q, filter, depth));
  let results = runs.length === 1 ? runs[0]!.results : interleave(runs.map((r) => r.results)).slice(0, depth);
  const linked = options.graph ? await graphRun(ctx, options.graph, query, filter, depth) : null;
  if (linked) {
    runs.push(linked);
    // Names are what the graph's query is made of: what joins is what holds them (the keyword arm found it), not
    // what merely resembles them (names embed alike, docs/graph.md).
    const joined = linked.results
      .filter((r) => r.keywordRank !== null || !ctx.searchCapabilities.keyword)
      .slice(0, ctx.options.graphRecall.depth);
    results = fuseRanks([results, joined], [1, ctx.options.graphRecall.weight]).slice(0, depth);
  }
  const usage = sumUsage([rewritten.usage, ...runs.map((r) => r.usage)]);
  if (!ctx.reranker) return { results: results.slice(0, limit), usage };
  const reranked = await rerankResults(query, results, ctx.reranker, depth, ctx.logger);
  return { results: reranked.results.slice(0, limit), usage: sumUsage([usage, reranked.usage]) };
}

/**
 * The queries a search runs: the caller's, then those the stack's rewriter proposes (secrets redacted before they
 * leave; empty, repeated and surplus ones dropped). A rewriter that fails leaves the caller's query alone (logged).
 */
async function rewrittenQueries(
  ctx: KnowledgeContext,
  query: string,
): Promise<{ queries: string[]; usage: TokenUsage }> {
  const rewriter = ctx.queryRewriter;
  const max = ctx.options.rewriteQueries;
  if (!rewriter || !(max >= 1)) return { queries: [query], usage: NO_USAGE };
  try {
    const answer = await rewriter.rewrite({ query: redactSecrets(query), max });
    const seen = new Set([query.trim().toLowerCase()]);
    const queries = [query];
    for (const q of Array.isArray(answer.queries) ? answer.queries : []) {
      if (typeof q !== 'string') continue;
      const text = q.trim().slice(0, MAX_QUERY_CHARS);
      if (text === '' || seen.has(text.toLowerCase()) || queries.length > max) continue;
      seen.add(text.toLowerCase());
      queries.push(text);
    }
    return { queries, usage: answer.usage ?? NO_USAGE };
  } catch (error) {
    ctx.logger.warn('query rewrite failed: searched the query as given', {
      rewriter: rewriter.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return { queries: [query], usage: NO_USAGE };
  }
}

/**
 * The search of the memory graph's query (recall that follows links, docs/graph.md), or null: no graph, `hops` 0, no
 * entity named, nothing around it. A graph that fails leaves the search as it was (logged).
 */
async function graphRun(
  ctx: KnowledgeContext,
  p: Principal,
  query: string,
  filter: SearchFilter,
  depth: number,
): Promise<{ results: SearchResult[]; usage: TokenUsage } | null> {
  const { hops } = ctx.options.graphRecall;
  if (!ctx.graphQuery || !(hops >= 1)) return null;
  let linked: string | null;
  try {
    linked = await ctx.graphQuery(p, query.slice(0, MAX_QUERY_CHARS), Math.min(2, Math.floor(hops)));
  } catch (error) {
    if (MemError.is(error) && error.code === 'STORE_UNAVAILABLE') throw error;
    ctx.logger.warn('the graph query failed: searched without it', {
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
  return linked === null ? null : fusedSearch(ctx, linked, filter, depth);
}

/** The rank offset of `fuseRanks`: small, so that a short list's first places count against a long list's. */
const RANK_OFFSET = 10;

/**
 * Rankings as one, each memory once, by weighted reciprocal ranks (Σ weight / (RANK_OFFSET + rank)); a tie keeps the
 * order of the first ranking. Each memory keeps the result of the ranking it came first in.
 */
function fuseRanks(runs: readonly SearchResult[][], weights: readonly number[]): SearchResult[] {
  const score = new Map<string, { result: SearchResult; score: number; order: number }>();
  let order = 0;
  for (const [r, run] of runs.entries()) {
    for (const [rank, result] of run.entries()) {
      const add = (weights[r] ?? 1) / (RANK_OFFSET + rank + 1);
      const had = score.get(result.id);
      if (had) had.score += add;
      else score.set(result.id, { result, score: add, order: order++ });
    }
  }
  return [...score.values()].sort((a, b) => b.score - a.score || a.order - b.order).map((x) => x.result);
}

/**
 * The results of several queries as one list, each memory once: round-robin over the queries' rankings (the caller's
 * query first), so that each part of a question reaches the top instead of the part most memories match.
 */
function interleave(runs: readonly SearchResult[][]): SearchResult[] {
  const out: SearchResult[] = [];
  const seen = new Set<string>();
  const longest = Math.max(...runs.map((r) => r.length));
  for (let i = 0; i < longest; i++)
    for (const run of runs) {
      const r = run[i];
      if (r && !seen.has(r.id)) {
        seen.add(r.id);
        out.push(r);
      }
    }
  return out;
}

function byScore(a: SearchResult, b: SearchResult): number {
  return b.score - a.score || b.relevance - a.relevance || a.id.localeCompare(b.id);
}

/** One query through both arms, fused and scored (docs/ranking.md), best first, at most `limit`. */
async function fusedSearch(
  ctx: KnowledgeContext,
  query: string,
  filter: SearchFilter,
  limit: number,
): Promise<{ results: SearchResult[]; usage: TokenUsage }> {
  // One store call: both arms, the rows of their hits and the neighbours of the best. The query's embedding is asked
  // for first, so that an embedder working elsewhere is busy while a store on this thread (SQLite) runs its keyword arm.
  const terms = ctx.searchCapabilities.keyword ? queryTerms(query, ctx.options.maxQueryTerms) : [];
  const embedding = ctx.embed([query]);
  let embedError: { error: unknown } | undefined;
  let queryVector: Float32Array | undefined;
  const vector = embedding.then(
    (e) => {
      queryVector = e?.vectors[0];
      return queryVector;
    },
    (error: unknown) => {
      embedError = { error };
      throw error;
    },
  );
  let ranked: FusedRanking | undefined;
  const rank = (found: FoundCandidates) => {
    ranked ??= fuseFound(ctx, query, found, { keyword: terms.length > 0, vector: queryVector !== undefined });
    return ranked;
  };
  const { weight, radius } = ctx.options.neighbours;
  const set = await ctx.withVectors(
    () =>
      ctx.knowledge.searchCandidates({
        filter,
        terms,
        vector,
        limit: armCandidates(limit, ctx.options),
        ...(weight > 0 && radius >= 1 ? { neighbours: { radius, around: (found) => rank(found).around } } : {}),
      }),
    // Rows carrying vectors of another length than the query's: the store may have been re-embedded meanwhile.
    (found) =>
      queryVector !== undefined &&
      found.rows.some((r) => r.embedding !== null && r.embedding.length !== queryVector!.length),
    // The embedder's own failure is not the store's: it stands as it is.
    (error) => embedError !== undefined && error === embedError.error,
  );
  const usage = (await embedding)?.usage ?? { ...NO_USAGE };
  const { fused, members, around, byId } = rank(set);
  if (fused.length === 0) return { results: [], usage };
  // Then the neighbouring turns and the session context.
  const fresh = set.neighbours.filter((rec) => !byId.has(rec.id));
  for (const rec of fresh) byId.set(rec.id, rec);
  const candidates = [
    ...fused,
    ...fresh.map((rec) => ({ id: rec.id, relevance: 0, keywordRank: null, vectorRank: null })),
  ];
  // A neighbour's own relevance is 0: no period lifts it.
  const all = [...members, ...fresh.flatMap((rec) => memberOf(ctx, null, byId, rec.id, 0))];
  const shared = neighbourShare(all, new Set(around), ctx.options.neighbours);
  const contextual = sessionContext(
    all.map((m) => ({ ...m, relevance: shared.get(m.id) ?? m.relevance })),
    ctx.options.session,
  );
  const similarityById = new Map(set.vectorHits.map((h) => [h.id, h.similarity]));
  const now = ctx.now();
  const results: SearchResult[] = [];
  for (const f of candidates) {
    const rec = byId.get(f.id);
    if (!rec) continue;
    let similarity = similarityById.get(f.id) ?? null;
    if (similarity === null && queryVector && rec.embedding && rec.embedding.length === queryVector.length)
      similarity = cosine(queryVector, rec.embedding);
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
  results.sort(byScore);
  return { results: results.slice(0, limit), usage };
}

/** The arms' hits fused (docs/ranking.md) with the time cue, and the best candidates whose neighbours are looked up. */
interface FusedRanking {
  fused: ReturnType<typeof fuseScores>;
  members: SessionMember[];
  /** The `depth` best members: the ids the store looks around. */
  around: string[];
  byId: Map<string, MemoryRecord>;
}

function fuseFound(
  ctx: KnowledgeContext,
  query: string,
  found: FoundCandidates,
  ran: { keyword: boolean; vector: boolean },
): FusedRanking {
  const byId = new Map(found.rows.map((r) => [r.id, r]));
  const fused = fuseScores(
    lengthFreeHits(found.keywordHits, byId, ctx.searchCapabilities.keywordLengthNorm),
    found.vectorHits,
    ctx.options.fusion,
    ran,
  );
  // A period the query names lifts the memories said in it (docs/ranking.md): read from the query once.
  const cue = ctx.options.timeCue.weight > 0 ? timeCue(query) : null;
  const members = fused.flatMap((f) => memberOf(ctx, cue, byId, f.id, f.relevance));
  const around = [...members]
    .sort((a, b) => b.relevance - a.relevance)
    .slice(0, ctx.options.neighbours.depth)
    .map((m) => m.id);
  return { fused, members, around, byId };
}

/** A candidate as the neighbour and session rules see it; a period the query names lifts what was said in it. */
function memberOf(
  ctx: KnowledgeContext,
  cue: TimeCue | null,
  byId: ReadonlyMap<string, MemoryRecord>,
  id: string,
  own: number,
): SessionMember[] {
  const rec = byId.get(id);
  if (!rec) return [];
  const { weight: cueWeight, afterDays } = ctx.options.timeCue;
  const at = Date.parse(rec.createdAt);
  const relevance = cue ? (own * (nearTimeCue(cue, at, afterDays) ? 1 + cueWeight : 1)) / (1 + cueWeight) : own;
  return [{ id, relevance, owner: `${rec.scope}/${rec.agentId}/${rec.source}`, at }];
}

/** memory-get: the whole document; counts one access. */

/** memory-dedup-check: is this text already remembered? Compares a likeness of wording and calibrated meaning (docs/ranking.md). */
export async function dedupCheck(ctx: KnowledgeContext, p: Principal, raw: unknown): Promise<DedupResult> {
  ctx.checkPrincipal(p);
  const input = parseInput(dedupCheckInput, 'memory-dedup-check', raw);
  const threshold = input.threshold ?? ctx.options.dedupThreshold;
  const limit = input.limit ?? 10;
  const filter = ctx.viewFilter(p);
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
  const filter = ctx.viewFilter(p);
  const merged = new Map<string, { r: SearchResult; best: number; hits: number }>();
  const spent: TokenUsage[] = [];
  for (const query of queries) {
    const { results, usage } = await rankedSearch(ctx, query, filter, limit, { graph: p });
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
  options: { limit?: number; threshold?: number; readHint?: string | null } = {},
): Promise<RecallBlock> {
  ctx.checkPrincipal(p);
  if (typeof task !== 'string' || task.trim().length === 0) {
    throw new MemError('INVALID_INPUT', 'Invalid input for recall: task must not be empty (give the task text).');
  }
  const limit = options.limit ?? ctx.options.recallLimit;
  const threshold = options.threshold ?? ctx.options.injectionThreshold;
  const filter = ctx.viewFilter(p);
  const query = task.slice(0, MAX_QUERY_CHARS);
  const searched = await rankedSearch(ctx, query, filter, limit, { rewrite: true, graph: p });
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
  const block = renderRecallBlock(memories, ctx.options.recallPreviewChars, options.readHint);
  return { block, memories, usage };
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
