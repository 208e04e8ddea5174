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
