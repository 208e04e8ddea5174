/**
 * The record tables of the structured ports as the shared SQL layer reads them: each record's columns, described once
 * (column, type, the alias both engines select it as, the record key it fills), and from them the mapping of a row
 * back to the record of @mem/core.
 */

import type { FormationEntry } from '../../ports/knowledge-store.js';
import type { MemoryRecord } from '../../types.js';
import type * as T from '../../types-structured.js';
import { parseTags } from '../rows.js';
import type { SqlField, SqlType } from './dialect.js';

/** A row as a driver returns it, keyed by the aliases of `SqlRecord.fields`. */
export type SqlRow = Record<string, unknown>;

/** A record table: the columns to select and how a row becomes the record. */
export interface SqlRecord<T> {
  readonly fields: readonly SqlField[];
  from(row: SqlRow): T;
}

/** One column as a record reads it: the record key it fills and how its portable value becomes the key's value. */
export interface RecordColumn<K extends string> extends SqlField {
  readonly key: K;
  readonly value: (read: unknown) => unknown;
  /** False for a column the engine selects itself (the chunk's vector): read into the record, not in `fields`. */
  readonly selected: boolean;
}

/** How a type's portable read form becomes the record's value (text and times as they are, numbers, parsed JSON). */
const VALUE: Record<SqlType, (read: unknown) => unknown> = {
  text: (v) => v,
  time: (v) => v,
  int: (v) => Number(v),
  json: (v) => JSON.parse(v as string),
  list: (v) => JSON.parse(v as string),
};

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Column `column` of `type`, selected as its name without underscores (so that a client's column-name transform
 * changes nothing) and read into the camel-cased key unless `key` says otherwise.
 */
function col<K extends string>(
  column: string,
  type: SqlType = 'text',
  how: { key?: K; as?: string; value?: (read: unknown) => unknown; selected?: boolean } = {},
): RecordColumn<K> {
  return {
    column,
    type,
    as: how.as ?? column.replaceAll('_', ''),
    key: how.key ?? (camel(column) as K),
    value: how.value ?? VALUE[type],
    selected: how.selected ?? true,
  };
}

/** The record table of `columns`, in that order (the record's keys come in the same order). */
function sqlRecord<R>(columns: readonly RecordColumn<keyof R & string>[]): SqlRecord<R> {
  return {
    fields: columns.filter((c) => c.selected),
    from: (row) => {
      const record: Record<string, unknown> = {};
      for (const c of columns) record[c.key] = c.value(row[c.as]);
      return record as R;
    },
  };
}

const episodeRecord = (timeColumn: string) =>
  sqlRecord<T.Episode>([
    col('id'),
    col('summary'),
    col('key_decisions', 'list'),
    col('tools_used', 'list'),
    col('outcome'),
    col('session_id'),
    col(timeColumn, 'time', { key: 'timestamp', as: 'happenedat' }),
    col('tags', 'list'),
    col('metadata', 'json'),
  ]);

/**
 * The chunks of the knowledge store: the engine selects the embedding itself `AS embedding` (a BLOB, a vector as
 * text) and `vector` turns it into the record's vector. Tags are read leniently (`parseTags`).
 */
export const chunkColumns = (
  vector: (embedding: unknown) => Float32Array,
): readonly RecordColumn<keyof MemoryRecord & string>[] => [
  col('id'),
  col('doc_id'),
  col('space'),
  col('scope'),
  col('agent_id'),
  col('key'),
  col('name'),
  col('content'),
  col('body_start', 'int'),
  col('chunk_index', 'int'),
  col('chunk_count', 'int'),
  col('source'),
  col('tags', 'list', { value: (v) => parseTags(v as string) }),
  col('embedding', 'text', { value: (v) => (v === null ? null : vector(v)), selected: false }),
  col('embedding_model'),
  col('content_hash'),
  col('created_at', 'time'),
  col('updated_at', 'time'),
  col('expires_at', 'time'),
  col('access_count', 'int'),
  col('last_accessed_at', 'time'),
  // Numbers (not integers), read as they are like integers.
  col('alpha', 'int'),
  col('beta', 'int'),
  col('version', 'int'),
  col('valid_from', 'time'),
  col('valid_to', 'time'),
  col('invalidated_at', 'time'),
  col('supersedes'),
  col('superseded_by'),
  col('user_id'),
  col('claim', 'json', { value: (v) => (v === null ? null : JSON.parse(v as string)) }),
];

const text = (v: unknown) => v as string;
const textOrNull = (v: unknown) => v as string | null;

/**
 * The chunks of the knowledge store, read on every search: the columns of `chunkColumns`, read back by a literal (a
 * record built key by key from the list costs a few per cent of a search; a test holds the two readings equal).
 */
const chunkRecord = (vector: (embedding: unknown) => Float32Array): SqlRecord<MemoryRecord> => ({
  fields: sqlRecord<MemoryRecord>(chunkColumns(vector)).fields,
  from: (r) => ({
    id: text(r.id),
    docId: text(r.docid),
    space: text(r.space),
    scope: r.scope as MemoryRecord['scope'],
    agentId: text(r.agentid),
    key: text(r.key),
    name: text(r.name),
    content: text(r.content),
    bodyStart: Number(r.bodystart),
    chunkIndex: Number(r.chunkindex),
    chunkCount: Number(r.chunkcount),
    source: r.source as MemoryRecord['source'],
    tags: parseTags(r.tags as string),
    embedding: r.embedding === null ? null : vector(r.embedding),
    embeddingModel: textOrNull(r.embeddingmodel),
    contentHash: text(r.contenthash),
    createdAt: text(r.createdat),
    updatedAt: text(r.updatedat),
    expiresAt: textOrNull(r.expiresat),
    accessCount: Number(r.accesscount),
    lastAccessedAt: textOrNull(r.lastaccessedat),
    alpha: Number(r.alpha),
    beta: Number(r.beta),
    version: Number(r.version),
    validFrom: textOrNull(r.validfrom),
    validTo: textOrNull(r.validto),
    invalidatedAt: textOrNull(r.invalidatedat),
    supersedes: textOrNull(r.supersedes),
    supersededBy: textOrNull(r.supersededby),
    userId: textOrNull(r.userid),
    claim: r.claim === null ? null : JSON.parse(r.claim as string),
  }),
});

/** The chunk record as its column list reads it, key by key: what the literal of `SQL_RECORDS.chunk` must equal. */
export const describedChunk = (vector: (embedding: unknown) => Float32Array) =>
  sqlRecord<MemoryRecord>(chunkColumns(vector));

/**
 * Every record table of the structured ports, and the knowledge store's chunks; `episode(timeColumn)` since engines
 * name that column differently, `chunk(vector)` since they store vectors differently.
 */
export const SQL_RECORDS = {
  episode: episodeRecord,
  chunk: chunkRecord,
  procedure: sqlRecord<T.Procedure>([
    col('id'),
    col('name'),
    col('description'),
    col('trigger_text', 'text', { key: 'trigger' }),
    col('steps', 'json'),
    col('success_count', 'int'),
    col('failure_count', 'int'),
    col('tags', 'list'),
    col('metadata', 'json'),
    col('created_at', 'time'),
    col('updated_at', 'time'),
  ]),
  summary: sqlRecord<T.SessionSummary>([
    col('session_id'),
    col('summary'),
    col('messages_covered', 'int'),
    col('version', 'int'),
    col('created_at', 'time'),
    col('updated_at', 'time'),
  ]),
  user: sqlRecord<T.UserRecord>([col('id'), col('external_id'), col('created_at', 'time')]),
  sessionState: sqlRecord<T.SessionState>([col('session_id'), col('state', 'json'), col('updated_at', 'time')]),
  phase: sqlRecord<T.PhaseChange>([col('session_id'), col('phase'), col('metadata', 'json'), col('at', 'time')]),
  toolEvent: sqlRecord<T.ToolEvent>([
    col('id'),
    col('session_id'),
    col('tool'),
    col('input', 'json'),
    col('output', 'json'),
    col('latency_ms', 'int'),
    col('error'),
    col('at', 'time'),
  ]),
  message: sqlRecord<T.StoredMessage>([
    col('id'),
    col('session_id'),
    col('role'),
    col('content'),
    col('tool_calls', 'json'),
    col('name'),
    col('metadata', 'json'),
    col('created_at', 'time'),
  ]),
  fact: sqlRecord<T.Fact>([
    col('user_id', 'text', { key: 'user' }),
    col('topic'),
    col('key'),
    col('value', 'json'),
    col('source'),
    col('created_at', 'time'),
    col('updated_at', 'time'),
  ]),
  /** The decision log of formation (docs/formation.md); evidence and related ids as JSON lists. */
  formationEntry: sqlRecord<FormationEntry>([
    col('id'),
    col('space'),
    col('memory_id'),
    col('decision'),
    col('previous_id'),
    col('text'),
    col('evidence', 'list'),
    col('extractor'),
    col('model'),
    col('prompt_version'),
    col('related', 'list'),
    col('agent_id'),
    col('user_id'),
    col('at', 'time'),
  ]),
  goal: sqlRecord<T.Goal>([
    col('id'),
    col('user_id', 'text', { key: 'user' }),
    col('topic'),
    col('goal'),
    col('status'),
    col('metadata', 'json'),
    col('created_at', 'time'),
    col('updated_at', 'time'),
  ]),
};
