/**
 * Entity resolution (docs/graph.md): which visible, current entity a name means. Steps, in order: the exact name, then
 * the normalised name (`entityKey`: case, accents, punctuation, legal forms), then an alias; for a new entity of a
 * known type, then a similar name (`similarKeys`) of the same type, confirmed by the embedder when the stack has one.
 * Each answer says the step that matched, which the graph's log keeps.
 */
import { checkedEntityKey } from '../../domain/graph.js';
import { candidatePrefixes, type SimilarKind, similarKeys } from '../../domain/graph-similar.js';
import type { Embedder } from '../../ports/embedder.js';
import type { GraphStore, GraphView } from '../../ports/graph-store.js';
import type { EntityRecord } from '../../types-graph.js';

/** How a name was matched: `exact` (the same name), `name` (the same normalised name), `alias`, `similar`. */
export type ResolutionStep = 'exact' | 'name' | 'alias' | 'similar';

/** `exact`: only an entity of exactly this name (the MCP memory server's rule, and import); `key`: every step. */
export type ResolutionMode = 'exact' | 'key';

export interface Resolved {
  entity: EntityRecord;
  step: ResolutionStep;
}

const older = (a: EntityRecord, b: EntityRecord) =>
  a.recordedAt < b.recordedAt || (a.recordedAt === b.recordedAt && a.id < b.id) ? a : b;

/** Pick among entities sharing a key: the exact name first, then the same normalised name, then an alias; oldest wins a tie. */
export function pick(candidates: readonly EntityRecord[], name: string, mode: ResolutionMode): Resolved | null {
  const key = checkedEntityKey(name);
  let best: Resolved | null = null;
  const rank: Record<ResolutionStep, number> = { exact: 0, name: 1, alias: 2, similar: 3 };
  for (const entity of candidates) {
    const step: ResolutionStep | null =
      entity.name === name
        ? 'exact'
        : mode === 'exact'
          ? null
          : entity.keys[0] === key
            ? 'name'
            : entity.keys.includes(key)
              ? 'alias'
              : null;
    if (step === null) continue;
    if (
      !best ||
      rank[step] < rank[best.step] ||
      (rank[step] === rank[best.step] && older(entity, best.entity) === entity)
    ) {
      best = { entity, step };
    }
  }
  return best;
}

/** Resolve many names with one read: name → what it means (absent: nothing visible and current). */
export async function resolveNames(
  store: GraphStore,
  space: string,
  names: readonly string[],
  view: GraphView,
  mode: ResolutionMode,
): Promise<Map<string, Resolved>> {
  const keys = [...new Set(names.map(checkedEntityKey))];
  const found = keys.length === 0 ? [] : await store.entities(space, { keys }, view);
  const out = new Map<string, Resolved>();
  for (const name of new Set(names)) {
    const hit = pick(found, name, mode);
    if (hit) out.set(name, hit);
  }
  return out;
}

/** How many resolution keys one new name reads at most under each of its prefixes. */
const CANDIDATES = 200;
/**
 * The least cosine of two names' embeddings for a similar name to count. Low on purpose: on the local embedder,
 * look-alikes ("Emily Stone" / "Emma Stone" 0.86) score as high as true variants ("Jon" / "John Smith" 0.70), so
 * the embedding only vetoes what the spelling rule let through and the two names do not mean alike.
 */
export const SIMILAR_NAME_COSINE = 0.5;

export interface SimilarMatch {
  entity: EntityRecord;
  kind: SimilarKind;
  /** The names' cosine, or null without an embedder. */
  cosine: number | null;
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
};

/**
 * The entity of `entityType` a new name is another form of (step `similar`), or null: keys read by prefix, kept when
 * `similarKeys` to the name's, their entities read when visible, current and of the type, then (with an embedder) when the names' cosine reaches
 * SIMILAR_NAME_COSINE; the closest wins, the oldest on a tie.
 */
export async function findSimilar(
  store: GraphStore,
  space: string,
  name: string,
  entityType: string,
  view: GraphView,
  embedder: Embedder | undefined,
): Promise<SimilarMatch | null> {
  const key = checkedEntityKey(name);
  const kinds = new Map<string, SimilarKind>();
  for (const k of await store.keys(space, candidatePrefixes(key), CANDIDATES)) {
    const kind = kinds.has(k.entityId) ? null : similarKeys(key, k.key);
    if (kind) kinds.set(k.entityId, kind);
  }
  if (kinds.size === 0) return null;
  const matches: SimilarMatch[] = (await store.entities(space, { ids: [...kinds.keys()] }, view))
    .filter((e) => e.entityType === entityType)
    .map((entity) => ({ entity, kind: kinds.get(entity.id)!, cosine: null }));
  if (matches.length === 0) return null;
  if (embedder) {
    const [mine, ...theirs] = await embedder.embed([name, ...matches.map((m) => m.entity.name)]);
    matches.forEach((m, i) => {
      m.cosine = cosine(mine!, theirs[i]!);
    });
  }
  const kept = matches.filter((m) => m.cosine === null || m.cosine >= SIMILAR_NAME_COSINE);
  kept.sort((a, b) => (b.cosine ?? 0) - (a.cosine ?? 0) || (older(a.entity, b.entity) === a.entity ? -1 : 1));
  return kept[0] ?? null;
}
