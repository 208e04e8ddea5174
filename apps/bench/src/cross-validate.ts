/**
 * Weights fitted without looking at the questions they are reported on: leave one conversation out. For each
 * conversation, the configuration with the best mean of recall_any@10 and NDCG@10 over the *other* conversations is
 * chosen, and its figures on the held-out conversation are kept; the report is the mean over those held-out figures.
 */
import { type QuestionOutcome, type Summary, summarise } from './metrics.js';

export interface Candidate<C> {
  label: string;
  config: C;
  outcomes: readonly QuestionOutcome[];
}

export interface CrossValidation {
  /** The held-out figures, every question counted once (on the fold that held its conversation out). */
  heldOut: Summary;
  /** The configuration chosen per held-out conversation. */
  chosen: Record<string, string>;
  /** The configuration chosen on all conversations (what a default would be). */
  overall: string;
}

const objective = (outcomes: readonly QuestionOutcome[]) =>
  outcomes.length === 0 ? 0 : outcomes.reduce((s, o) => s + o.any[1]! + o.ndcg10, 0) / outcomes.length;

function best<C>(candidates: readonly Candidate<C>[], keep: (o: QuestionOutcome) => boolean): Candidate<C> {
  let top = candidates[0]!;
  let topValue = Number.NEGATIVE_INFINITY;
  for (const c of candidates) {
    const value = objective(c.outcomes.filter(keep));
    if (value > topValue) {
      top = c;
      topValue = value;
    }
  }
  return top;
}

export function crossValidate<C>(candidates: readonly Candidate<C>[]): CrossValidation {
  if (candidates.length === 0) throw new Error('crossValidate: no candidate configuration');
  const conversations = [...new Set(candidates[0]!.outcomes.map((o) => o.conversation))];
  const heldOut: QuestionOutcome[] = [];
  const chosen: Record<string, string> = {};
  for (const held of conversations) {
    const pick = best(candidates, (o) => o.conversation !== held);
    chosen[held] = pick.label;
    heldOut.push(...pick.outcomes.filter((o) => o.conversation === held));
  }
  return { heldOut: summarise(heldOut), chosen, overall: best(candidates, () => true).label };
}
