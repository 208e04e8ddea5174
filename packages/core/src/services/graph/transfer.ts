/**
 * The graph in `mem export` / `mem import` (docs/writing.md, docs/graph.md): every record with every field, its ids
 * kept. Export pages through the store; import checks every graph line of a file (fields, ids, owners, references,
 * secrets) before anything is written, then writes them with the store's `write`, in batches.
 */
import { entitySearchText } from '../../domain/graph.js';
import type { GraphView } from '../../ports/graph-store.js';
import type { Principal } from '../../types.js';
import type { EntityRecord, GraphLogEntry, ObservationRecord, RelationRecord } from '../../types-graph.js';
import { MAX_FUTURE_SKEW_MS } from '../knowledge/transfer.js';
import { PAGE } from './base.js';
import { GraphLinks } from './links.js';
import {
  entityToLine,
  type GraphLine,
  lineError,
  logToLine,
  observationToLine,
  type ParsedGraphLine,
  parseGraphLine,
  relationToLine,
} from './transfer-lines.js';

/** What a graph import wrote, and how many of its records the space held already (left as they are). */
export interface GraphImportCounts {
  entities: number;
  observations: number;
  relations: number;
  log: number;
  duplicates: number;
}

/** A checked graph import: the records to write (those the space does not hold yet) and how many it holds. */
export interface GraphImportPlan {
  entities: EntityRecord[];
  observations: ObservationRecord[];
  relations: RelationRecord[];
  log: GraphLogEntry[];
  duplicates: number;
}

type Kind = ParsedGraphLine['kind'];
const KINDS: readonly Kind[] = ['entity', 'observation', 'relation', 'log'];
/** Ids per store read (an IN list), entities per observation read. */
const IDS = 500;
const OBSERVED = 100;

function* slices<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** Every string inside a log line's detail (what the secret scanner reads of it). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) strings(v, out);
  return out;
}

export class GraphTransfer extends GraphLinks {
  /** What an export or an import's references see: a lead every owner of the space, a worker what it sees. */
  private reach(p: Principal): GraphView {
    const view = this.view(p, { history: true });
    return p.role === 'lead' ? { ...view, everyOwner: true } : view;
  }

  /**
   * Every graph record the principal may export (a lead: the whole space; a worker: what it sees, closed and merged
   * records included), as export lines: per page of entities, the entities, their observations and the log lines
   * about them; then per page of relations (those whose ends are exported), the relations and their log lines.
   */
  async *exportLines(p: Principal): AsyncGenerator<GraphLine> {
    const store = this.ctx.store;
    const view = this.reach(p);
    let after: string | null = null;
    for (;;) {
      const page = await store.entities(p.space, { after, limit: PAGE }, view);
      for (const e of page) yield entityToLine(e);
      const about = page.map((e) => e.id);
      for (const ids of slices(about.slice(), OBSERVED)) {
        for (const o of await store.observations(p.space, ids, view)) {
          yield observationToLine(o);
          about.push(o.id);
        }
      }
      for (const ids of slices(about, IDS)) for (const l of await store.log(p.space, ids)) yield logToLine(l);
      if (page.length < PAGE) break;
      after = page.at(-1)!.id;
    }
    after = null;
    for (;;) {
      const page = await store.relations(p.space, { after, limit: PAGE }, view);
      const ends = new Set<string>();
      for (const ids of slices([...new Set(page.flatMap((r) => [r.fromId, r.toId]))], IDS))
        for (const e of await store.entities(p.space, { ids }, view)) ends.add(e.id);
      const kept = page.filter((r) => ends.has(r.fromId) && ends.has(r.toId));
      for (const r of kept) yield relationToLine(r);
      for (const ids of slices(
        kept.map((r) => r.id),
        IDS,
      ))
        for (const l of await store.log(p.space, ids)) yield logToLine(l);
      if (page.length < PAGE) break;
      after = page.at(-1)!.id;
    }
  }

  /**
   * Check the graph lines of an import file, writing nothing: each line's fields (`INVALID_INPUT` naming the line and
   * field), an id given twice, the owners (a worker imports only records of its own agent, about no user or its
   * own: `FORBIDDEN`), times, every reference (an entity, observation or relation of the file or of the space the
   * principal sees), and the texts (the secret and personal-data checks of graph writes). A record whose id the
   * space holds already is left as it is and counted.
   */
  async checkImport(
    p: Principal,
    lines: readonly { line: number; value: { type: string } }[],
  ): Promise<GraphImportPlan> {
    const parsed = lines.map(({ line, value }) => parseGraphLine(line, value, p.space));
    const file: Record<Kind, Map<string, ParsedGraphLine>> = {
      entity: new Map(),
      observation: new Map(),
      relation: new Map(),
      log: new Map(),
    };
    const limit = this.ctx.clock.now().getTime() + MAX_FUTURE_SKEW_MS;
    for (const x of parsed) {
      const field = (name: string) => `graph-${x.kind}.${name}`;
      const prior = file[x.kind].get(x.record.id);
      if (prior) throw lineError(x.line, field('id'), `"${x.record.id}" is the id of line ${prior.line} too`);
      file[x.kind].set(x.record.id, x);
      this.checkOwner(p, x, field);
      const r = x.record as unknown as Record<string, unknown>;
      for (const t of ['recordedAt', 'invalidatedAt', 'updatedAt', 'at']) {
        const v = r[t];
        if (typeof v === 'string' && Date.parse(v) > limit)
          throw lineError(x.line, field(t), `${v} is in the future (it is now ${this.now()})`);
      }
    }
    const present = await this.present(p, file);
    await this.checkReferences(p, parsed, file, present);
    await this.checkTexts(p, parsed);
    const fresh = <R>(kind: Kind) =>
      [...file[kind].values()].filter((x) => !present[kind].has(x.record.id)).map((x) => x.record as R);
    const observations = fresh<ObservationRecord>('observation');
    const texts = new Map<string, ObservationRecord[]>();
    for (const x of file.observation.values()) {
      const o = x.record as ObservationRecord;
      if (o.invalidatedAt === null) texts.set(o.entityId, [...(texts.get(o.entityId) ?? []), o]);
    }
    const order = (a: { id: string }, b: { id: string }, ka: string, kb: string) =>
      ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    const entities = fresh<EntityRecord>('entity').map((e) => ({
      ...e,
      searchText: entitySearchText(
        e,
        (texts.get(e.id) ?? []).sort((a, b) => order(a, b, a.recordedAt, b.recordedAt)).map((o) => o.text),
      ),
    }));
    return {
      entities,
      observations,
      relations: fresh<RelationRecord>('relation'),
      log: fresh<GraphLogEntry>('log').sort((a, b) => order(a, b, a.at, b.at)),
      duplicates: parsed.filter((x) => present[x.kind].has(x.record.id)).length,
    };
  }

  /** Write a checked import in batches of `batchSize` records (entities, then observations, relations, the log). */
  async writeImport(p: Principal, plan: GraphImportPlan, batchSize = 500): Promise<GraphImportCounts> {
    const size = Math.max(1, Math.floor(batchSize));
    for (const entities of slices(plan.entities, size)) await this.ctx.store.write(p.space, { entities });
    for (const observations of slices(plan.observations, size)) await this.ctx.store.write(p.space, { observations });
    for (const relations of slices(plan.relations, size)) await this.ctx.store.write(p.space, { relations });
    for (const log of slices(plan.log, size)) await this.ctx.store.write(p.space, { log });
    return {
      entities: plan.entities.length,
      observations: plan.observations.length,
      relations: plan.relations.length,
      log: plan.log.length,
      duplicates: plan.duplicates,
    };
  }

  private checkOwner(p: Principal, x: ParsedGraphLine, field: (name: string) => string): void {
    if (p.role === 'lead') return;
    if (x.record.agentId !== p.agentId) {
      throw lineError(
        x.line,
        field('agentId'),
        `only a lead may import graph records of another agent ("${x.record.agentId}"); run with --role lead`,
        'FORBIDDEN',
      );
    }
    const userId = 'userId' in x.record ? x.record.userId : null;
    if (userId !== null && userId !== p.userId) {
      throw lineError(
        x.line,
        field('userId'),
        `only a lead may import graph records about user "${userId}"; a worker imports only for the user it acts for`,
        'FORBIDDEN',
      );
    }
  }

  /** The ids of the file the space holds already, whoever owns them and whatever their time. */
  private async present(p: Principal, file: Record<Kind, Map<string, ParsedGraphLine>>) {
    const store = this.ctx.store;
    const every: GraphView = { ...this.view(p, { history: true }), everyOwner: true };
    const out: Record<Kind, Set<string>> = {
      entity: new Set(),
      observation: new Set(),
      relation: new Set(),
      log: new Set(),
    };
    for (const kind of KINDS) {
      for (const ids of slices([...file[kind].keys()], IDS)) {
        const rows: { id: string }[] =
          kind === 'entity'
            ? await store.entities(p.space, { ids }, every)
            : kind === 'observation'
              ? await store.observations(p.space, { ids }, every)
              : kind === 'relation'
                ? await store.relations(p.space, { ids }, every)
                : await store.log(p.space, { ids });
        for (const r of rows) out[kind].add(r.id);
      }
    }
    return out;
  }

  /**
   * Every reference of the file names a record it may use: one of the file the space does not hold yet, or one of
   * the space the principal sees (a lead: any; an observation is seen with its entity).
   */
  private async checkReferences(
    p: Principal,
    parsed: readonly ParsedGraphLine[],
    file: Record<Kind, Map<string, ParsedGraphLine>>,
    present: Record<Kind, Set<string>>,
  ): Promise<void> {
    type Target = Exclude<Kind, 'log'>;
    const refs: { line: number; field: string; kind: Target; id: string }[] = [];
    for (const x of parsed) {
      const ref = (name: string, kind: Target, id: string | null) => {
        if (id !== null) refs.push({ line: x.line, field: `graph-${x.kind}.${name}`, kind, id });
      };
      if (x.kind === 'entity') ref('mergedInto', 'entity', x.record.mergedInto);
      else if (x.kind === 'observation') ref('entityId', 'entity', x.record.entityId);
      else if (x.kind === 'relation') {
        ref('fromId', 'entity', x.record.fromId);
        ref('toId', 'entity', x.record.toId);
      } else ref('recordId', x.record.kind, x.record.recordId);
    }
    const fromFile = (kind: Target, id: string) => file[kind].has(id) && !present[kind].has(id);
    const asked: Record<Target, Set<string>> = { entity: new Set(), observation: new Set(), relation: new Set() };
    for (const r of refs) if (!fromFile(r.kind, r.id)) asked[r.kind].add(r.id);
    const store = this.ctx.store;
    const view = this.reach(p);
    const seen: Record<Target, Set<string>> = { entity: new Set(), observation: new Set(), relation: new Set() };
    const onEntity = new Map<string, string>();
    for (const ids of slices([...asked.observation], IDS))
      for (const o of await store.observations(p.space, { ids }, view)) onEntity.set(o.id, o.entityId);
    for (const ids of slices([...new Set([...asked.entity, ...onEntity.values()])], IDS))
      for (const e of await store.entities(p.space, { ids }, view)) seen.entity.add(e.id);
    for (const ids of slices([...asked.relation], IDS))
      for (const r of await store.relations(p.space, { ids }, view)) seen.relation.add(r.id);
    for (const [o, e] of onEntity) if (seen.entity.has(e)) seen.observation.add(o);
    for (const r of refs) {
      if (fromFile(r.kind, r.id) || seen[r.kind].has(r.id)) continue;
      const where = p.role === 'lead' ? 'in the space' : 'in the space that you see';
      throw lineError(r.line, r.field, `"${r.id}" names no ${r.kind} of the file nor ${where}`);
    }
  }

  /** The texts of graph lines through the checks of graph writes, each named by its line. */
  private async checkTexts(p: Principal, parsed: readonly ParsedGraphLine[]): Promise<void> {
    let fields: Record<string, string[]> = {};
    let size = 0;
    const flush = async () => {
      if (size > 0) await this.guard(p, fields);
      fields = {};
      size = 0;
    };
    for (const x of parsed) {
      const at = (what: string) => `${what} (line ${x.line})`;
      const mine: Record<string, string[]> =
        x.kind === 'entity'
          ? {
              [at('entity name')]: [x.record.name, ...x.record.aliases],
              [at('entity type')]: x.record.entityType ? [x.record.entityType] : [],
            }
          : x.kind === 'observation'
            ? { [at('observation')]: [x.record.text] }
            : x.kind === 'relation'
              ? { [at('relation type')]: [x.record.relationType] }
              : { [at('log line')]: [x.record.by, ...strings(x.record.detail)] };
      const length = Object.values(mine).reduce((n, vs) => n + vs.reduce((m, v) => m + v.length, 0), 0);
      if (size + length > 1_000_000 || Object.keys(fields).length >= 1000) await flush();
      Object.assign(fields, mine);
      size += length + 1;
    }
    await flush();
  }
}
