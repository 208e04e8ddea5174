/**
 * The one ranking of procedures (docs/structured.md): relevance combined with success rate. Every backend ranks with these
 * functions: the stores return candidates (keyword scores, cosine similarities), @mem/procedural gathers them and
 * calls `rankProcedures`. Pure functions.
 *
 * Relevance here is score-based, not rank-based: two procedures that match a query equally well get the same
 * relevance, so their track records decide; a procedure that barely matches stays low however often it succeeded.
 * (Reciprocal-rank relevance would give rank 2 about 0.98 of rank 1, letting the success rate swamp relevance.)
 */

/** successes / uses; 0 when unused. */
export function successRate(successCount: number, failureCount: number): number {
  const uses = successCount + failureCount;
  return uses > 0 ? successCount / uses : 0;
}

export interface ProcedureRankingOptions {
  /**
   * How much the track record weighs, in [0, 1]: score = relevance × ((1 − w) + w × rate).
   * 0 ranks by relevance alone; 1 makes a never-successful procedure score 0.
   */
  successWeight: number;
  /**
   * Pseudo-uses pulling the rate used for ranking toward 0.5: rate = (s + m/2) / (s + f + m). 0 (the default) uses
   * the plain success rate of the spec, so an unused procedure ranks like one that always failed; a small m (e.g. 2)
   * lets new procedures compete with proven ones.
   */
  smoothing: number;
  /** Weight of the keyword arm in relevance (its score divided by the best keyword score among the candidates). */
  keywordWeight: number;
  /** Weight of the vector arm in relevance (its cosine, negatives counted as 0). */
  vectorWeight: number;
}

export const DEFAULT_PROCEDURE_RANKING: ProcedureRankingOptions = {
  successWeight: 0.5,
  smoothing: 0,
  keywordWeight: 1,
  vectorWeight: 0.5,
};

/** The success rate the ranking uses (the plain rate when smoothing is 0). */
export function rankingRate(successCount: number, failureCount: number, smoothing: number): number {
  if (smoothing <= 0) return successRate(successCount, failureCount);
  return (successCount + smoothing / 2) / (successCount + failureCount + smoothing);
}

/** Which arms ran for the query (an arm that did not run does not count against a candidate). */
export interface ArmsRun {
  keyword: boolean;
  vector: boolean;
}

/**
 * Relevance in [0, 1]: the weighted mean, over the arms that ran, of keywordScore / topKeywordScore and
 * max(0, similarity). A candidate an arm did not find gets 0 from that arm.
 */
export function procedureRelevance(
  hit: { keywordScore: number | null; similarity: number | null },
  topKeywordScore: number,
  arms: ArmsRun,
  options: Pick<ProcedureRankingOptions, 'keywordWeight' | 'vectorWeight'> = DEFAULT_PROCEDURE_RANKING,
): number {
  let sum = 0;
  let weight = 0;
  if (arms.keyword && options.keywordWeight > 0) {
    weight += options.keywordWeight;
    if (hit.keywordScore !== null && topKeywordScore > 0)
      sum += options.keywordWeight * Math.min(1, Math.max(0, hit.keywordScore / topKeywordScore));
  }
  if (arms.vector && options.vectorWeight > 0) {
    weight += options.vectorWeight;
    if (hit.similarity !== null) sum += options.vectorWeight * Math.min(1, Math.max(0, hit.similarity));
  }
  return weight > 0 ? sum / weight : 0;
}

/** score = relevance × ((1 − w) + w × rate). Increases with relevance and with the success rate; 0 when irrelevant. */
export function procedureScore(
  relevance: number,
  successCount: number,
  failureCount: number,
  options: Pick<ProcedureRankingOptions, 'successWeight' | 'smoothing'> = DEFAULT_PROCEDURE_RANKING,
): number {
  const w = Math.min(1, Math.max(0, options.successWeight));
  const rate = rankingRate(successCount, failureCount, options.smoothing);
  return Math.max(0, relevance) * (1 - w + w * rate);
}

export interface ProcedureCandidate {
  id: string;
  /** The keyword arm's score (BM25-like, higher is better), or null when that arm did not find it. */
  keywordScore: number | null;
  /** The vector arm's raw cosine, or null when that arm did not find it. */
  similarity: number | null;
  successCount: number;
  failureCount: number;
}

export type RankedProcedure<T extends ProcedureCandidate> = T & {
  relevance: number;
  score: number;
  successRate: number;
};

/**
 * Candidates with relevance, success rate and score, best first (ties: higher relevance, then the better track
 * record, then id).
 * Candidates with no relevance at all are dropped.
 */
export function rankProcedures<T extends ProcedureCandidate>(
  candidates: readonly T[],
  arms: ArmsRun,
  options: ProcedureRankingOptions = DEFAULT_PROCEDURE_RANKING,
): RankedProcedure<T>[] {
  const top = Math.max(0, ...candidates.map((c) => c.keywordScore ?? 0));
  return candidates
    .map((c) => {
      const relevance = procedureRelevance(c, top, arms, options);
      return {
        ...c,
        relevance,
        score: procedureScore(relevance, c.successCount, c.failureCount, options),
        successRate: successRate(c.successCount, c.failureCount),
      };
    })
    .filter((c) => c.relevance > 0)
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.relevance - a.relevance ||
        rankingRate(b.successCount, b.failureCount, options.smoothing) -
          rankingRate(a.successCount, a.failureCount, options.smoothing) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}
