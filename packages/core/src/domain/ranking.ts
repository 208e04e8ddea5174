/** Ranking (docs/ranking.md): fusing the two arms, and the score factors. Pure functions. */

export interface FusionOptions {
  /** RRF constant k. */
  k: number;
  keywordWeight: number;
  vectorWeight: number;
}

export interface FusedEntry {
  id: string;
  /** Raw fused score Σ w / (k + rank). */
  fused: number;
  /** fused / the best fused score possible with the arms that ran: 1 = rank 1 in every arm. */
  relevance: number;
  keywordRank: number | null;
  vectorRank: number | null;
}

/** One entry per id, made on first sight: what both fusions fill in. */
function fusedEntries(): { byId: Map<string, FusedEntry>; entry: (id: string) => FusedEntry } {
  const byId = new Map<string, FusedEntry>();
  const entry = (id: string): FusedEntry => {
    let e = byId.get(id);
    if (!e) {
      e = { id, fused: 0, relevance: 0, keywordRank: null, vectorRank: null };
      byId.set(id, e);
    }
    return e;
  };
  return { byId, entry };
}

/**
 * Fuse two best-first id lists by weighted RRF. An id found by both arms gets both terms.
 * `armsRun` says which arms took part, so that relevance is normalised against what was possible.
 */
export function fuseRRF(
  keywordIds: readonly string[],
  vectorIds: readonly string[],
  options: FusionOptions,
  armsRun: { keyword: boolean; vector: boolean } = { keyword: true, vector: true },
): FusedEntry[] {
  const { byId, entry } = fusedEntries();
  keywordIds.forEach((id, i) => {
    const e = entry(id);
    if (e.keywordRank !== null) return;
    e.keywordRank = i + 1;
    e.fused += options.keywordWeight / (options.k + i + 1);
  });
  vectorIds.forEach((id, i) => {
    const e = entry(id);
    if (e.vectorRank !== null) return;
    e.vectorRank = i + 1;
    e.fused += options.vectorWeight / (options.k + i + 1);
  });
  const best =
    ((armsRun.keyword ? options.keywordWeight : 0) + (armsRun.vector ? options.vectorWeight : 0)) / (options.k + 1);
  const out = [...byId.values()];
  for (const e of out) e.relevance = best > 0 ? Math.min(1, e.fused / best) : 0;
  out.sort((a, b) => b.fused - a.fused || a.id.localeCompare(b.id));
  return out;
}

/**
 * Fuse the two arms keeping each one's evidence strength (the knowledge search): a keyword hit counts its BM25 score
 * relative to the best keyword hit (a text that shares one common word with the query stays far below one that
 * matches every term), a vector hit its cosine placed between the weakest and the best vector candidate (min–max, so
 * that the arm's floor of unrelated texts counts 0). relevance = (wK·keyword + wV·vector) / (wK + wV) over the arms that
 * ran, in [0, 1]: 1 = the best hit of every arm. Ranks are kept for the result fields. Sorted best first.
 */
export function fuseScores(
  keywordHits: readonly { id: string; score: number }[],
  vectorHits: readonly { id: string; similarity: number }[],
  options: FusionOptions,
  armsRun: { keyword: boolean; vector: boolean } = { keyword: true, vector: true },
): FusedEntry[] {
  const { byId, entry } = fusedEntries();
  const bestKeyword = Math.max(0, ...keywordHits.map((h) => h.score));
  keywordHits.forEach((h, i) => {
    const e = entry(h.id);
    if (e.keywordRank !== null) return;
    e.keywordRank = i + 1;
    if (bestKeyword > 0 && h.score > 0) e.fused += options.keywordWeight * (h.score / bestKeyword);
  });
  const sims = vectorHits.map((h) => h.similarity);
  const top = Math.max(...sims);
  const floor = Math.min(...sims);
  vectorHits.forEach((h, i) => {
    const e = entry(h.id);
    if (e.vectorRank !== null) return;
    e.vectorRank = i + 1;
    // One candidate, or all equal: each is the arm's best.
    const strength = top > floor ? (h.similarity - floor) / (top - floor) : h.similarity > 0 ? 1 : 0;
    e.fused += options.vectorWeight * strength;
  });
  const possible = (armsRun.keyword ? options.keywordWeight : 0) + (armsRun.vector ? options.vectorWeight : 0);
  const out = [...byId.values()];
  for (const e of out) e.relevance = possible > 0 ? Math.min(1, e.fused / possible) : 0;
  out.sort(
    (a, b) =>
      b.fused - a.fused ||
      (a.keywordRank ?? Number.MAX_SAFE_INTEGER) - (b.keywordRank ?? Number.MAX_SAFE_INTEGER) ||
      a.id.localeCompare(b.id),
  );
  return out;
}

/** recency = 2^(-ageDays / halfLife); 1 for no decay (null half-life) or age ≤ 0. */
export function recencyFactor(ageDays: number, halfLifeDays: number | null): number {
  if (halfLifeDays === null || ageDays <= 0) return 1;
  return 2 ** (-ageDays / halfLifeDays);
}

export interface AccessOptions {
  /** accessCount / perAccessDivisor, capped at `cap` (10 and 0.5 by default). */
  divisor: number;
  cap: number;
  /** Window in hours in which a last access counts fully; older accesses count half. */
  recentHours: number;
}

export const DEFAULT_ACCESS: AccessOptions = { divisor: 10, cap: 0.5, recentHours: 48 };

/** access = 1 + min(count/10, 0.5) × (last access within 48 h ? 1 : 0.5); 1 when never accessed. */
export function accessFactor(
  accessCount: number,
  hoursSinceLastAccess: number | null,
  options: AccessOptions = DEFAULT_ACCESS,
): number {
  if (accessCount <= 0 || hoursSinceLastAccess === null) return 1;
  const boost = Math.min(accessCount / options.divisor, options.cap);
  return 1 + boost * (hoursSinceLastAccess <= options.recentHours ? 1 : 0.5);
}

/** usefulness = clamp(2α/(α+β), 0.5, 2.0). */
export function usefulnessFactor(alpha: number, beta: number): number {
  const total = alpha + beta;
  if (total <= 0) return 1;
  return Math.min(2, Math.max(0.5, (2 * alpha) / total));
}

export interface ScoreFactors {
  relevance: number;
  recency: number;
  access: number;
  quality: number;
  pathWeight: number;
  usefulness: number;
}

/**
 * How far the multipliers together may move a result: their product M is squashed into [1/L, L] with
 * L^tanh(ln M / ln L), L = 2 — close to M itself for near-1 products (they reorder near-equals as before), never
 * more than ×2 or ÷2. So a result with more than 4× the relevance of another always ranks above it.
 */
export const MULTIPLIER_LIMIT = 2;

export function multiplierEffect(product: number): number {
  if (!(product > 0)) return 1 / MULTIPLIER_LIMIT;
  const l = Math.log(MULTIPLIER_LIMIT);
  return MULTIPLIER_LIMIT ** Math.tanh(Math.log(product) / l);
}

/** Final score: relevance × the bounded effect of recency × access × quality × pathWeight × usefulness. */
export function finalScore(f: ScoreFactors): number {
  return f.relevance * multiplierEffect(f.recency * f.access * f.quality * f.pathWeight * f.usefulness);
}

/** Cosine similarity of two vectors of equal length (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}
