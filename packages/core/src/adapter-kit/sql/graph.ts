/**
 * The memory graph's port over any SQL engine (docs/graph.md): entities, their resolution keys (one row per key, so a
 * name or alias is one index lookup), observations, relations (indexed on both ends) and the log. Visibility and
 * validity are decided in each query, as `graphVisible` / `graphHolds` of the core say.
 */
import { entitySearchText, onlyOn } from '../../domain/graph.js';
import type {
  ByIds,
  EntityQuery,
  GraphDeleted,
  GraphStore,
  GraphView,
  GraphWrite,
  RelationQuery,
} from '../../ports/graph-store.js';
import type { EntityRecord, GraphLogEntry, ObservationRecord, RelationRecord } from '../../types-graph.js';
import { type SqlDialect, type SqlField, type SqlRunner, type SqlType, selectList } from './dialect.js';
import { type SqlProgram, type SqlValue, sqlAll, sqlRun } from './program.js';
import type { SqlRow } from './records.js';

/** Parameters numbered in the order they are placed (each once, as the dialect asks). */
class Params {
  readonly values: SqlValue[] = [];
  constructor(private readonly d: SqlDialect) {}
  add(value: SqlValue, type?: SqlType): string {
    this.values.push(value);
    return this.d.param(this.values.length, type);
  }
  /** `column` is one of `values`. */
  inList(column: string, values: readonly string[]): string {
    this.values.push(this.d.list(values));
    return this.d.inList(column, this.values.length);
  }
  /** `column` starts with `prefix`. */
  startsWith(column: string, prefix: string): string {
    this.values.push(this.d.prefixValue(prefix));
    return this.d.startsWith(column, this.values.length);
  }
}

const field = (column: string, type: SqlType = 'text'): SqlField => ({ column, type, as: column.replaceAll('_', '') });
const OWNER = [field('id'), field('space'), field('scope'), field('agent_id'), field('user_id')];
const TIMES = [
  field('valid_from', 'time'),
  field('valid_to', 'time'),
  field('recorded_at', 'time'),
  field('invalidated_at', 'time'),
  field('evidence', 'list'),
];
const ENTITY = [
  ...OWNER,
  field('name'),
  field('entity_type'),
  field('aliases', 'list'),
  field('keys', 'list'),
  field('search_text'),
  field('merged_into'),
  ...TIMES,
  field('updated_at', 'time'),
];
const OBSERVATION = [
  field('id'),
  field('space'),
  field('entity_id'),
  field('text'),
  field('agent_id'),
  field('recorded_at', 'time'),
  field('invalidated_at', 'time'),
  field('evidence', 'list'),
];
const RELATION = [...OWNER, field('from_id'), field('relation_type'), field('to_id'), ...TIMES];
const LOG = [
  field('id'),
  field('space'),
  field('record_id'),
  field('kind'),
  field('decision'),
  field('at', 'time'),
  field('by_name'),
  field('agent_id'),
  field('evidence', 'list'),
  field('detail', 'json'),
];

const s = (v: unknown) => v as string;
const sn = (v: unknown) => (v ?? null) as string | null;
const list = (v: unknown) => JSON.parse(v as string) as string[];
const owner = (r: SqlRow) => ({
  id: s(r.id),
  space: s(r.space),
  scope: r.scope as EntityRecord['scope'],
  agentId: s(r.agentid),
  userId: sn(r.userid),
});
const times = (r: SqlRow) => ({
  validFrom: sn(r.validfrom),
  validTo: sn(r.validto),
  recordedAt: s(r.recordedat),
  invalidatedAt: sn(r.invalidatedat),
  evidence: list(r.evidence),
});
const entityFrom = (r: SqlRow): EntityRecord => ({
  ...owner(r),
  name: s(r.name),
  entityType: s(r.entitytype),
  aliases: list(r.aliases),
  keys: list(r.keys),
  searchText: s(r.searchtext),
  mergedInto: sn(r.mergedinto),
  ...times(r),
  updatedAt: s(r.updatedat),
});
const observationFrom = (r: SqlRow): ObservationRecord => ({
  id: s(r.id),
  space: s(r.space),
  entityId: s(r.entityid),
  text: s(r.text),
  agentId: s(r.agentid),
  recordedAt: s(r.recordedat),
  invalidatedAt: sn(r.invalidatedat),
  evidence: list(r.evidence),
});
const relationFrom = (r: SqlRow): RelationRecord => ({
  ...owner(r),
  fromId: s(r.fromid),
  relationType: s(r.relationtype),
  toId: s(r.toid),
  ...times(r),
});
const logFrom = (r: SqlRow): GraphLogEntry => ({
  id: s(r.id),
  space: s(r.space),
  recordId: s(r.recordid),
  kind: r.kind as GraphLogEntry['kind'],
  decision: r.decision as GraphLogEntry['decision'],
  at: s(r.at),
  by: s(r.byname),
  agentId: s(r.agentid),
  evidence: list(r.evidence),
  detail: JSON.parse(r.detail as string),
});

/** Upsert of one record table: every field, replaced on a taken (space, id). */
function upsert(d: SqlDialect, table: string, fields: readonly SqlField[]): string {
  const cols = fields.map((f) => f.column);
  const values = fields.map((f, i) => d.param(i + 1, f.type)).join(', ');
  const set = cols.filter((c) => c !== 'space' && c !== 'id').map((c) => `${c} = excluded.${c}`);
  return `INSERT INTO ${d.table(table)} (${cols.join(', ')}) VALUES (${values})
    ON CONFLICT (space, id) DO UPDATE SET ${set.join(', ')}`;
}

/** The SQL graph store of an engine. */
export function sqlGraphStore(d: SqlDialect, r: SqlRunner): GraphStore {
  const T = {
    entities: d.table('graph_entities'),
    keys: d.table('graph_keys'),
    observations: d.table('graph_observations'),
    relations: d.table('graph_relations'),
    log: d.table('graph_log'),
  };
  const put = {
    entity: upsert(d, 'graph_entities', ENTITY),
    observation: upsert(d, 'graph_observations', OBSERVATION),
    relation: upsert(d, 'graph_relations', RELATION),
    log: `INSERT INTO ${T.log} (${LOG.map((f) => f.column).join(', ')}) VALUES (${LOG.map((f, i) => d.param(i + 1, f.type)).join(', ')})`,
    dropKeys: `DELETE FROM ${T.keys} WHERE space = ${d.param(1)} AND entity_id = ${d.param(2)}`,
    key: `INSERT INTO ${T.keys} (space, key, entity_id) VALUES (${d.param(1)}, ${d.param(2)}, ${d.param(3)})`,
  };
  const value = (row: Record<string, unknown>, f: SqlField): SqlValue => {
    const camel = f.column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    const v = f.column === 'by_name' ? row.by : row[camel];
    if (f.type === 'list') return d.list(v as string[]);
    if (f.type === 'json') return JSON.stringify(v);
    return (v ?? null) as SqlValue;
  };
  const params = (row: object, fields: readonly SqlField[]) =>
    fields.map((f) => value(row as Record<string, unknown>, f));

  /** The visibility and validity clauses of `view` on table alias `a` (entities also drop merged ones; never empty). */
  const seen = (q: Params, a: string, view: GraphView, merged: boolean): string => {
    const parts = view.everyOwner
      ? ['1 = 1']
      : [
          `(${a}.scope = 'swarm' OR ${a}.agent_id = ${q.add(view.viewerAgentId)})`,
          `(${a}.user_id IS NULL OR ${a}.user_id = ${q.add(view.userId ?? null)})`,
        ];
    if (view.history) return parts.join(' AND ');
    if (view.asOf !== undefined) {
      parts.push(
        `${a}.recorded_at <= ${q.add(view.asOf, 'time')}`,
        `coalesce(${a}.valid_from, ${a}.recorded_at) <= ${q.add(view.asOf, 'time')}`,
        `(${a}.valid_to IS NULL OR ${a}.valid_to > ${q.add(view.asOf, 'time')})`,
      );
    } else {
      parts.push(
        `${a}.invalidated_at IS NULL`,
        `(${a}.valid_to IS NULL OR ${a}.valid_to > ${q.add(view.now, 'time')})`,
      );
      if (merged) parts.push(`${a}.merged_into IS NULL`);
    }
    return parts.join(' AND ');
  };
  function* select<R>(sql: string, q: Params, from: (row: SqlRow) => R): SqlProgram<R[]> {
    return (yield* sqlAll<SqlRow>(sql, q.values)).map(from);
  }

  const store: GraphStore = {
    name: d.adapter,
    write(space, batch: GraphWrite) {
      return r.transaction('writing the graph', function* () {
        for (const e of batch.entities ?? []) {
          yield* sqlRun(put.entity, params({ ...e, space }, ENTITY));
          yield* sqlRun(put.dropKeys, [space, e.id]);
          for (const key of new Set(e.keys)) yield* sqlRun(put.key, [space, key, e.id]);
        }
        for (const o of batch.observations ?? []) yield* sqlRun(put.observation, params({ ...o, space }, OBSERVATION));
        for (const x of batch.relations ?? []) yield* sqlRun(put.relation, params({ ...x, space }, RELATION));
        for (const l of batch.log ?? []) yield* sqlRun(put.log, params({ ...l, space }, LOG));
      });
    },
    entities(space, query: EntityQuery, view) {
      return r.run('reading the graph', function* () {
        const q = new Params(d);
        const cols = selectList(d, ENTITY, 'e');
        let where = `e.space = ${q.add(space)}`;
        let limit: number | null = null;
        if ('keys' in query) {
          where += ` AND e.id IN (SELECT k.entity_id FROM ${T.keys} k WHERE k.space = ${q.add(space)} AND ${q.inList('k.key', query.keys)})`;
        } else if ('ids' in query) where += ` AND ${q.inList('e.id', query.ids)}`;
        else if ('words' in query) {
          const like = (w: string) =>
            `e.search_text LIKE ${q.add(`%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} ESCAPE '\\'`;
          where += ` AND (${query.words.map(like).join(' OR ') || '1 = 0'})`;
          limit = query.limit;
        } else {
          if (query.after !== null) where += ` AND e.id > ${q.add(query.after)}`;
          limit = query.limit;
        }
        // Placeholders bind in the order they appear: visibility before the limit.
        where += ` AND ${seen(q, 'e', view, true)}`;
        const tail = limit === null ? '' : ` ORDER BY e.id LIMIT ${q.add(d.limit(limit))}`;
        const sql = `SELECT ${cols} FROM ${T.entities} e WHERE ${where}${tail}`;
        return yield* select(sql, q, entityFrom);
      });
    },
    keys(space, prefixes, limit) {
      return r.run('reading resolution keys', function* () {
        if (prefixes.length === 0) return [];
        const q = new Params(d);
        // One range read of the key index per prefix (an OR of them would scan the space's keys).
        const one = (x: string) =>
          `SELECT * FROM (SELECT k.key AS key, k.entity_id AS entityid FROM ${T.keys} k WHERE k.space = ${q.add(space)} AND ${q.startsWith('k.key', x)} ORDER BY k.key, k.entity_id LIMIT ${q.add(d.limit(limit))}) p${q.values.length}`;
        const rows = yield* sqlAll<{ key: string; entityid: string }>(prefixes.map(one).join(' UNION ALL '), q.values);
        return rows.map((row) => ({ key: row.key, entityId: row.entityid }));
      });
    },
    observations(space, of, view) {
      return r.run('reading observations', function* () {
        const q = new Params(d);
        const own = !Array.isArray(of);
        const ids = Array.isArray(of) ? of : (of as ByIds).ids;
        const where = `o.space = ${q.add(space)} AND ${q.inList(own ? 'o.id' : 'o.entity_id', ids)}`;
        const valid = view.history
          ? ''
          : view.asOf !== undefined
            ? ` AND o.recorded_at <= ${q.add(view.asOf, 'time')} AND (o.invalidated_at IS NULL OR o.invalidated_at > ${q.add(view.asOf, 'time')})`
            : ' AND o.invalidated_at IS NULL';
        const sql = `SELECT ${selectList(d, OBSERVATION, 'o')} FROM ${T.observations} o${own ? '' : d.via('graph_observations_entity')}
          WHERE ${where}${valid} ORDER BY o.recorded_at, o.id`;
        return yield* select(sql, q, observationFrom);
      });
    },
    relations(space, query: RelationQuery, view) {
      return r.run('reading relations', function* () {
        const q = new Params(d);
        const cols = selectList(d, RELATION, 'x');
        let sql: string;
        if ('entityIds' in query) {
          // One indexed query per end (an OR across the two columns would scan the table), merged by id.
          const side = function* (column: 'from_id' | 'to_id') {
            const p = new Params(d);
            const text = `SELECT ${cols} FROM ${T.relations} x${d.via(`graph_relations_${column.slice(0, -3)}`)} WHERE x.space = ${p.add(space)} AND ${p.inList(`x.${column}`, query.entityIds)} AND ${seen(p, 'x', view, false)}`;
            return yield* select(text, p, relationFrom);
          };
          const out = query.direction !== 'in' ? yield* side('from_id') : [];
          const inward = query.direction !== 'out' ? yield* side('to_id') : [];
          const byId = new Map([...out, ...inward].map((x) => [x.id, x]));
          return [...byId.values()];
        } else if ('ids' in query) {
          sql = `SELECT ${cols} FROM ${T.relations} x WHERE x.space = ${q.add(space)} AND ${q.inList('x.id', query.ids)} AND ${seen(q, 'x', view, false)}`;
        } else {
          const where = [`x.space = ${q.add(space)}`];
          if (query.after !== null) where.push(`x.id > ${q.add(query.after)}`);
          sql = `SELECT ${cols} FROM ${T.relations} x WHERE ${where.join(' AND ')} AND ${seen(q, 'x', view, false)}
            ORDER BY x.id LIMIT ${q.add(d.limit(query.limit))}`;
        }
        return yield* select(sql, q, relationFrom);
      });
    },
    log(space, of) {
      return r.run('reading the graph log', function* () {
        const q = new Params(d);
        const own = !Array.isArray(of);
        const ids = Array.isArray(of) ? of : (of as ByIds).ids;
        const where = `l.space = ${q.add(space)} AND ${q.inList(own ? 'l.id' : 'l.record_id', ids)}`;
        const sql = `SELECT ${selectList(d, LOG, 'l')} FROM ${T.log} l${own ? '' : d.via('graph_log_record')} WHERE ${where} ORDER BY l.at, l.id`;
        return yield* select(sql, q, logFrom);
      });
    },
    deleteOwner(space, who) {
      return r.transaction('forgetting graph records', function* (): SqlProgram<GraphDeleted> {
        const col = 'agentId' in who ? 'agent_id' : 'user_id';
        const v = 'agentId' in who ? who.agentId : who.userId;
        const ids = function* (table: string, where: string) {
          const rows = yield* sqlAll<{ id: string }>(
            `SELECT id FROM ${table} WHERE space = ${d.param(1)} AND ${where}`,
            [space, v],
          );
          return rows.map((row) => row.id);
        };
        const entities = yield* ids(T.entities, `${col} = ${d.param(2)}`);
        const relations = yield* ids(T.relations, `${col} = ${d.param(2)}`);
        const observations = 'agentId' in who ? yield* ids(T.observations, `agent_id = ${d.param(2)}`) : [];
        return yield* cascade(space, entities, relations, observations);
      });
    },
    deleteByEvidence(space, messageIds) {
      return r.transaction('forgetting graph records', function* (): SqlProgram<GraphDeleted> {
        const gone = new Set(messageIds);
        const resting = function* (table: string) {
          const rows = yield* sqlAll<{ id: string; evidence: string }>(
            `SELECT id, ${d.read('evidence', 'list')} AS evidence FROM ${table} WHERE space = ${d.param(1)}`,
            [space],
          );
          return rows.filter((row) => onlyOn(list(row.evidence), gone)).map((row) => row.id);
        };
        return yield* cascade(
          space,
          yield* resting(T.entities),
          yield* resting(T.relations),
          yield* resting(T.observations),
        );
      });
    },
  };
  return store;

  /**
   * Delete entities (with their keys, observations and every relation touching them), relations and observations by
   * id, and every log line about them; entities of others that lose observations get their search text again.
   */
  function* cascade(
    space: string,
    entities: readonly string[],
    relations: readonly string[],
    observations: readonly string[],
  ): SqlProgram<GraphDeleted> {
    const none: GraphDeleted = { entities: 0, observations: 0, relations: 0, log: 0 };
    if (entities.length + relations.length + observations.length === 0) return none;
    const select = function* (sql: (q: Params) => string) {
      const q = new Params(d);
      const text = sql(q);
      return yield* sqlAll<{ id: string }>(text, q.values);
    };
    const touching = (end: 'from' | 'to') =>
      select(
        (q) =>
          `SELECT id FROM ${T.relations}${d.via(`graph_relations_${end}`)} WHERE space = ${q.add(space)} AND ${q.inList(`${end}_id`, entities)}`,
      );
    const ends = [...(yield* touching('from')), ...(yield* touching('to'))];
    const allRelations = [...new Set([...relations, ...ends.map((x) => x.id)])];
    const onEntities = yield* select(
      (q) =>
        `SELECT id FROM ${T.observations}${d.via('graph_observations_entity')} WHERE space = ${q.add(space)} AND ${q.inList('entity_id', entities)}`,
    );
    const allObservations = [...new Set([...observations, ...onEntities.map((x) => x.id)])];
    const dropped = new Set(entities);
    const others = (yield* select(
      (q) =>
        `SELECT DISTINCT entity_id AS id FROM ${T.observations} WHERE space = ${q.add(space)} AND ${q.inList('id', allObservations)}`,
    ))
      .map((x) => x.id)
      .filter((id) => !dropped.has(id));
    const run = function* (sql: (q: Params) => string) {
      const q = new Params(d);
      const text = sql(q);
      return yield* sqlRun(text, q.values);
    };
    const log = yield* run(
      (q) =>
        `DELETE FROM ${T.log}${d.via('graph_log_record')} WHERE space = ${q.add(space)} AND ${q.inList('record_id', [...entities, ...allRelations, ...allObservations])}`,
    );
    const rel = yield* run(
      (q) => `DELETE FROM ${T.relations} WHERE space = ${q.add(space)} AND ${q.inList('id', allRelations)}`,
    );
    const obs = yield* run(
      (q) => `DELETE FROM ${T.observations} WHERE space = ${q.add(space)} AND ${q.inList('id', allObservations)}`,
    );
    yield* run(
      (q) =>
        `DELETE FROM ${T.keys}${d.via('graph_keys_entity')} WHERE space = ${q.add(space)} AND ${q.inList('entity_id', entities)}`,
    );
    const ent = yield* run(
      (q) => `DELETE FROM ${T.entities} WHERE space = ${q.add(space)} AND ${q.inList('id', entities)}`,
    );
    for (const id of others) {
      const texts = yield* sqlAll<{ text: string }>(
        `SELECT text FROM ${T.observations} WHERE space = ${d.param(1)} AND entity_id = ${d.param(2)} AND invalidated_at IS NULL ORDER BY recorded_at, id`,
        [space, id],
      );
      const rows = yield* sqlAll<SqlRow>(
        `SELECT ${selectList(d, ENTITY)} FROM ${T.entities} WHERE space = ${d.param(1)} AND id = ${d.param(2)}`,
        [space, id],
      );
      if (rows[0] === undefined) continue;
      const text = entitySearchText(
        entityFrom(rows[0]),
        texts.map((t) => t.text),
      );
      yield* sqlRun(
        `UPDATE ${T.entities} SET search_text = ${d.param(1)} WHERE space = ${d.param(2)} AND id = ${d.param(3)}`,
        [text, space, id],
      );
    }
    return { entities: ent, observations: obs, relations: rel, log };
  }
}
