/**
 * The record tables of the structured ports as the shared SQL layer reads them: each record's columns (with the
 * aliases both engines select them as) and the mapping of a row back to the record of @mem/core.
 */

import type { MemoryRecord, Scope, Source } from '../../types.js';
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

const field = (column: string, type: SqlType = 'text', as = column.replaceAll('_', '')): SqlField => ({
  column,
  as,
  type,
});
const json = <T>(value: unknown): T => JSON.parse(value as string) as T;
const text = (value: unknown): string => value as string;
const textOrNull = (value: unknown): string | null => value as string | null;

function episodeRecord(timeColumn: string): SqlRecord<T.Episode> {
  return {
    fields: [
      field('id'),
      field('summary'),
      field('key_decisions', 'list'),
      field('tools_used', 'list'),
      field('outcome'),
      field('session_id'),
      field(timeColumn, 'time', 'happenedat'),
      field('tags', 'list'),
      field('metadata', 'json'),
    ],
    from: (r) => ({
      id: text(r.id),
      summary: text(r.summary),
      keyDecisions: json<string[]>(r.keydecisions),
      toolsUsed: json<string[]>(r.toolsused),
      outcome: r.outcome as T.EpisodeOutcome,
      sessionId: textOrNull(r.sessionid),
      timestamp: text(r.happenedat),
      tags: json<string[]>(r.tags),
      metadata: json<T.JsonObject>(r.metadata),
    }),
  };
}

/**
 * The chunks of the knowledge store, but for the embedding: the engine selects it itself `AS embedding` (a BLOB, a
 * vector as text) and `vector` turns it into the record's vector.
 */
function chunkRecord(vector: (embedding: unknown) => Float32Array): SqlRecord<MemoryRecord> {
  return {
    fields: [
      field('id'),
      field('doc_id'),
      field('space'),
      field('scope'),
      field('agent_id'),
      field('key'),
      field('name'),
      field('content'),
      field('body_start', 'int'),
      field('chunk_index', 'int'),
      field('chunk_count', 'int'),
      field('source'),
      field('tags', 'list'),
      field('embedding_model'),
      field('content_hash'),
      field('created_at', 'time'),
      field('updated_at', 'time'),
      field('expires_at', 'time'),
      field('access_count', 'int'),
      field('last_accessed_at', 'time'),
      // Numbers (not integers), read as they are like integers.
      field('alpha', 'int'),
      field('beta', 'int'),
      field('version', 'int'),
    ],
    from: (r) => ({
      id: text(r.id),
      docId: text(r.docid),
      space: text(r.space),
      scope: r.scope as Scope,
      agentId: text(r.agentid),
      key: text(r.key),
      name: text(r.name),
      content: text(r.content),
      bodyStart: Number(r.bodystart),
      chunkIndex: Number(r.chunkindex),
      chunkCount: Number(r.chunkcount),
      source: r.source as Source,
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
    }),
  };
}

/**
 * Every record table of the structured ports, and the knowledge store's chunks; `episode(timeColumn)` since engines
 * name that column differently, `chunk(vector)` since they store vectors differently.
 */
export const SQL_RECORDS = {
  episode: episodeRecord,
  chunk: chunkRecord,
  procedure: {
    fields: [
      field('id'),
      field('name'),
      field('description'),
      field('trigger_text'),
      field('steps', 'json'),
      field('success_count', 'int'),
      field('failure_count', 'int'),
      field('tags', 'list'),
      field('metadata', 'json'),
      field('created_at', 'time'),
      field('updated_at', 'time'),
    ],
    from: (r): T.Procedure => ({
      id: text(r.id),
      name: text(r.name),
      description: text(r.description),
      trigger: text(r.triggertext),
      steps: json<T.ProcedureStep[]>(r.steps),
      successCount: Number(r.successcount),
      failureCount: Number(r.failurecount),
      tags: json<string[]>(r.tags),
      metadata: json<T.JsonObject>(r.metadata),
      createdAt: text(r.createdat),
      updatedAt: text(r.updatedat),
    }),
  } satisfies SqlRecord<T.Procedure>,
  summary: {
    fields: [
      field('session_id'),
      field('summary'),
      field('messages_covered', 'int'),
      field('version', 'int'),
      field('created_at', 'time'),
      field('updated_at', 'time'),
    ],
    from: (r): T.SessionSummary => ({
      sessionId: text(r.sessionid),
      summary: text(r.summary),
      messagesCovered: Number(r.messagescovered),
      version: Number(r.version),
      createdAt: text(r.createdat),
      updatedAt: text(r.updatedat),
    }),
  } satisfies SqlRecord<T.SessionSummary>,
  user: {
    fields: [field('id'), field('external_id'), field('created_at', 'time')],
    from: (r): T.UserRecord => ({ id: text(r.id), externalId: text(r.externalid), createdAt: text(r.createdat) }),
  } satisfies SqlRecord<T.UserRecord>,
  sessionState: {
    fields: [field('session_id'), field('state', 'json'), field('updated_at', 'time')],
    from: (r): T.SessionState => ({
      sessionId: text(r.sessionid),
      state: json<T.JsonValue>(r.state),
      updatedAt: text(r.updatedat),
    }),
  } satisfies SqlRecord<T.SessionState>,
  phase: {
    fields: [field('session_id'), field('phase'), field('metadata', 'json'), field('at', 'time')],
    from: (r): T.PhaseChange => ({
      sessionId: text(r.sessionid),
      phase: text(r.phase),
      metadata: json<T.JsonObject>(r.metadata),
      at: text(r.at),
    }),
  } satisfies SqlRecord<T.PhaseChange>,
  toolEvent: {
    fields: [
      field('id'),
      field('session_id'),
      field('tool'),
      field('input', 'json'),
      field('output', 'json'),
      field('latency_ms', 'int'),
      field('error'),
      field('at', 'time'),
    ],
    from: (r): T.ToolEvent => ({
      id: text(r.id),
      sessionId: textOrNull(r.sessionid),
      tool: text(r.tool),
      input: json<T.JsonValue>(r.input),
      output: json<T.JsonValue>(r.output),
      latencyMs: Number(r.latencyms),
      error: textOrNull(r.error),
      at: text(r.at),
    }),
  } satisfies SqlRecord<T.ToolEvent>,
  message: {
    fields: [
      field('id'),
      field('session_id'),
      field('role'),
      field('content'),
      field('tool_calls', 'json'),
      field('name'),
      field('metadata', 'json'),
      field('created_at', 'time'),
    ],
    from: (r): T.StoredMessage => ({
      id: text(r.id),
      sessionId: text(r.sessionid),
      role: r.role as T.MessageRole,
      content: text(r.content),
      toolCalls: json<T.ToolCall[]>(r.toolcalls),
      name: textOrNull(r.name),
      metadata: json<T.JsonObject>(r.metadata),
      createdAt: text(r.createdat),
    }),
  } satisfies SqlRecord<T.StoredMessage>,
  fact: {
    fields: [
      field('user_id'),
      field('topic'),
      field('key'),
      field('value', 'json'),
      field('source'),
      field('created_at', 'time'),
      field('updated_at', 'time'),
    ],
    from: (r): T.Fact => ({
      user: text(r.userid),
      topic: textOrNull(r.topic),
      key: text(r.key),
      value: json<T.JsonValue>(r.value),
      source: r.source as T.FactSource,
      createdAt: text(r.createdat),
      updatedAt: text(r.updatedat),
    }),
  } satisfies SqlRecord<T.Fact>,
  goal: {
    fields: [
      field('id'),
      field('user_id'),
      field('topic'),
      field('goal'),
      field('status'),
      field('metadata', 'json'),
      field('created_at', 'time'),
      field('updated_at', 'time'),
    ],
    from: (r): T.Goal => ({
      id: text(r.id),
      user: text(r.userid),
      topic: textOrNull(r.topic),
      goal: text(r.goal),
      status: r.status as T.GoalStatus,
      metadata: json<T.JsonObject>(r.metadata),
      createdAt: text(r.createdat),
      updatedAt: text(r.updatedat),
    }),
  } satisfies SqlRecord<T.Goal>,
};
