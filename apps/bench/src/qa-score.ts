/**
 * The figures of `mem bench qa` (src/qa.ts) from its per-question records: J (the share of questions the judge
 * labelled CORRECT; a question whose retrieval, answer or judging failed counts as WRONG and as a failure) overall and
 * per LoCoMo category, tokens per question, retrieval and answer times, failures by kind.
 */
import { CATEGORY_NAMES } from './metrics.js';
import type { Label } from './qa-prompts.js';
import { percentile, round } from './stats.js';

export type FailureKind = 'retrieval' | 'answer-endpoint' | 'answer-refused' | 'judge-endpoint' | 'judge-unreadable';

export interface Tokens {
  context: number;
  answer_input: number;
  answer_output: number;
  judge_input: number;
  judge_output: number;
}

export const noTokens = (): Tokens => ({
  context: 0,
  answer_input: 0,
  answer_output: 0,
  judge_input: 0,
  judge_output: 0,
});

export interface QuestionRecord {
  conversation: string;
  question: string;
  category: number;
  gold: string;
  /** The model's answer; null when none was had (a failure before or at the answer). */
  answer: string | null;
  /** The judge's label; WRONG for every failure. */
  label: Label;
  /** The judge's label read from prose or repaired JSON. */
  lenient?: true;
  failure?: { kind: FailureKind; reason: string };
  /** Memories (turns) in the context. */
  items: number;
  tokens: Tokens;
  retrieval_ms?: number;
  answer_ms?: number;
}

export interface StackSummary {
  name: string;
  questions: number;
  correct: number;
  /** Share of questions labelled CORRECT (failures count as WRONG). */
  j: number;
  by_category: Record<string, { questions: number; correct: number; j: number }>;
  tokens: { per_question: Tokens; total: Tokens };
  retrieval_ms: { p50: number; p95: number };
  answer_ms: { p50: number; p95: number };
  failures: { count: number; by_kind: Partial<Record<FailureKind, number>> };
  /** Judge answers read leniently (prose, or JSON that needed repair) and counted. */
  judge_lenient: number;
  /** Turns mem refused at ingest (the mem stack). */
  refused_turns?: number;
  records: QuestionRecord[];
}

/** A stack that did not run (its package is missing, it failed to open): a row with the reason. */
export interface StackSkipped {
  name: string;
  skipped: string;
}

export type StackResult = StackSummary | StackSkipped;

export const isSkipped = (r: StackResult): r is StackSkipped => 'skipped' in r;

const share = (correct: number, n: number) => (n === 0 ? Number.NaN : round(correct / n, 3));
const times = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)) });

export function summariseStack(name: string, records: QuestionRecord[], refusedTurns?: number): StackSummary {
  const total = noTokens();
  for (const r of records) for (const key of Object.keys(total) as (keyof Tokens)[]) total[key] += r.tokens[key];
  const perQuestion = noTokens();
  for (const key of Object.keys(total) as (keyof Tokens)[])
    perQuestion[key] = records.length === 0 ? 0 : round(total[key] / records.length, 1);
  const byCategory: StackSummary['by_category'] = {};
  for (const cat of [...new Set(records.map((r) => r.category))].sort()) {
    const mine = records.filter((r) => r.category === cat);
    const correct = mine.filter((r) => r.label === 'CORRECT').length;
    byCategory[CATEGORY_NAMES[cat] ?? `category ${cat}`] = {
      questions: mine.length,
      correct,
      j: share(correct, mine.length),
    };
  }
  const byKind: StackSummary['failures']['by_kind'] = {};
  for (const r of records) if (r.failure) byKind[r.failure.kind] = (byKind[r.failure.kind] ?? 0) + 1;
  const correct = records.filter((r) => r.label === 'CORRECT').length;
  return {
    name,
    questions: records.length,
    correct,
    j: share(correct, records.length),
    by_category: byCategory,
    tokens: { per_question: perQuestion, total },
    retrieval_ms: times(records.flatMap((r) => (r.retrieval_ms === undefined ? [] : [r.retrieval_ms]))),
    answer_ms: times(records.flatMap((r) => (r.answer_ms === undefined ? [] : [r.answer_ms]))),
    failures: { count: records.filter((r) => r.failure).length, by_kind: byKind },
    judge_lenient: records.filter((r) => r.lenient).length,
    ...(refusedTurns !== undefined ? { refused_turns: refusedTurns } : {}),
    records,
  };
}
