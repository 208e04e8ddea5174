/** Fact rules (docs/structured.md): source priority and the merge of global and topic facts. Pure functions. */
import type { Fact, FactSource } from '../types-structured.js';

/** Higher wins: user > ai_inferred > mcp > other. */
export const FACT_SOURCE_PRIORITY: Readonly<Record<FactSource, number>> = { user: 3, ai_inferred: 2, mcp: 1, other: 0 };

export function factPriority(source: FactSource): number {
  return FACT_SOURCE_PRIORITY[source];
}

/**
 * May a write from `incoming` replace a fact stored from `stored`? Yes when its priority is at least the stored
 * one's (the same source updates its own fact); a lower-priority write never overwrites a higher one.
 */
export function mayReplaceFact(stored: FactSource, incoming: FactSource): boolean {
  return factPriority(incoming) >= factPriority(stored);
}

/**
 * The facts a reader of (user, topic) sees: the global facts (topic null), overlaid per key by the facts of
 * `topic` when one is given (the topic fact wins). Facts of other topics are ignored. Ordered by key.
 */
export function mergeFacts(facts: readonly Fact[], topic?: string | null): Fact[] {
  const byKey = new Map<string, Fact>();
  for (const f of facts) if (f.topic === null) byKey.set(f.key, f);
  if (topic !== undefined && topic !== null) for (const f of facts) if (f.topic === topic) byKey.set(f.key, f);
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
