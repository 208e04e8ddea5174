/** Ranking (docs/ranking.md): fusing the two arms, and the score factors. Pure functions. */

export interface FusionOptions {
  /** RRF constant k. */
  k: number;
  keywordWeight: number;
  vectorWeight: number;
}

/**
 * Arm weights (the vector arm a tie-breaker beside BM25 with the small local embedder), fitted by cross-validation over
 * LoCoMo's conversations (apps/bench README, `bench retrieval --cv`).
 */
export const DEFAULT_FUSION: FusionOptions = { k: 60, keywordWeight: 1, vectorWeight: 0.3 };

/**
 * The reciprocal-rank fusion of episode and procedure recall: the vector arm down-weighted as measured for rank fusion
 * with the small local embedder (weight 0.05; equal weights ranked below BM25 alone). Not refitted with the knowledge
 * search's score fusion, which keeps each arm's evidence strength and so takes a larger vector weight.
 */
export const DEFAULT_RRF_FUSION: FusionOptions = { k: 60, keywordWeight: 1, vectorWeight: 0.05 };

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

/**
 * How a store's keyword arm scales its scores by a text's length (declared in the store's capabilities), so that the
 * ranking can take that scaling out: memories are short, and a short turn that names the thing asked about should not
 * lose to a shorter one that names it too. `bm25`: Okapi BM25 with these k1 and b (SQLite FTS5, LanceDB, the
 * in-memory store); `log`: divided by 1 + ln(length) (PostgreSQL `ts_rank_cd` normalisation 1).
 */
export type KeywordLengthNorm = { kind: 'bm25'; k1: number; b: number } | { kind: 'log' };

/**
 * A keyword score as if the store had not normalised by length (BM25 with b = 0). Exact for BM25 when every matched
 * term occurs once in the text (the common case for short memories), close otherwise. `tokens` is the text's length
 * in words, `averageTokens` the mean over the keyword candidates (the store's corpus mean is not known to the core).
 */
export function withoutLengthNorm(
  score: number,
  tokens: number,
  averageTokens: number,
  norm: KeywordLengthNorm | undefined,
): number {
  if (!norm || !(score > 0)) return score;
  if (norm.kind === 'log') return score * (1 + Math.log(Math.max(1, tokens)));
  const relative = averageTokens > 0 ? tokens / averageTokens : 1;
  return (score * (1 + norm.k1 * (1 - norm.b + norm.b * relative))) / (1 + norm.k1);
}

/** What the session context needs of a candidate: its relevance, owner and when it was said. */
export interface SessionMember {
  id: string;
  relevance: number;
  /** The memory's owner and scope: only memories of one owner form a session. */
  owner: string;
  at: number;
}

export interface SessionContextOptions {
  /** Share of the session's best relevance added to each of its memories (0 turns the rule off). */
  weight: number;
  /** Memories of one owner at most this many minutes apart (in a chain) belong to one session. */
  gapMinutes: number;
}

/** Fitted by cross-validation over LoCoMo's conversations like the arm weights (apps/bench README). */
export const DEFAULT_SESSION_CONTEXT: SessionContextOptions = { weight: 1, gapMinutes: 30 };

/**
 * Relevance with the session context (docs/ranking.md): a memory said in the same session as a strong match is likely
 * part of the same exchange (the question was asked, the answer came two turns later). Sessions are formed from the
 * candidates: one owner's memories sorted by time, cut where two follow each other more than `gapMinutes` apart.
 * contextual = (own + weight × the session's best) / (1 + weight), so a lone strong match keeps 1 and a memory alone in
 * its session keeps its own relevance. Returns the new relevance per id.
 */
export function sessionContext(members: readonly SessionMember[], options: SessionContextOptions): Map<string, number> {
  const out = new Map<string, number>();
  if (!(options.weight > 0)) {
    for (const m of members) out.set(m.id, m.relevance);
    return out;
  }
  const gap = options.gapMinutes * 60_000;
  for (const list of groupBy(members, (m) => m.owner).values()) {
    list.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
    let start = 0;
    for (let i = 1; i <= list.length; i++) {
      if (i < list.length && list[i]!.at - list[i - 1]!.at <= gap) continue;
      const session = list.slice(start, i);
      const best = Math.max(...session.map((m) => m.relevance));
      for (const m of session) out.set(m.id, (m.relevance + options.weight * best) / (1 + options.weight));
      start = i;
    }
  }
  return out;
}

export interface NeighbourOptions {
  /** Share of the best neighbour's relevance added to a memory (0 turns the rule off, and the store is not asked). */
  weight: number;
  /** How many memories on each side of a strong match count as its neighbours. */
  radius: number;
  /** How many of the best candidates have their neighbours looked up. */
  depth: number;
}

/** Fitted by cross-validation over LoCoMo's conversations like the arm weights (apps/bench README). */
export const DEFAULT_NEIGHBOURS: NeighbourOptions = { weight: 1, radius: 2, depth: 3 };

/**
 * Relevance with the neighbouring turns (docs/ranking.md): the answer to a question is often the turn right after the
 * one that matches it. `members` are the candidates and the neighbours the store found around the `around` ones (own
 * relevance 0 when no arm found them); one owner's members in (at, id) order are the store's order, so the `radius`
 * members on each side of an `around` member are its true neighbours. Each neighbour rises to
 * (own + weight × the best around-member next to it) / (1 + weight) when that is more than its own relevance; every
 * other member keeps its own (a lone strong match keeps 1). Returns the new relevance per id.
 */
export function neighbourShare(
  members: readonly SessionMember[],
  around: ReadonlySet<string>,
  options: NeighbourOptions,
): Map<string, number> {
  const out = new Map<string, number>();
  if (!(options.weight > 0)) {
    for (const m of members) out.set(m.id, m.relevance);
    return out;
  }
  const best = new Map<string, number>();
  for (const line of groupBy(members, (m) => m.owner).values()) {
    line.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    line.forEach((m, i) => {
      if (!around.has(m.id)) return;
      for (let j = Math.max(0, i - options.radius); j <= Math.min(line.length - 1, i + options.radius); j++) {
        const n = line[j]!;
        if (j !== i && m.relevance > (best.get(n.id) ?? 0)) best.set(n.id, m.relevance);
      }
    });
  }
  for (const m of members) {
    const lift = (m.relevance + options.weight * (best.get(m.id) ?? 0)) / (1 + options.weight);
    out.set(m.id, Math.max(m.relevance, lift));
  }
  return out;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
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
