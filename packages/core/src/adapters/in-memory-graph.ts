/** The memory graph kept in process memory: the reference behaviour of the graph port. */
import { entitySearchText, graphHolds, graphVisible, observationHolds, onlyOn } from '../domain/graph.js';
import type {
  ByIds,
  EntityQuery,
  GraphDeleted,
  GraphStore,
  GraphView,
  GraphWrite,
  RelationQuery,
} from '../ports/graph-store.js';
import type { EntityRecord, GraphLogEntry, ObservationRecord, RelationRecord } from '../types-graph.js';

interface SpaceGraph {
  entities: Map<string, EntityRecord>;
  observations: Map<string, ObservationRecord>;
  relations: Map<string, RelationRecord>;
  log: GraphLogEntry[];
}

const copy = <T>(value: T): T => structuredClone(value);
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class InMemoryGraphStore implements GraphStore {
  readonly name = 'in-memory';
  private readonly spaces: Map<string, SpaceGraph>;

  /** `shareWith`: another in-memory graph store whose data this one uses (a second "connection"). */
  constructor(shareWith?: InMemoryGraphStore) {
    this.spaces = shareWith ? shareWith.spaces : new Map();
  }

  private space(space: string): SpaceGraph {
    let g = this.spaces.get(space);
    if (!g) {
      g = { entities: new Map(), observations: new Map(), relations: new Map(), log: [] };
      this.spaces.set(space, g);
    }
    return g;
  }

  async write(space: string, batch: GraphWrite): Promise<void> {
    const g = this.space(space);
    for (const e of batch.entities ?? []) g.entities.set(e.id, copy(e));
    for (const o of batch.observations ?? []) g.observations.set(o.id, copy(o));
    for (const r of batch.relations ?? []) g.relations.set(r.id, copy(r));
    for (const l of batch.log ?? []) g.log.push(copy(l));
  }

  async entities(space: string, query: EntityQuery, view: GraphView): Promise<EntityRecord[]> {
    const all = [...this.space(space).entities.values()].filter((e) => graphVisible(e, view) && graphHolds(e, view));
    let hits: EntityRecord[];
    if ('ids' in query) {
      const ids = new Set(query.ids);
      hits = all.filter((e) => ids.has(e.id));
    } else if ('keys' in query) {
      const keys = new Set(query.keys);
      hits = all.filter((e) => e.keys.some((k) => keys.has(k)));
    } else if ('words' in query) {
      hits = all
        .filter((e) => query.words.some((w) => e.searchText.includes(w)))
        .sort(byId)
        .slice(0, query.limit);
    } else {
      const after = query.after;
      hits = all
        .filter((e) => after === null || e.id > after)
        .sort(byId)
        .slice(0, query.limit);
    }
    return hits.map(copy);
  }

  async keys(space: string, prefixes: readonly string[], limit: number): Promise<{ key: string; entityId: string }[]> {
    const all = [...this.space(space).entities.values()]
      .flatMap((e) => e.keys.map((key) => ({ key, entityId: e.id })))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.entityId < b.entityId ? -1 : 1));
    return prefixes.flatMap((x) => all.filter((k) => k.key.startsWith(x)).slice(0, limit));
  }

  async observations(space: string, of: readonly string[] | ByIds, view: GraphView): Promise<ObservationRecord[]> {
    const byOwnId = !Array.isArray(of);
    const ids = new Set(Array.isArray(of) ? of : (of as ByIds).ids);
    return [...this.space(space).observations.values()]
      .filter((o) => ids.has(byOwnId ? o.id : o.entityId) && observationHolds(o, view))
      .sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : a.recordedAt > b.recordedAt ? 1 : byId(a, b)))
      .map(copy);
  }

  async relations(space: string, query: RelationQuery, view: GraphView): Promise<RelationRecord[]> {
    const all = [...this.space(space).relations.values()].filter((r) => graphVisible(r, view) && graphHolds(r, view));
    if ('entityIds' in query) {
      const ids = new Set(query.entityIds);
      const out = query.direction !== 'in';
      const inward = query.direction !== 'out';
      return all.filter((r) => (out && ids.has(r.fromId)) || (inward && ids.has(r.toId))).map(copy);
    }
    if ('ids' in query) {
      const ids = new Set(query.ids);
      return all.filter((r) => ids.has(r.id)).map(copy);
    }
    const after = query.after;
    return all
      .filter((r) => after === null || r.id > after)
      .sort(byId)
      .slice(0, query.limit)
      .map(copy);
  }

  async log(space: string, of: readonly string[] | ByIds): Promise<GraphLogEntry[]> {
    const byOwnId = !Array.isArray(of);
    const ids = new Set(Array.isArray(of) ? of : (of as ByIds).ids);
    return this.space(space)
      .log.filter((l) => ids.has(byOwnId ? l.id : l.recordId))
      .map(copy);
  }

  async deleteOwner(space: string, owner: { agentId: string } | { userId: string }): Promise<GraphDeleted> {
    const g = this.space(space);
    const owned = (r: { agentId: string; userId: string | null }) =>
      'agentId' in owner ? r.agentId === owner.agentId : r.userId === owner.userId;
    return this.cascade(
      g,
      [...g.entities.values()].filter(owned).map((e) => e.id),
      [...g.relations.values()].filter(owned).map((r) => r.id),
      'agentId' in owner
        ? [...g.observations.values()].filter((o) => o.agentId === owner.agentId).map((o) => o.id)
        : [],
    );
  }

  async deleteByEvidence(space: string, messageIds: readonly string[]): Promise<GraphDeleted> {
    const g = this.space(space);
    const gone = new Set(messageIds);
    const resting = (rows: Iterable<{ id: string; evidence: string[] }>) =>
      [...rows].filter((r) => onlyOn(r.evidence, gone)).map((r) => r.id);
    return this.cascade(
      g,
      resting(g.entities.values()),
      resting(g.relations.values()),
      resting(g.observations.values()),
    );
  }

  /** Entities (with their observations and the relations touching them), relations, observations, their log lines. */
  private cascade(g: SpaceGraph, entities: string[], relations: string[], observations: string[]): GraphDeleted {
    const dropped = new Set(entities);
    const rels = new Set(relations);
    for (const r of g.relations.values()) if (dropped.has(r.fromId) || dropped.has(r.toId)) rels.add(r.id);
    const obs = new Set(observations);
    for (const o of g.observations.values()) if (dropped.has(o.entityId)) obs.add(o.id);
    const touched = new Set<string>();
    for (const id of obs) {
      const o = g.observations.get(id);
      if (o && !dropped.has(o.entityId)) touched.add(o.entityId);
    }
    const deleted: GraphDeleted = { entities: 0, observations: 0, relations: 0, log: 0 };
    for (const id of dropped) if (g.entities.delete(id)) deleted.entities++;
    for (const id of rels) if (g.relations.delete(id)) deleted.relations++;
    for (const id of obs) if (g.observations.delete(id)) deleted.observations++;
    const records = new Set([...dropped, ...rels, ...obs]);
    const kept = g.log.filter((l) => !records.has(l.recordId));
    deleted.log = g.log.length - kept.length;
    g.log = kept;
    // Entities of others that lost observations: their search text without them.
    for (const id of touched) {
      const e = g.entities.get(id);
      if (!e) continue;
      const texts = [...g.observations.values()]
        .filter((o) => o.entityId === id && o.invalidatedAt === null)
        .sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : a.recordedAt > b.recordedAt ? 1 : byId(a, b)))
        .map((o) => o.text);
      g.entities.set(id, { ...e, searchText: entitySearchText(e, texts) });
    }
    return deleted;
  }
}
