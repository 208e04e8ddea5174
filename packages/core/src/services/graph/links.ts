/**
 * Merging two entities that are one (and undoing it), an entity's neighbourhood, and its whole history
 * (docs/graph.md). A merge changes nothing it cannot give back: the entity merged away is kept with `mergedInto`, what
 * moved is copied (the originals closed), and the log line of the merge lists every record it made or closed.
 */
import { checkedEntityKey, entityKey, entitySearchText } from '../../domain/graph.js';
import { newId } from '../../domain/ids.js';
import { MemError } from '../../errors.js';
import { parseInput } from '../../schemas.js';
import * as S from '../../schemas-graph.js';
import type { Principal } from '../../types.js';
import type { EntityRecord, ObservationRecord, RelationRecord } from '../../types-graph.js';
import { IMPLICIT } from './base.js';
import { GraphWrites } from './writes.js';

/** What a merge did, kept in its log line so that `unmerge` can give it back. */
interface MergeDetail {
  into: string;
  copiedObservations: string[];
  closedRelations: string[];
  createdRelations: string[];
  aliasesAdded: string[];
}

const notFound = (name: string, hint: string) =>
  new MemError('NOT_FOUND', `Entity with name ${name} not found: ${hint}.`, { details: { entityName: name } });

export class GraphLinks extends GraphWrites {
  private async one(p: Principal, name: string, hint: string): Promise<EntityRecord> {
    const hit = (await this.named(p, [name])).get(name);
    if (!hit) throw notFound(name, hint);
    return hit;
  }

  /** Merge `entity` into `into`: its observations, relations and names move to `into`; undo with `unmerge`. */
  async merge(
    p: Principal,
    input: unknown,
  ): Promise<{ entity: string; into: string; observations: number; relations: number }> {
    const i = parseInput(S.graphMergeInput, 'graph-merge', input);
    const a = await this.one(p, i.entity, 'name an entity you see (mem graph search)');
    const b = await this.one(p, i.into, 'name an entity you see (mem graph search)');
    if (a.id === b.id) {
      throw new MemError(
        'INVALID_INPUT',
        `"${i.entity}" and "${i.into}" already name the same entity (${b.name}): nothing to merge.`,
      );
    }
    return this.mergeEntities(p, a, b, 'graph-merge', {});
  }

  /** A new entity's name was resolved as a similar name of a known one: it is merged into it (undo with `unmerge`). */
  protected override async similarResolved(
    p: Principal,
    pairs: readonly { entity: EntityRecord; into: EntityRecord; detail: Record<string, unknown> }[],
    by: string,
  ): Promise<void> {
    for (const { entity, into, detail } of pairs) {
      // Fresh reads: an earlier pair may have changed either side.
      const [a] = await this.ctx.store.entities(p.space, { ids: [entity.id] }, this.view(p));
      const [b] = await this.ctx.store.entities(p.space, { ids: [into.id] }, this.view(p));
      if (a && b && a.id !== b.id) await this.mergeEntities(p, a, b, by, { resolution: detail.matched, ...detail });
    }
  }

  private async mergeEntities(
    p: Principal,
    a: EntityRecord,
    b: EntityRecord,
    by: string,
    extra: Record<string, unknown>,
  ): Promise<{ entity: string; into: string; observations: number; relations: number }> {
    const view = this.view(p);
    const at = this.now();
    const [obsA, obsB] = [
      await this.ctx.store.observations(p.space, [a.id], view),
      await this.ctx.store.observations(p.space, [b.id], view),
    ];
    const have = new Set(obsB.map((o) => o.text));
    const copies: ObservationRecord[] = obsA
      .filter((o) => !have.has(o.text))
      .map((o) => ({ ...o, id: newId(), entityId: b.id, recordedAt: at, evidence: [...o.evidence] }));
    // In the order they were made, so that the copies keep it.
    const rels = (await this.ctx.store.relations(p.space, { entityIds: [a.id], direction: 'both' }, view)).sort(
      (x, y) => (x.id < y.id ? -1 : 1),
    );
    const bRels = await this.ctx.store.relations(p.space, { entityIds: [b.id], direction: 'both' }, view);
    const known = new Set(bRels.map((r) => `${r.fromId}\u0000${r.relationType}\u0000${r.toId}`));
    const closed: RelationRecord[] = [];
    const created: RelationRecord[] = [];
    for (const r of rels) {
      closed.push({ ...r, invalidatedAt: at, validTo: at });
      const moved = { ...r, fromId: r.fromId === a.id ? b.id : r.fromId, toId: r.toId === a.id ? b.id : r.toId };
      const k = `${moved.fromId}\u0000${moved.relationType}\u0000${moved.toId}`;
      if (moved.fromId === moved.toId || known.has(k)) continue;
      known.add(k);
      created.push({ ...moved, id: newId(), recordedAt: at, invalidatedAt: null, validTo: null });
    }
    const aliasesAdded = [a.name, ...a.aliases].filter(
      (n, idx, all) => n !== b.name && !b.aliases.includes(n) && all.indexOf(n) === idx,
    );
    const aliases = [...b.aliases, ...aliasesAdded];
    const texts = [...obsB.map((o) => o.text), ...copies.map((o) => o.text)];
    const into: EntityRecord = {
      ...b,
      aliases,
      keys: [
        ...new Set([b.keys[0] ?? checkedEntityKey(b.name), ...aliases.map(entityKey).filter((k) => k.length > 0)]),
      ],
      searchText: entitySearchText({ ...b, aliases }, texts),
      evidence: [...new Set([...b.evidence, ...a.evidence])],
      updatedAt: at,
    };
    const gone: EntityRecord = { ...a, mergedInto: b.id, updatedAt: at };
    const detail: MergeDetail = {
      into: b.id,
      copiedObservations: copies.map((o) => o.id),
      closedRelations: closed.map((r) => r.id),
      createdRelations: created.map((r) => r.id),
      aliasesAdded,
    };
    const o = { by };
    await this.ctx.store.write(p.space, {
      entities: [gone, into],
      observations: copies,
      relations: [...closed, ...created],
      log: [
        this.logLine(p, gone, 'entity', 'merge', o, by, { ...extra, ...detail }),
        this.logLine(p, into, 'entity', 'update', o, by, { ...extra, merged: a.id, name: a.name }),
      ],
    });
    return { entity: a.name, into: b.name, observations: copies.length, relations: created.length };
  }

  /** Undo the last merge of `entity`: it comes back with its observations and relations; `into` loses what it gained. */
  async unmerge(p: Principal, input: unknown): Promise<{ entity: string; from: string }> {
    const i = parseInput(S.graphUnmergeInput, 'graph-unmerge', input);
    const key = checkedEntityKey(i.entity);
    const all = await this.ctx.store.entities(p.space, { keys: [key] }, this.view(p, { history: true }));
    const a = all
      .filter((e) => e.mergedInto !== null && e.invalidatedAt === null && (e.name === i.entity || e.keys.includes(key)))
      .sort((x, y) => (x.updatedAt > y.updatedAt ? -1 : 1))[0];
    if (!a) throw notFound(i.entity, 'unmerge names an entity merged away earlier (mem graph history shows it)');
    const merge = (await this.ctx.store.log(p.space, [a.id])).filter((l) => l.decision === 'merge').at(-1);
    if (!merge) throw notFound(i.entity, 'no merge of it is logged');
    const d = merge.detail as unknown as MergeDetail;
    const view = this.view(p, { history: true });
    const [b] = await this.ctx.store.entities(p.space, { ids: [d.into] }, view);
    if (!b) throw notFound(i.entity, 'the entity it was merged into is gone (forgotten)');
    const at = this.now();
    const copied = (await this.ctx.store.observations(p.space, [b.id], view)).filter((o) =>
      d.copiedObservations.includes(o.id),
    );
    const touched = await this.ctx.store.relations(p.space, { entityIds: [a.id, b.id], direction: 'both' }, view);
    const relations = touched.flatMap((r): RelationRecord[] =>
      d.createdRelations.includes(r.id)
        ? [{ ...r, invalidatedAt: at, validTo: at }]
        : d.closedRelations.includes(r.id)
          ? [{ ...r, invalidatedAt: null, validTo: null }]
          : [],
    );
    const observations = copied.map((o) => ({ ...o, invalidatedAt: at }));
    const aliases = b.aliases.filter((n) => !d.aliasesAdded.includes(n));
    const left = (await this.observationTexts(p, [b.id])).get(b.id)!.filter((t) => !copied.some((c) => c.text === t));
    const back: EntityRecord = {
      ...b,
      aliases,
      keys: [...new Set([checkedEntityKey(b.name), ...aliases.map(entityKey).filter((k) => k)])],
      searchText: entitySearchText({ ...b, aliases }, left),
      updatedAt: at,
    };
    const restored: EntityRecord = { ...a, mergedInto: null, updatedAt: at };
    const o = { by: 'graph-unmerge' };
    await this.ctx.store.write(p.space, {
      entities: [restored, back],
      observations,
      relations,
      log: [
        this.logLine(p, restored, 'entity', 'unmerge', o, 'graph-unmerge', { from: b.id, merge: merge.id }),
        this.logLine(p, back, 'entity', 'update', o, 'graph-unmerge', { unmerged: a.id }),
      ],
    });
    return { entity: a.name, from: b.name };
  }

  /** The entity's neighbourhood over current relations, 1 or 2 hops: each entity with its distance, and the relations. */
  async neighbours(p: Principal, input: unknown) {
    const i = parseInput(S.graphNeighboursInput, 'graph-neighbours', input);
    const centre = await this.one(p, i.name, 'name an entity you see (mem graph search)');
    const view = this.view(p);
    const hops = new Map<string, number>([[centre.id, 0]]);
    const relations = new Map<string, RelationRecord>();
    let frontier = [centre.id];
    for (let h = 1; h <= (i.hops ?? 1) && frontier.length > 0; h++) {
      const next: string[] = [];
      for (const r of await this.ctx.store.relations(p.space, { entityIds: frontier, direction: 'both' }, view)) {
        relations.set(r.id, r);
        for (const id of [r.fromId, r.toId]) {
          if (hops.has(id)) continue;
          hops.set(id, h);
          next.push(id);
        }
      }
      frontier = next;
    }
    const entities = await this.ctx.store.entities(p.space, { ids: [...hops.keys()] }, view);
    const names = new Map(entities.map((e) => [e.id, e.name]));
    const texts = await this.observationTexts(
      p,
      entities.map((e) => e.id),
    );
    return {
      entities: entities
        .map((e) => ({
          name: e.name,
          entityType: e.entityType === IMPLICIT ? null : e.entityType,
          observations: texts.get(e.id) ?? [],
          hops: hops.get(e.id)!,
        }))
        .sort((x, y) => x.hops - y.hops || x.name.localeCompare(y.name)),
      relations: [...relations.values()]
        .filter((r) => names.has(r.fromId) && names.has(r.toId))
        .map((r) => ({ from: names.get(r.fromId)!, to: names.get(r.toId)!, relationType: r.relationType })),
    };
  }

  /** Everything the graph has of an entity, closed and merged records included, with the log of every decision. */
  async history(p: Principal, input: unknown) {
    const i = parseInput(S.graphHistoryInput, 'graph-history', input);
    const key = checkedEntityKey(i.name);
    const view = this.view(p, { history: true });
    const all = (await this.ctx.store.entities(p.space, { keys: [key] }, view)).filter(
      (e) => e.name === i.name || e.keys[0] === key,
    );
    if (all.length === 0) throw notFound(i.name, 'name an entity the graph has, or had');
    const ids = all.map((e) => e.id);
    const rels = await this.ctx.store.relations(p.space, { entityIds: ids, direction: 'both' }, view);
    const ends = await this.ctx.store.entities(
      p.space,
      { ids: [...new Set(rels.flatMap((r) => [r.fromId, r.toId]))] },
      view,
    );
    const names = new Map([...all, ...ends].map((e) => [e.id, e.name]));
    const obs = await this.ctx.store.observations(p.space, ids, view);
    const log = await this.ctx.store.log(p.space, [...ids, ...rels.map((r) => r.id), ...obs.map((o) => o.id)]);
    return {
      entities: all.map((e) => ({
        id: e.id,
        name: e.name,
        entityType: e.entityType,
        aliases: e.aliases,
        scope: e.scope,
        recordedAt: e.recordedAt,
        invalidatedAt: e.invalidatedAt,
        mergedInto: e.mergedInto === null ? null : (names.get(e.mergedInto) ?? e.mergedInto),
        evidence: e.evidence,
      })),
      observations: obs.map((o) => ({
        entity: names.get(o.entityId)!,
        text: o.text,
        recordedAt: o.recordedAt,
        invalidatedAt: o.invalidatedAt,
        evidence: o.evidence,
      })),
      relations: rels.map((r) => ({
        from: names.get(r.fromId) ?? r.fromId,
        relationType: r.relationType,
        to: names.get(r.toId) ?? r.toId,
        validFrom: r.validFrom,
        validTo: r.validTo,
        recordedAt: r.recordedAt,
        invalidatedAt: r.invalidatedAt,
      })),
      log: log.map((l) => ({
        at: l.at,
        kind: l.kind,
        decision: l.decision,
        by: l.by,
        agentId: l.agentId,
        evidence: l.evidence,
        detail: l.detail,
      })),
    };
  }
}
