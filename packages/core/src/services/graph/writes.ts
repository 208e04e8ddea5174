/** The graph's writes: the MCP memory server's create, add and delete operations, each one store write. */
import {
  checkEntityName,
  checkEntityType,
  checkedEntityKey,
  checkObservation,
  checkRelationType,
  entitySearchText,
  type MemoryServerEntity,
  type MemoryServerRelation,
} from '../../domain/graph.js';
import { newId } from '../../domain/ids.js';
import { MemError } from '../../errors.js';
import { parseInput } from '../../schemas.js';
import * as S from '../../schemas-graph.js';
import type { Principal } from '../../types.js';
import type { EntityRecord, GraphLogEntry, ObservationRecord, RelationRecord } from '../../types-graph.js';
import { GraphBase, type GraphWriteOptions, IMPLICIT } from './base.js';
import { findSimilar, pick, type Resolved, resolveNames } from './resolve.js';

export class GraphWrites extends GraphBase {
  /**
   * Create entities (MCP `create_entities`). A name that resolves to a known entity adds its new observations to it
   * instead (logged `noop`, the evidence grows); the answer lists the entities created, as that server does.
   */
  async createEntities(
    p: Principal,
    input: unknown,
    o: GraphWriteOptions = {},
  ): Promise<{ entities: MemoryServerEntity[] }> {
    const { entities } = parseInput(S.createEntitiesInput, 'create_entities', input);
    return this.putEntities(p, entities, o, 'create_entities');
  }

  protected async putEntities(
    p: Principal,
    entities: readonly MemoryServerEntity[],
    o: GraphWriteOptions,
    by: string,
  ): Promise<{ entities: MemoryServerEntity[] }> {
    for (const e of entities) {
      checkEntityName(e.name);
      checkedEntityKey(e.name);
      checkEntityType(e.entityType);
      for (const t of e.observations) checkObservation(t);
    }
    await this.guard(p, {
      'entity name': entities.map((e) => e.name),
      'entity type': entities.map((e) => e.entityType),
      observation: entities.flatMap((e) => e.observations),
    });
    const mode = o.resolution ?? 'key';
    const known = await resolveNames(
      this.ctx.store,
      p.space,
      entities.map((e) => e.name),
      this.view(p),
      mode,
    );
    const texts = await this.observationTexts(p, [...new Set([...known.values()].map((r) => r.entity.id))]);
    const touched = new Map<string, EntityRecord>();
    const observations: ObservationRecord[] = [];
    const log: GraphLogEntry[] = [];
    const created: MemoryServerEntity[] = [];
    const newOnes: { entity: EntityRecord; name: string }[] = [];
    for (const e of entities) {
      const hit: Resolved | null = pick([...touched.values()], e.name, mode) ?? known.get(e.name) ?? null;
      let entity = hit ? (touched.get(hit.entity.id) ?? { ...hit.entity }) : this.newEntity(p, e.name, e.entityType, o);
      const have = texts.get(entity.id) ?? [];
      texts.set(entity.id, have);
      const fresh = [...new Set(e.observations)].filter((t) => !have.includes(t));
      if (!hit || entity.entityType === IMPLICIT) {
        if (hit) entity = { ...entity, entityType: e.entityType, updatedAt: this.now() };
        log.push(
          this.logLine(p, entity, 'entity', hit ? 'update' : 'add', o, by, { name: e.name, entityType: e.entityType }),
        );
        created.push({ name: e.name, entityType: e.entityType, observations: [...new Set(e.observations)] });
      } else {
        entity = { ...entity, evidence: [...new Set([...entity.evidence, ...(o.evidence ?? [])])] };
        log.push(this.logLine(p, entity, 'entity', 'noop', o, by, { name: e.name, matched: hit.step }));
      }
      for (const t of fresh) {
        const obs = this.newObservation(p, entity, t, o);
        observations.push(obs);
        log.push(this.logLine(p, obs, 'observation', 'add', o, by, { entity: entity.id }));
        have.push(t);
      }
      if (fresh.length > 0) entity.updatedAt = this.now();
      touched.set(entity.id, entity);
      if (!hit && mode === 'key' && o.similar !== false) newOnes.push({ entity, name: e.name });
    }
    // A new entity whose name is another form of a known one's (step `similar`) is merged into it once written.
    const similar: { entity: EntityRecord; into: EntityRecord; detail: Record<string, unknown> }[] = [];
    for (const { entity, name } of newOnes) {
      const steps = { ...this.ctx, observations: texts.get(entity.id) ?? [] };
      const m = await findSimilar(this.ctx.store, p.space, name, entity.entityType, this.view(p), steps);
      if (!m) continue;
      const matched = m.kind === 'model' ? 'model' : 'similar';
      const model = m.kind === 'model' ? { resolver: this.ctx.resolver?.id } : {};
      similar.push({ entity, into: m.entity, detail: { matched, kind: m.kind, cosine: m.cosine, ...model } });
    }
    const written = [...touched.values()].map((e) => ({
      ...e,
      searchText: entitySearchText(e, texts.get(e.id) ?? []),
    }));
    await this.ctx.store.write(p.space, { entities: written, observations, log });
    if (similar.length > 0) await this.similarResolved(p, similar, by);
    return { entities: created };
  }

  /** What becomes of new entities resolved by a similar name (GraphLinks merges them). */
  protected async similarResolved(
    _p: Principal,
    _pairs: readonly { entity: EntityRecord; into: EntityRecord; detail: Record<string, unknown> }[],
    _by: string,
  ): Promise<void> {}

  /** Create relations (MCP `create_relations`); an endpoint no entity has yet is created untyped. Known ones are skipped. */
  async createRelations(
    p: Principal,
    input: unknown,
    o: GraphWriteOptions = {},
  ): Promise<{ relations: MemoryServerRelation[] }> {
    const { relations } = parseInput(S.createRelationsInput, 'create_relations', input);
    return this.putRelations(p, relations, o, 'create_relations');
  }

  protected async putRelations(
    p: Principal,
    relations: readonly MemoryServerRelation[],
    o: GraphWriteOptions,
    by: string,
  ): Promise<{ relations: MemoryServerRelation[] }> {
    for (const r of relations) {
      checkEntityName(r.from, 'relation from');
      checkEntityName(r.to, 'relation to');
      checkedEntityKey(r.from);
      checkedEntityKey(r.to);
      checkRelationType(r.relationType);
    }
    await this.guard(p, {
      'entity name': relations.flatMap((r) => [r.from, r.to]),
      'relation type': relations.map((r) => r.relationType),
    });
    const mode = o.resolution ?? 'key';
    const names = relations.flatMap((r) => [r.from, r.to]);
    const known = await resolveNames(this.ctx.store, p.space, names, this.view(p), mode);
    const entities: EntityRecord[] = [];
    const log: GraphLogEntry[] = [];
    const idOf = (name: string): string => {
      const hit = known.get(name)?.entity ?? pick(entities, name, mode)?.entity;
      if (hit) return hit.id;
      const e = this.newEntity(p, name, IMPLICIT, o);
      e.searchText = entitySearchText(e, []);
      entities.push(e);
      log.push(this.logLine(p, e, 'entity', 'add', o, by, { name, implicit: true }));
      return e.id;
    };
    const ends = relations.map((r) => ({ r, from: idOf(r.from), to: idOf(r.to) }));
    const existing = await this.ctx.store.relations(
      p.space,
      { entityIds: [...new Set(ends.map((e) => e.from))], direction: 'out' },
      this.view(p),
    );
    const seen = new Set(existing.map((r) => `${r.fromId}\u0000${r.relationType}\u0000${r.toId}`));
    const out: RelationRecord[] = [];
    const created: MemoryServerRelation[] = [];
    for (const { r, from, to } of ends) {
      const k = `${from}\u0000${r.relationType}\u0000${to}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const at = this.now();
      const rel: RelationRecord = {
        id: newId(),
        space: p.space,
        scope: o.scope ?? 'agent',
        agentId: p.agentId,
        userId: p.userId ?? null,
        fromId: from,
        relationType: r.relationType,
        toId: to,
        validFrom: o.validFrom ?? null,
        validTo: null,
        recordedAt: at,
        invalidatedAt: null,
        evidence: [...(o.evidence ?? [])],
      };
      out.push(rel);
      log.push(
        this.logLine(p, rel, 'relation', 'add', o, by, { from: r.from, to: r.to, relationType: r.relationType }),
      );
      created.push({ from: r.from, to: r.to, relationType: r.relationType });
    }
    await this.ctx.store.write(p.space, { entities, relations: out, log });
    return { relations: created };
  }

  /**
   * Give a known entity more names it resolves by (an alias that is already one of its keys is skipped; logged
   * `update`). Returns the aliases added; an unknown entity gets NOT_FOUND.
   */
  async addAliases(
    p: Principal,
    name: string,
    aliases: readonly string[],
    o: GraphWriteOptions = {},
  ): Promise<string[]> {
    for (const a of aliases) {
      checkEntityName(a, 'alias');
      checkedEntityKey(a);
    }
    await this.guard(p, { 'entity name': [name], alias: aliases });
    const entity = (await this.named(p, [name])).get(name);
    if (!entity) throw new MemError('NOT_FOUND', `Entity with name ${name} not found: name an entity you see.`);
    const keys = new Set(entity.keys);
    const added: string[] = [];
    for (const a of aliases) {
      const key = checkedEntityKey(a);
      if (keys.has(key)) continue;
      keys.add(key);
      added.push(a);
    }
    if (added.length === 0) return [];
    const at = this.now();
    const next: EntityRecord = {
      ...entity,
      aliases: [...entity.aliases, ...added],
      keys: [...entity.keys, ...added.map(checkedEntityKey)],
      updatedAt: at,
    };
    const texts = (await this.observationTexts(p, [entity.id])).get(entity.id) ?? [];
    next.searchText = entitySearchText(next, texts);
    const line = this.logLine(p, next, 'entity', 'update', o, 'graph-alias', { aliasesAdded: added });
    await this.ctx.store.write(p.space, { entities: [next], log: [line] });
    return added;
  }

  /** Add observations (MCP `add_observations`). An unknown entity gets NOT_FOUND and nothing is written. */
  async addObservations(
    p: Principal,
    input: unknown,
    o: GraphWriteOptions = {},
  ): Promise<{ results: { entityName: string; addedObservations: string[] }[] }> {
    const { observations } = parseInput(S.addObservationsInput, 'add_observations', input);
    for (const a of observations) for (const t of a.contents) checkObservation(t);
    await this.guard(p, { observation: observations.flatMap((a) => a.contents) });
    const known = await this.named(
      p,
      observations.map((a) => a.entityName),
    );
    const missing = observations.find((a) => !known.has(a.entityName));
    if (missing) {
      throw new MemError(
        'NOT_FOUND',
        `Entity with name ${missing.entityName} not found: create it first with create_entities (nothing was added).`,
        { details: { entityName: missing.entityName } },
      );
    }
    const texts = await this.observationTexts(p, [...new Set([...known.values()].map((e) => e.id))]);
    const touched = new Map<string, EntityRecord>();
    const added: ObservationRecord[] = [];
    const log: GraphLogEntry[] = [];
    const results = observations.map((a) => {
      const entity = touched.get(known.get(a.entityName)!.id) ?? { ...known.get(a.entityName)! };
      const have = texts.get(entity.id)!;
      const fresh = [...new Set(a.contents)].filter((t) => !have.includes(t));
      for (const t of fresh) {
        const obs = this.newObservation(p, entity, t, o);
        added.push(obs);
        log.push(this.logLine(p, obs, 'observation', 'add', o, 'add_observations', { entity: entity.id }));
        have.push(t);
      }
      touched.set(entity.id, { ...entity, updatedAt: this.now(), searchText: entitySearchText(entity, have) });
      return { entityName: a.entityName, addedObservations: fresh };
    });
    await this.ctx.store.write(p.space, { entities: [...touched.values()], observations: added, log });
    return { results };
  }

  /** Close entities and every relation touching them (MCP `delete_entities`); unknown names are skipped. */
  async deleteEntities(p: Principal, input: unknown, o: GraphWriteOptions = {}): Promise<{ closed: number }> {
    const { entityNames } = parseInput(S.deleteEntitiesInput, 'delete_entities', input);
    for (const n of entityNames) checkEntityName(n);
    const hits = await resolveNames(this.ctx.store, p.space, entityNames, this.view(p), 'key');
    const gone = [...new Map([...hits.values()].map((r) => [r.entity.id, r.entity])).values()];
    const at = this.now();
    const rels =
      gone.length === 0
        ? []
        : await this.ctx.store.relations(
            p.space,
            { entityIds: gone.map((e) => e.id), direction: 'both' },
            this.view(p),
          );
    const entities = gone.map((e) => ({ ...e, invalidatedAt: at, validTo: at, updatedAt: at }));
    const relations = rels.map((r) => ({ ...r, invalidatedAt: at, validTo: at }));
    const log = [
      ...entities.map((e) => this.logLine(p, e, 'entity', 'invalidate', o, 'delete_entities', { name: e.name })),
      ...relations.map((r) => this.logLine(p, r, 'relation', 'invalidate', o, 'delete_entities', {})),
    ];
    await this.ctx.store.write(p.space, { entities, relations, log });
    return { closed: entities.length + relations.length };
  }

  /** Close observations of entities (MCP `delete_observations`); unknown entities and texts are skipped. */
  async deleteObservations(p: Principal, input: unknown, o: GraphWriteOptions = {}): Promise<{ closed: number }> {
    const { deletions } = parseInput(S.deleteObservationsInput, 'delete_observations', input);
    const known = await this.named(
      p,
      deletions.map((d) => d.entityName),
    );
    const ids = [...new Set([...known.values()].map((e) => e.id))];
    const current = ids.length === 0 ? [] : await this.ctx.store.observations(p.space, ids, this.view(p));
    const at = this.now();
    const closing = new Map<string, ObservationRecord>();
    for (const d of deletions) {
      const entity = known.get(d.entityName);
      if (!entity) continue;
      for (const obs of current) {
        if (obs.entityId === entity.id && d.observations.includes(obs.text))
          closing.set(obs.id, { ...obs, invalidatedAt: at });
      }
    }
    const texts = await this.observationTexts(p, ids);
    const entities = [...known.values()]
      .filter((e, i, all) => all.findIndex((x) => x.id === e.id) === i)
      .map((e) => {
        const left = (texts.get(e.id) ?? []).filter(
          (t) => ![...closing.values()].some((c) => c.entityId === e.id && c.text === t),
        );
        return { ...e, updatedAt: at, searchText: entitySearchText(e, left) };
      });
    const observations = [...closing.values()];
    const log = observations.map((x) =>
      this.logLine(p, x, 'observation', 'invalidate', o, 'delete_observations', { entity: x.entityId }),
    );
    await this.ctx.store.write(p.space, { entities, observations, log });
    return { closed: observations.length };
  }

  /** Close relations (MCP `delete_relations`); unknown ones are skipped. */
  async deleteRelations(p: Principal, input: unknown, o: GraphWriteOptions = {}): Promise<{ closed: number }> {
    const { relations } = parseInput(S.deleteRelationsInput, 'delete_relations', input);
    const names = relations.flatMap((r) => [r.from, r.to]);
    for (const n of names) checkEntityName(n);
    const hits = await resolveNames(this.ctx.store, p.space, names, this.view(p), 'key');
    const wanted = new Set<string>();
    for (const r of relations) {
      const from = hits.get(r.from)?.entity.id;
      const to = hits.get(r.to)?.entity.id;
      if (from && to) wanted.add(`${from}\u0000${r.relationType}\u0000${to}`);
    }
    const froms = [...new Set(relations.map((r) => hits.get(r.from)?.entity.id).filter((x): x is string => !!x))];
    const current =
      froms.length === 0
        ? []
        : await this.ctx.store.relations(p.space, { entityIds: froms, direction: 'out' }, this.view(p));
    const at = this.now();
    const closed = current
      .filter((r) => wanted.has(`${r.fromId}\u0000${r.relationType}\u0000${r.toId}`))
      .map((r) => ({ ...r, invalidatedAt: at, validTo: o.validTo ?? at }));
    const log = closed.map((r) => this.logLine(p, r, 'relation', 'invalidate', o, 'delete_relations', {}));
    await this.ctx.store.write(p.space, { relations: closed, log });
    return { closed: closed.length };
  }
}
