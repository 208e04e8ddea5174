/** How knowledge results print for a person in the `mem` command (the `--json` output is the answer itself). */
import type { SearchResultJson } from '@mem/core';

const fmt = (n: number | null, d = 3) => (n === null ? '—' : n.toFixed(d));

/** One line of at most `max` characters, whitespace folded. */
export function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** One line per item (`line(item, index)`), or `empty` when there is none: how a list prints for a person. */
export function linesOr<T>(items: readonly T[], empty: string, line: (item: T, index: number) => string): string {
  return items.length === 0 ? empty : items.map(line).join('\n');
}

/** Ranked results: name and scores, where the memory lives, the matching text. */
export function renderResults(results: readonly SearchResultJson[]): string {
  return linesOr(
    results,
    'No memories found.',
    (r, i) =>
      `${i + 1}. ${r.name}  [score ${fmt(r.score)} · relevance ${fmt(r.relevance)} · similarity ${fmt(r.similarity)}]\n` +
      `   id ${r.id}${r.chunkCount > 1 ? ` (chunk ${r.chunkIndex + 1}/${r.chunkCount})` : ''} · ${r.key} · ${r.scope} · ${r.source}${r.tags.length ? ` · #${r.tags.join(' #')}` : ''}\n` +
      `   ${oneLine(r.content)}`,
  );
}
