/**
 * Fact rules (docs/structured.md): source priority, the merge of global and topic facts, and the key grammar of
 * extracted facts. Pure functions.
 */
import { MemError } from '../errors.js';
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

/**
 * The key grammar of extracted facts (consolidation, docs/structured.md): `<kind>.<subject>.<aspect>`, three
 * segments of lower-case kebab words (`[a-z0-9]+(-[a-z0-9]+)*`), e.g. `tool.deploy-tool.success-usage`. The keyword
 * extractor of `@mem/episodic` and the LLM extractor of `@mem/summarizer-llm` both make keys in it, so that the same
 * knowledge gets the same key whichever extractor found it. Facts written by hand (`fact-set`) may use any key.
 */
export const FACT_KEY_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*\.[a-z0-9]+(?:-[a-z0-9]+)*\.[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The longest segment of an extracted fact key, in characters. */
export const MAX_FACT_SEGMENT = 60;

/** Why `key` is not in the grammar of extracted fact keys, or null when it is. */
export function factKeyProblem(key: unknown): string | null {
  if (typeof key !== 'string')
    return `the key is ${key === undefined ? 'missing' : `a ${key === null ? 'null' : typeof key}, not a string`}`;
  const shown = `"${key.length > 80 ? `${key.slice(0, 80)}…` : key}"`;
  if (!FACT_KEY_PATTERN.test(key))
    return `the key ${shown} is not <kind>.<subject>.<aspect> in lower-case kebab words ([a-z0-9] joined by "-")`;
  if (key.split('.').some((segment) => segment.length > MAX_FACT_SEGMENT))
    return `the key ${shown} has a segment over ${MAX_FACT_SEGMENT} characters`;
  return null;
}

/**
 * Checks a key of an extracted fact against the grammar; returns it, or throws `INVALID_INPUT` saying what is
 * wrong and what a good key looks like.
 */
export function checkFactKey(key: unknown): string {
  const problem = factKeyProblem(key);
  if (problem !== null)
    throw new MemError(
      'INVALID_INPUT',
      `Invalid fact key: ${problem}. Use three lower-case kebab segments of at most ${MAX_FACT_SEGMENT} characters, e.g. "tool.deploy-tool.success-usage".`,
    );
  return key as string;
}

/**
 * The lower-case words of a free text (a tool or tag name, a segment an LLM proposed): accents dropped, camelCase
 * split, every run of characters outside `[a-z0-9]` a word boundary. `factKeyWords('Deploy_Tool v2')` is
 * `['deploy', 'tool', 'v2']`.
 */
export function factKeyWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * A free name as one segment of a fact key: its `factKeyWords` joined by `-` (`deploy_tool` → `deploy-tool`), cut
 * to `MAX_FACT_SEGMENT` characters at a word boundary when it can be. Empty when the name has no usable word (only
 * punctuation or a script without Latin letters or digits).
 */
export function factKeySegment(name: string): string {
  let segment = '';
  for (const word of factKeyWords(name)) {
    const next = segment === '' ? word : `${segment}-${word}`;
    if (next.length > MAX_FACT_SEGMENT) return segment === '' ? word.slice(0, MAX_FACT_SEGMENT) : segment;
    segment = next;
  }
  return segment;
}
