/**
 * Entity resolution (docs/graph.md): which visible, current entity a name means. Steps, in order: the exact name, then
 * the normalised name (`entityKey`: case, accents, punctuation, legal forms), then an alias. Each answer says the step
 * that matched, which the graph's log keeps.
 */
import { checkedEntityKey } from '../../domain/graph.js';
import type { GraphStore, GraphView } from '../../ports/graph-store.js';
import type { EntityRecord } from '../../types-graph.js';

/** How a name was matched: `exact` (the same name), `name` (the same normalised name), `alias`. */
export type ResolutionStep = 'exact' | 'name' | 'alias';

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
  const rank: Record<ResolutionStep, number> = { exact: 0, name: 1, alias: 2 };
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
