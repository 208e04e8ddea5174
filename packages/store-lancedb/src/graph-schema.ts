import type { EntityRecord, GraphLogEntry, ObservationRecord, RelationRecord } from '@mem/core/adapter';
import { arrow, listOf, type Row, utf8, utf8List } from './schema.js';

/**
 * The tables of the memory graph (docs/graph.md): entities, their resolution keys (one row per key and entity, so a
 * name or an alias is one indexed lookup and a key prefix one sorted range), observations, relations and the graph's
 * log, one row per record keyed by (space, id). Times are ISO text (compared as text), string lists (aliases, the
 * entity's own copy of its keys, evidence) are Arrow lists — `evidence` is narrowed with `array_has_any` by forget —,
 * the log's free-form `detail` is JSON text. `search_text` is the entity's word-search text, exactly as the core
 * computes it (`entitySearchText`).
 */

/** Schema version, kept in each graph table's schema metadata under this key. */
export const GRAPH_SCHEMA = { key: 'mem.graph.schema', value: 1 } as const;

const metadata = () => new Map([[GRAPH_SCHEMA.key, String(GRAPH_SCHEMA.value)]]);

/** Who a record belongs to (`GraphOwner` without the id and space, which lead every table). */
const ownerFields = () => [utf8('scope'), utf8('agent_id'), utf8('user_id', true)];

/** The world and system times of a record (`GraphTimes`). */
const timeFields = () => [
  utf8('valid_from', true),
  utf8('valid_to', true),
  utf8('recorded_at'),
  utf8('invalidated_at', true),
  utf8List('evidence'),
];

export function entitySchema() {
  return new arrow.Schema(
    [
      utf8('space'),
      utf8('id'),
      ...ownerFields(),
      utf8('name'),
      utf8('entity_type'),
      utf8List('aliases'),
      utf8List('keys'),
      utf8('search_text'),
      utf8('merged_into', true),
      ...timeFields(),
      utf8('updated_at'),
    ],
    metadata(),
  );
}

/** One row per (space, key, entity): the resolution keys of every entity, de-duplicated per entity. */
export function keySchema() {
  return new arrow.Schema([utf8('space'), utf8('key'), utf8('entity_id')], metadata());
}

export function observationSchema() {
  return new arrow.Schema(
    [
      utf8('space'),
      utf8('id'),
      utf8('entity_id'),
      utf8('text'),
      utf8('agent_id'),
      utf8('recorded_at'),
      utf8('invalidated_at', true),
      utf8List('evidence'),
    ],
    metadata(),
  );
}

export function relationSchema() {
  return new arrow.Schema(
    [
      utf8('space'),
      utf8('id'),
      ...ownerFields(),
      utf8('from_id'),
      utf8('relation_type'),
      utf8('to_id'),
      ...timeFields(),
    ],
    metadata(),
  );
}

export function graphLogSchema() {
  return new arrow.Schema(
    [
      utf8('space'),
      utf8('id'),
      utf8('record_id'),
      utf8('kind'),
      utf8('decision'),
      utf8('at'),
      utf8('by_name'),
      utf8('agent_id'),
      utf8List('evidence'),
      utf8('detail'),
    ],
    metadata(),
  );
}

const str = (value: unknown): string => String(value);
const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const strings = (value: unknown): string[] => listOf(value).map(String);

const ownerToRow = (space: string, r: EntityRecord | RelationRecord): Row => ({
  space,
  id: r.id,
  scope: r.scope,
  agent_id: r.agentId,
  user_id: r.userId,
});

const timesToRow = (r: EntityRecord | RelationRecord): Row => ({
  valid_from: r.validFrom,
  valid_to: r.validTo,
  recorded_at: r.recordedAt,
  invalidated_at: r.invalidatedAt,
  evidence: [...r.evidence],
});

const ownerOf = (row: Row) => ({
  id: str(row.id),
  space: str(row.space),
  scope: str(row.scope) as EntityRecord['scope'],
  agentId: str(row.agent_id),
  userId: strOrNull(row.user_id),
});

const timesOf = (row: Row) => ({
  validFrom: strOrNull(row.valid_from),
  validTo: strOrNull(row.valid_to),
  recordedAt: str(row.recorded_at),
  invalidatedAt: strOrNull(row.invalidated_at),
  evidence: strings(row.evidence),
});

/** An entity → its row under `space` (the space the write names, as every store keeps it). */
export function entityToRow(space: string, e: EntityRecord): Row {
  return {
    ...ownerToRow(space, e),
    name: e.name,
    entity_type: e.entityType,
    aliases: [...e.aliases],
    keys: [...e.keys],
    search_text: e.searchText,
    merged_into: e.mergedInto,
    ...timesToRow(e),
    updated_at: e.updatedAt,
  };
}

export function rowToEntity(row: Row): EntityRecord {
  return {
    ...ownerOf(row),
    name: str(row.name),
    entityType: str(row.entity_type),
    aliases: strings(row.aliases),
    keys: strings(row.keys),
    searchText: str(row.search_text),
    mergedInto: strOrNull(row.merged_into),
    ...timesOf(row),
    updatedAt: str(row.updated_at),
  };
}

/** The key rows of an entity's row (`entityToRow`): one per distinct key. */
export function keyRows(entity: Row): Row[] {
  return [...new Set(listOf(entity.keys).map(String))].map((key) => ({
    space: entity.space,
    key,
    entity_id: entity.id,
  }));
}

export function observationToRow(space: string, o: ObservationRecord): Row {
  return {
    space,
    id: o.id,
    entity_id: o.entityId,
    text: o.text,
    agent_id: o.agentId,
    recorded_at: o.recordedAt,
    invalidated_at: o.invalidatedAt,
    evidence: [...o.evidence],
  };
}

export function rowToObservation(row: Row): ObservationRecord {
  return {
    id: str(row.id),
    space: str(row.space),
    entityId: str(row.entity_id),
    text: str(row.text),
    agentId: str(row.agent_id),
    recordedAt: str(row.recorded_at),
    invalidatedAt: strOrNull(row.invalidated_at),
    evidence: strings(row.evidence),
  };
}

export function relationToRow(space: string, r: RelationRecord): Row {
  return {
    ...ownerToRow(space, r),
    from_id: r.fromId,
    relation_type: r.relationType,
    to_id: r.toId,
    ...timesToRow(r),
  };
}

export function rowToRelation(row: Row): RelationRecord {
  return {
    ...ownerOf(row),
    fromId: str(row.from_id),
    relationType: str(row.relation_type),
    toId: str(row.to_id),
    ...timesOf(row),
  };
}

export function logToRow(space: string, l: GraphLogEntry): Row {
  return {
    space,
    id: l.id,
    record_id: l.recordId,
    kind: l.kind,
    decision: l.decision,
    at: l.at,
    by_name: l.by,
    agent_id: l.agentId,
    evidence: [...l.evidence],
    detail: JSON.stringify(l.detail),
  };
}

export function rowToLog(row: Row): GraphLogEntry {
  return {
    id: str(row.id),
    space: str(row.space),
    recordId: str(row.record_id),
    kind: str(row.kind) as GraphLogEntry['kind'],
    decision: str(row.decision) as GraphLogEntry['decision'],
    at: str(row.at),
    by: str(row.by_name),
    agentId: str(row.agent_id),
    evidence: strings(row.evidence),
    detail: JSON.parse(str(row.detail)) as Record<string, unknown>,
  };
}
