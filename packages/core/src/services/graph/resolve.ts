/**
 * Entity resolution (docs/graph.md): which visible, current entity a name means. Steps, in order: the exact name, then
 * the normalised name (`entityKey`: case, accents, punctuation, legal forms), then an alias; for a new entity of a
 * known type, then a similar name (`similarKeys`) of the same type, confirmed by the embedder when the stack has one.
 * Each answer says the step that matched, which the graph's log keeps.
 */
import { checkedEntityKey } from '../../domain/graph.js';
import { candidatePrefixes, type SimilarKind, similarKeys } from '../../domain/graph-similar.js';
import { cosine } from '../../domain/ranking.js';
import type { Embedder } from '../../ports/embedder.js';
import type { EntityResolver } from '../../ports/entity-resolver.js';
import type { GraphStore, GraphView } from '../../ports/graph-store.js';
import type { Logger } from '../../ports/logger.js';
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
  /** The form the rules found, or `model`: the model named it. */
  kind: SimilarKind | 'model';
  /** The names' cosine, or null without an embedder. */
  cosine: number | null;
}

/** How many known entities the model is shown at most. */
const MODEL_CANDIDATES = 5;

/** What the similar-name and model steps may use besides the store. */
export interface SimilarSteps {
  embedder?: Embedder | undefined;
  resolver?: EntityResolver | undefined;
  logger?: Logger | undefined;
  /** The new entity's observations (shown to the model). */
  observations?: readonly string[];
}

/**
 * The entity of `entityType` a new name is another form of, or null. Step `similar`: keys read by prefix, kept when
 * `similarKeys` to the name's, their entities read when visible, current and of the type, then (with an embedder)
 * when the names' cosine reaches SIMILAR_NAME_COSINE; the closest wins, the oldest on a tie. Step `model` (with a
 * resolver, when no similar name is kept): the entities of the type under the name's first letters or sharing one
 * of its words, most alike first, shown to the model, which names one or none. A resolver that fails leaves the name new (logged).
 */
export async function findSimilar(
  store: GraphStore,
  space: string,
  name: string,
  entityType: string,
  view: GraphView,
  steps: SimilarSteps = {},
): Promise<SimilarMatch | null> {
  const { embedder, resolver } = steps;
  const key = checkedEntityKey(name);
  const prefixes = candidatePrefixes(key);
  if (resolver && key.length >= 2) prefixes.push(key.slice(0, 2));
  const kinds = new Map<string, SimilarKind | null>();
  for (const k of await store.keys(space, [...new Set(prefixes)], CANDIDATES)) {
    if (kinds.get(k.entityId)) continue;
    kinds.set(k.entityId, k.key === key ? null : similarKeys(key, k.key));
  }
  // The model also sees entities that share a word of the name ("Bob Smith" / "Robert Smith"): a scan of the space's
  // search text, paid only when a model is asked anyway.
  const words = resolver ? key.split(' ').filter((w) => w.length >= 3) : [];
  const byWord = words.length > 0 ? await store.entities(space, { words, limit: CANDIDATES }, view) : [];
  if (kinds.size === 0 && byWord.length === 0) return null;
  const byId = new Map(byWord.map((e) => [e.id, e]));
  for (const e of kinds.size === 0 ? [] : await store.entities(space, { ids: [...kinds.keys()] }, view))
    byId.set(e.id, e);
  const read = [...byId.values()].filter((e) => e.entityType === entityType && e.keys[0] !== key);
  const ruled = read.filter((e) => kinds.get(e.id));
  const pool = resolver ? read : ruled;
  if (pool.length === 0) return null;
  const cosines = new Map<string, number>();
  if (embedder) {
    const [mine, ...theirs] = await embedder.embed([name, ...pool.map((e) => e.name)]);
    pool.forEach((e, i) => {
      cosines.set(e.id, cosine(mine!, theirs[i]!));
    });
  }
  const alike = (a: EntityRecord, b: EntityRecord) =>
    (cosines.get(b.id) ?? 0) - (cosines.get(a.id) ?? 0) || (older(a, b) === a ? -1 : 1);
  const kept = ruled.filter((e) => !cosines.has(e.id) || cosines.get(e.id)! >= SIMILAR_NAME_COSINE).sort(alike);
  if (kept[0]) return { entity: kept[0], kind: kinds.get(kept[0].id)!, cosine: cosines.get(kept[0].id) ?? null };
  if (!resolver) return null;
  const shown = [...pool].sort(alike).slice(0, MODEL_CANDIDATES);
  const texts = new Map<string, string[]>();
  for (const o of await store.observations(
    space,
    shown.map((e) => e.id),
    view,
  )) {
    const list = texts.get(o.entityId) ?? [];
    list.push(o.text);
    texts.set(o.entityId, list);
  }
  try {
    const { match } = await resolver.resolve({
      name,
      entityType,
      observations: [...(steps.observations ?? [])].slice(-5),
      candidates: shown.map((e) => ({
        name: e.name,
        entityType: e.entityType,
        aliases: [...e.aliases],
        observations: (texts.get(e.id) ?? []).slice(-5),
      })),
    });
    const chosen = match === null || !Number.isInteger(match) ? undefined : shown[match];
    return chosen ? { entity: chosen, kind: 'model', cosine: cosines.get(chosen.id) ?? null } : null;
  } catch (error) {
    steps.logger?.warn('entity resolution: the model failed, the name stays a new entity', {
      resolver: resolver.id,
      name,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}
