import type { Episode, EpisodeOutcome, JsonObject, Procedure, ProcedureStep } from '@mem/core';
import { episodeSearchText, procedureSearchText, type StoredEmbedding } from '@mem/core/adapter';
import { arrow, FTS_COLUMN, int32, listOf, type Row, utf8, utf8List, vectorColumn } from './schema.js';

/**
 * The episode and procedure tables. Each row carries the port's search text in `fts_text` (exactly
 * `episodeSearchText` / `procedureSearchText` of @mem/core/adapter: the full-text column), the embedder model of its vector
 * in `embedding_model`, and the vector itself in the `vec_<dimension>` column of its dimension (added on first
 * use, as in the knowledge table). String lists are Arrow lists (tags are matched with `array_has`: exact);
 * free-form JSON (metadata, steps) is stored as JSON text.
 */

/** Schema versions, kept in each table's schema metadata under these keys. */
export const EPISODE_SCHEMA = { key: 'mem.episodes.schema', value: 1 } as const;
export const PROCEDURE_SCHEMA = { key: 'mem.procedures.schema', value: 1 } as const;

const metadataOf = (version: { key: string; value: number }) => new Map([[version.key, String(version.value)]]);

export function episodeSchema() {
  return new arrow.Schema(
    [
      utf8('space'),
      utf8('id'),
      utf8('summary'),
      utf8List('key_decisions'),
      utf8List('tools_used'),
      utf8('outcome'),
      utf8('session_id', true),
      utf8('timestamp'),
      utf8List('tags'),
      utf8('metadata'),
      utf8(FTS_COLUMN),
      utf8('embedding_model', true),
    ],
    metadataOf(EPISODE_SCHEMA),
  );
}

export function procedureSchema() {
  return new arrow.Schema(
    [
      utf8('space'),
      utf8('id'),
      utf8('name'),
      utf8('description'),
      utf8('trigger_text'),
      utf8('steps'),
      int32('success_count'),
      int32('failure_count'),
      utf8List('tags'),
      utf8('metadata'),
      utf8('created_at'),
      utf8('updated_at'),
      utf8(FTS_COLUMN),
      utf8('embedding_model', true),
    ],
    metadataOf(PROCEDURE_SCHEMA),
  );
}

export const REQUIRED_EPISODE_COLUMNS = episodeSchema().fields.map((f) => f.name);
export const REQUIRED_PROCEDURE_COLUMNS = procedureSchema().fields.map((f) => f.name);

/** The embedding columns of a row: its vector in the column of its dimension, every other vector column null. */
function embeddingColumns(embedding: StoredEmbedding | null, vectorColumns: readonly string[]): Row {
  const row: Row = { embedding_model: null };
  for (const column of vectorColumns) row[column] = null;
  if (embedding !== null && embedding.vector.length > 0) {
    row.embedding_model = embedding.model;
    row[vectorColumn(embedding.vector.length)] = Float32Array.from(embedding.vector);
  }
  return row;
}

export function episodeToRow(
  space: string,
  e: Episode,
  embedding: StoredEmbedding | null,
  vectorColumns: readonly string[],
): Row {
  return {
    space,
    id: e.id,
    summary: e.summary,
    key_decisions: [...e.keyDecisions],
    tools_used: [...e.toolsUsed],
    outcome: e.outcome,
    session_id: e.sessionId,
    timestamp: e.timestamp,
    tags: [...e.tags],
    metadata: JSON.stringify(e.metadata),
    [FTS_COLUMN]: episodeSearchText(e),
    ...embeddingColumns(embedding, vectorColumns),
  };
}

const strings = (value: unknown) => listOf(value).map(String);

export function rowToEpisode(row: Row): Episode {
  return {
    id: String(row.id),
    summary: String(row.summary),
    keyDecisions: strings(row.key_decisions),
    toolsUsed: strings(row.tools_used),
    outcome: String(row.outcome) as EpisodeOutcome,
    sessionId: row.session_id === null || row.session_id === undefined ? null : String(row.session_id),
    timestamp: String(row.timestamp),
    tags: strings(row.tags),
    metadata: JSON.parse(String(row.metadata)) as JsonObject,
  };
}

export function procedureToRow(
  space: string,
  p: Procedure,
  embedding: StoredEmbedding | null,
  vectorColumns: readonly string[],
): Row {
  return {
    space,
    id: p.id,
    name: p.name,
    description: p.description,
    trigger_text: p.trigger,
    steps: JSON.stringify(p.steps),
    success_count: p.successCount,
    failure_count: p.failureCount,
    tags: [...p.tags],
    metadata: JSON.stringify(p.metadata),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    [FTS_COLUMN]: procedureSearchText(p),
    ...embeddingColumns(embedding, vectorColumns),
  };
}

export function rowToProcedure(row: Row): Procedure {
  return {
    id: String(row.id),
    name: String(row.name),
    description: String(row.description),
    trigger: String(row.trigger_text),
    steps: JSON.parse(String(row.steps)) as ProcedureStep[],
    successCount: Number(row.success_count),
    failureCount: Number(row.failure_count),
    tags: strings(row.tags),
    metadata: JSON.parse(String(row.metadata)) as JsonObject,
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

/** Columns read back for a record (never the vectors). */
export const EPISODE_COLUMNS = REQUIRED_EPISODE_COLUMNS.filter((c) => c !== FTS_COLUMN && c !== 'embedding_model');
export const PROCEDURE_COLUMNS = REQUIRED_PROCEDURE_COLUMNS.filter((c) => c !== FTS_COLUMN && c !== 'embedding_model');
