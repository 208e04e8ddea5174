/** Retrieval metrics over ranked id lists and a set of relevant ids. */
export function recallAny(ranked: string[], relevant: Set<string>, k: number): number {
  return ranked.slice(0, k).some((id) => relevant.has(id)) ? 1 : 0;
}

export function recallAll(ranked: string[], relevant: Set<string>, k: number): number {
  const top = new Set(ranked.slice(0, k));
  for (const id of relevant) if (!top.has(id)) return 0;
  return 1;
}

export function ndcg(ranked: string[], relevant: Set<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function mrr(ranked: string[], relevant: Set<string>): number {
  const i = ranked.findIndex((id) => relevant.has(id));
  return i === -1 ? 0 : 1 / (i + 1);
}

/** LoCoMo's question categories by number. */
export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

export const KS = [5, 10, 20] as const;

/** One question's figures. */
export interface QuestionOutcome {
  conversation: string;
  category: number;
  any: number[];
  all: number[];
  ndcg10: number;
  mrr: number;
}

export function outcome(
  conversation: string,
  category: number,
  ranked: string[],
  relevant: Set<string>,
): QuestionOutcome {
  return {
    conversation,
    category,
    any: KS.map((k) => recallAny(ranked, relevant, k)),
    all: KS.map((k) => recallAll(ranked, relevant, k)),
    ndcg10: ndcg(ranked, relevant, 10),
    mrr: mrr(ranked, relevant),
  };
}

export interface CategorySummary {
  n: number;
  recall_any: Record<string, number>;
  recall_all: Record<string, number>;
  ndcg10: number;
  mrr: number;
}

export interface Summary extends CategorySummary {
  questions: number;
  by_category: Record<string, CategorySummary>;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function mean(outcomes: readonly QuestionOutcome[]): CategorySummary {
  const n = outcomes.length || 1;
  const sum = (f: (o: QuestionOutcome) => number) => r3(outcomes.reduce((s, o) => s + f(o), 0) / n);
  return {
    n: outcomes.length,
    recall_any: Object.fromEntries(KS.map((k, i) => [String(k), sum((o) => o.any[i]!)])),
    recall_all: Object.fromEntries(KS.map((k, i) => [String(k), sum((o) => o.all[i]!)])),
    ndcg10: sum((o) => o.ndcg10),
    mrr: sum((o) => o.mrr),
  };
}

/** Means over all questions and per category (named). */
export function summarise(outcomes: readonly QuestionOutcome[]): Summary {
  const categories = [...new Set(outcomes.map((o) => o.category))].sort();
  return {
    ...mean(outcomes),
    questions: outcomes.length,
    by_category: Object.fromEntries(
      categories.map((c) => [CATEGORY_NAMES[c] ?? String(c), mean(outcomes.filter((o) => o.category === c))]),
    ),
  };
}
