/**
 * The one ranking of procedures (SPEC §6): relevance combined with success rate. Every backend ranks with this
 * function: the stores return candidates, @mem/procedural fuses them and calls `rankProcedures`. Pure functions.
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
   * lets new procedures compete.
   */
  smoothing: number;
}

export const DEFAULT_PROCEDURE_RANKING: ProcedureRankingOptions = { successWeight: 0.5, smoothing: 0 };

/** The success rate the ranking uses (the plain rate when smoothing is 0). */
export function rankingRate(successCount: number, failureCount: number, smoothing: number): number {
  if (smoothing <= 0) return successRate(successCount, failureCount);
  return (successCount + smoothing / 2) / (successCount + failureCount + smoothing);
}

/** score = relevance × ((1 − w) + w × rate). Increases with relevance and with the success rate; 0 when irrelevant. */
export function procedureScore(
  relevance: number,
  successCount: number,
  failureCount: number,
  options: ProcedureRankingOptions = DEFAULT_PROCEDURE_RANKING,
): number {
  const w = Math.min(1, Math.max(0, options.successWeight));
  const rate = rankingRate(successCount, failureCount, options.smoothing);
  return Math.max(0, relevance) * (1 - w + w * rate);
}

export interface ProcedureCandidate {
  id: string;
  relevance: number;
  successCount: number;
  failureCount: number;
}

/** Candidates with their score, best first (ties: higher relevance, then id). */
export function rankProcedures<T extends ProcedureCandidate>(
  candidates: readonly T[],
  options: ProcedureRankingOptions = DEFAULT_PROCEDURE_RANKING,
): (T & { score: number; successRate: number })[] {
  return candidates
    .map((c) => ({
      ...c,
      score: procedureScore(c.relevance, c.successCount, c.failureCount, options),
      successRate: successRate(c.successCount, c.failureCount),
    }))
    .sort((a, b) => b.score - a.score || b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
