/**
 * Recall that follows links (docs/graph.md): the query a search adds when the memory graph knows the entities its
 * query names. Runs of one to three words of the query are resolved as names (one read); around each entity found,
 * its neighbourhood over current relations (1–2 hops) becomes text — the relation and the entity at its other end
 * ("sister Ann", "lives in Boston") — so that the memories about those neighbours join the candidates, fused with
 * the caller's query. Null when the query names no entity or nothing is around it.
 */
import { entityKey } from '../../domain/graph.js';
import { MemError } from '../../errors.js';
import type { Principal } from '../../types.js';
import type { GraphService } from './index.js';

/** Words a name never starts or ends with (a run of them alone names nothing). */
const FILLER = new Set(
  'a an and are as at be by did do does for from had has have he her his how i in is it its me my of on or our she so that the their them they this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);
/** At most this many entities named, of runs tried, and of neighbours in the query. */
const CAPS = { named: 3, runs: 120, neighbours: 12 } as const;

/** The runs of one to three words that may be names: not starting or ending with a filler word. */
export function nameRuns(query: string): string[] {
  const words = query.split(/[^\p{L}\p{N}+#'’-]+/u).filter((w) => w.length > 0);
  const runs = new Map<string, string>();
  for (let i = 0; i < words.length && runs.size < CAPS.runs; i++)
    for (let n = 3; n >= 1; n--) {
      const run = words.slice(i, i + n);
      if (run.length < n) continue;
      const ends = [run[0]!, run.at(-1)!].map((w) => w.toLowerCase().replace(/['’]s$/, ''));
      if (ends.some((w) => FILLER.has(w))) continue;
      // "Caroline's" names Caroline.
      const text = run.join(' ').replace(/['’]s$/u, '');
      const key = entityKey(text);
      if (key.length >= 2 && !runs.has(key)) runs.set(key, text);
    }
  return [...runs.values()];
}

/** Relation types as words: `has_sister` → "sister", `lives_in` → "lives in". */
const relationWords = (type: string) =>
  type
    .split(/[_\s-]+/)
    .filter((w) => w.length > 0 && w !== 'has')
    .join(' ');

/** The graph's query for `query` within `hops` of the entities it names, or null. */
export async function linkedQuery(
  graph: GraphService,
  p: Principal,
  query: string,
  hops: number,
): Promise<string | null> {
  const runs = nameRuns(query);
  if (runs.length === 0) return null;
  const found = (await graph.openNodes(p, { names: runs })).entities.slice(0, CAPS.named);
  if (found.length === 0) return null;
  const named = new Set(found.map((e) => entityKey(e.name)));
  const parts: { hops: number; text: string }[] = [];
  const seen = new Set<string>();
  for (const e of found) {
    let around: Awaited<ReturnType<GraphService['neighbours']>>;
    try {
      around = await graph.neighbours(p, { name: e.name, hops });
    } catch (error) {
      if (MemError.is(error) && error.code === 'NOT_FOUND') continue;
      throw error;
    }
    const distance = new Map(around.entities.map((x) => [x.name, x.hops]));
    for (const r of around.relations) {
      // The end farther from the entity named is what the relation leads to.
      const far = (distance.get(r.from) ?? 0) <= (distance.get(r.to) ?? 0) ? r.to : r.from;
      if (named.has(entityKey(far)) || seen.has(`${r.relationType}\u0000${far}`)) continue;
      seen.add(`${r.relationType}\u0000${far}`);
      parts.push({ hops: distance.get(far) ?? hops, text: `${relationWords(r.relationType)} ${far}`.trim() });
    }
  }
  if (parts.length === 0) return null;
  parts.sort((a, b) => a.hops - b.hops);
  return parts
    .slice(0, CAPS.neighbours)
    .map((x) => x.text)
    .join('; ');
}
