import { createRequire } from 'node:module';
import type { MemoryVersion, Scope, Source } from '@mem/core';
import type { FormationDecisionName, FormationEntry, MemoryClaim, MemoryRecord, Rating } from '@mem/core/adapter';

/**
 * apache-arrow loaded through `require`: @lancedb/lancedb is a CommonJS package and checks `instanceof` against
 * the CommonJS build of apache-arrow, so schemas and fields must come from that same copy (an ESM import would
 * load the ESM build, whose classes are different objects).
 */
export const arrow = createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');

/**
 * Schema version of the knowledge tables, recorded in the meta table. 2: the validity columns of formation
 * (`VALIDITY_COLUMNS`) and the decision-log table. A database at 1 is migrated on open (the columns added, null);
 * a package that knows only 1 refuses a database at 2 — it would show memories about a user to everyone and closed
 * memories as current, and its forget would leave decision-log lines behind.
 */
export const SCHEMA_VERSION = 2;

/** Vector columns are named by dimension, so that re-embedding into another dimension never mixes spaces. */
export const VECTOR_PREFIX = 'vec_';
export const vectorColumn = (dimension: number) => `${VECTOR_PREFIX}${dimension}`;
export function vectorDimension(column: string): number | null {
  if (!column.startsWith(VECTOR_PREFIX)) return null;
  const n = Number(column.slice(VECTOR_PREFIX.length));
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The full-text column: name and content of a chunk, indexed together (BM25 over name + content). */
export const FTS_COLUMN = 'fts_text';

export const utf8 = (name: string, nullable = false) => new arrow.Field(name, new arrow.Utf8(), nullable);
export const int32 = (name: string) => new arrow.Field(name, new arrow.Int32(), false);
/** A non-null list of strings (tags and the like). */
export const utf8List = (name: string) =>
  new arrow.Field(name, new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)), false);
const float64 = (name: string) => new arrow.Field(name, new arrow.Float64(), false);

export function vectorField(dimension: number) {
  return new arrow.Field(
    vectorColumn(dimension),
    new arrow.FixedSizeList(dimension, new arrow.Field('item', new arrow.Float32(), true)),
    true,
  );
}

export function chunkSchema() {
  return new arrow.Schema([
    utf8('id'),
    utf8('doc_id'),
    utf8('space'),
    utf8('scope'),
    utf8('agent_id'),
    utf8('key'),
    utf8('name'),
    utf8('content'),
    int32('body_start'),
    int32('chunk_index'),
    int32('chunk_count'),
    utf8('source'),
    utf8List('tags'),
    utf8('embedding_model', true),
    utf8('content_hash'),
    utf8('created_at'),
    utf8('updated_at'),
    utf8('expires_at', true),
    // Counters as written with the document (0 / null / 1 / 1 for a new memory). Accesses and ratings after that
    // live in their own tables and are added on read, so that neither rewrites the chunk rows.
    int32('access_base'),
    utf8('last_access_base', true),
    float64('alpha_base'),
    float64('beta_base'),
    int32('version'),
    utf8(FTS_COLUMN),
    ...validityFields(),
  ]);
}

/**
 * The chunk columns of a memory's validity (docs/formation.md), every chunk of a document carrying the same values:
 * world and system times as ISO text (compared as text), the supersede chain, the user it is about and the claim as
 * JSON text. All nullable: a table written before they existed gets them added, null (`migrateChunks`).
 */
export const VALIDITY_COLUMNS = [
  'valid_from',
  'valid_to',
  'invalidated_at',
  'supersedes',
  'superseded_by',
  'user_id',
  'claim',
] as const;

export function validityFields() {
  return VALIDITY_COLUMNS.map((name) => utf8(name, true));
}

export function versionSchema() {
  return new arrow.Schema([
    utf8('space'),
    utf8('doc_id'),
    int32('version'),
    utf8('old_content'),
    utf8('old_key'),
    utf8('intent'),
    utf8('agent_id'),
    utf8('at'),
    // Wall-clock write time (ms) of the row: orders two rows of one version number (see listVersions).
    float64('written_ms'),
  ]);
}

export function ratingSchema() {
  return new arrow.Schema([
    utf8('space'),
    utf8('doc_id'),
    utf8('task_id'),
    new arrow.Field('useful', new arrow.Bool(), false),
    utf8('note', true),
    utf8('agent_id'),
    utf8('at'),
    // Whether the vote moves the counters (issue 15); null in rows written before the column existed (they count).
    new arrow.Field('counted', new arrow.Bool(), true),
  ]);
}

/** The `counted` column, added to a ratings table written before it existed. */
export function ratingCountedField() {
  return new arrow.Field('counted', new arrow.Bool(), true);
}

export function accessSchema() {
  return new arrow.Schema([utf8('space'), utf8('doc_id'), int32('count'), utf8('last_at')]);
}

/** The decision log of formation: one row per `FormationEntry`, evidence and related ids as JSON lists. */
export function formationLogSchema() {
  return new arrow.Schema([
    utf8('id'),
    utf8('space'),
    utf8('memory_id'),
    utf8('decision'),
    utf8('previous_id', true),
    utf8('text'),
    utf8('evidence'),
    utf8('extractor'),
    utf8('model', true),
    utf8('prompt_version'),
    utf8('related'),
    utf8('agent_id'),
    utf8('user_id', true),
    utf8('at'),
  ]);
}

export function metaSchema() {
  return new arrow.Schema([utf8('key'), utf8('value')]);
}

/**
 * Column names a chunks table must have (a foreign table is refused): every column but the validity ones, which a
 * table of schema version 1 lacks until they are added on open.
 */
export const REQUIRED_CHUNK_COLUMNS = chunkSchema()
  .fields.map((f) => f.name)
  .filter((name) => !(VALIDITY_COLUMNS as readonly string[]).includes(name));

export type Row = Record<string, unknown>;

/** Anything array-like from Arrow (a Vector) or JS → a plain array. */
export function listOf(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value;
  const v = value as { toArray?: () => ArrayLike<unknown> };
  if (typeof v.toArray === 'function') return Array.from(v.toArray());
  return [];
}

function vectorOf(value: unknown): Float32Array | null {
  if (value === null || value === undefined) return null;
  const v = value as { toArray?: () => ArrayLike<number> };
  const data = typeof v.toArray === 'function' ? v.toArray() : (value as ArrayLike<number>);
  // Always a fresh copy: never alias a buffer owned by the driver.
  return Float32Array.from(data);
}

const str = (value: unknown): string => String(value);
const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const num = (value: unknown): number => Number(value);

/** The stored embedding of a chunk: the one non-null vector column. */
export function embeddingOf(row: Row): Float32Array | null {
  for (const [name, value] of Object.entries(row)) {
    if (value === null || value === undefined || vectorDimension(name) === null) continue;
    return vectorOf(value);
  }
  return null;
}

/** What happened to a document after it was written: accesses (access table) and ratings (ratings table). */
export interface DocCounters {
  accesses: number;
  lastAccessAt: string | null;
  useful: number;
  useless: number;
}

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/** A chunks row → MemoryRecord; counters = the stored base plus the document's accesses and ratings. */
export function rowToRecord(row: Row, counters?: DocCounters): MemoryRecord {
  return {
    id: str(row.id),
    docId: str(row.doc_id),
    space: str(row.space),
    scope: str(row.scope) as Scope,
    agentId: str(row.agent_id),
    key: str(row.key),
    name: str(row.name),
    content: str(row.content),
    bodyStart: num(row.body_start),
    chunkIndex: num(row.chunk_index),
    chunkCount: num(row.chunk_count),
    source: str(row.source) as Source,
    tags: listOf(row.tags).map(String),
    embedding: embeddingOf(row),
    embeddingModel: strOrNull(row.embedding_model),
    contentHash: str(row.content_hash),
    createdAt: str(row.created_at),
    updatedAt: str(row.updated_at),
    expiresAt: strOrNull(row.expires_at),
    accessCount: num(row.access_base) + (counters?.accesses ?? 0),
    lastAccessedAt: later(strOrNull(row.last_access_base), counters?.lastAccessAt ?? null),
    alpha: num(row.alpha_base) + (counters?.useful ?? 0),
    beta: num(row.beta_base) + (counters?.useless ?? 0),
    version: num(row.version),
    validFrom: strOrNull(row.valid_from),
    validTo: strOrNull(row.valid_to),
    invalidatedAt: strOrNull(row.invalidated_at),
    supersedes: strOrNull(row.supersedes),
    supersededBy: strOrNull(row.superseded_by),
    userId: strOrNull(row.user_id),
    claim: row.claim === null || row.claim === undefined ? null : (JSON.parse(String(row.claim)) as MemoryClaim),
  };
}

/** The base counters stored on a chunks row (see recordToRow). */
export function baseOf(row: Row) {
  return {
    accessCount: num(row.access_base),
    lastAccessedAt: strOrNull(row.last_access_base),
    alpha: num(row.alpha_base),
    beta: num(row.beta_base),
  };
}

/**
 * A MemoryRecord → a chunks row with every column of the table: the embedding goes to the column of its
 * dimension and every other vector column is set to null (so an update never leaves a stale vector behind).
 */
export function recordToRow(
  rec: MemoryRecord,
  vectorColumns: readonly string[],
  base: { accessCount: number; lastAccessedAt: string | null; alpha: number; beta: number; version: number },
): Row {
  const row: Row = {
    id: rec.id,
    doc_id: rec.docId,
    space: rec.space,
    scope: rec.scope,
    agent_id: rec.agentId,
    key: rec.key,
    name: rec.name,
    content: rec.content,
    body_start: rec.bodyStart,
    chunk_index: rec.chunkIndex,
    chunk_count: rec.chunkCount,
    source: rec.source,
    tags: [...rec.tags],
    embedding_model: rec.embeddingModel,
    content_hash: rec.contentHash,
    created_at: rec.createdAt,
    updated_at: rec.updatedAt,
    expires_at: rec.expiresAt,
    access_base: base.accessCount,
    last_access_base: base.lastAccessedAt,
    alpha_base: base.alpha,
    beta_base: base.beta,
    version: base.version,
    [FTS_COLUMN]: `${rec.name}\n${rec.content}`,
    // `?? null`: a record built before these fields existed is one written on purpose (open validity).
    valid_from: rec.validFrom ?? null,
    valid_to: rec.validTo ?? null,
    invalidated_at: rec.invalidatedAt ?? null,
    supersedes: rec.supersedes ?? null,
    superseded_by: rec.supersededBy ?? null,
    user_id: rec.userId ?? null,
    claim: rec.claim ? JSON.stringify(rec.claim) : null,
  };
  for (const column of vectorColumns) row[column] = null;
  if (rec.embedding !== null) row[vectorColumn(rec.embedding.length)] = rec.embedding;
  return row;
}

export function versionToRow(v: MemoryVersion, writtenMs: number): Row {
  return {
    space: v.space,
    doc_id: v.docId,
    version: v.version,
    old_content: v.oldContent,
    old_key: v.oldKey,
    intent: v.intent,
    agent_id: v.agentId,
    at: v.at,
    written_ms: writtenMs,
  };
}

export function rowToVersion(row: Row): MemoryVersion {
  return {
    docId: str(row.doc_id),
    space: str(row.space),
    version: num(row.version),
    oldContent: str(row.old_content),
    oldKey: str(row.old_key),
    intent: str(row.intent),
    agentId: str(row.agent_id),
    at: str(row.at),
  };
}

export function ratingToRow(r: Rating): Row {
  return {
    space: r.space,
    doc_id: r.docId,
    task_id: r.taskId,
    useful: r.useful,
    note: r.note,
    agent_id: r.agentId,
    at: r.at,
    counted: r.counted,
  };
}

/** A decision-log line → a row, stored under `space` (the space the formation writes to). */
export function entryToRow(space: string, e: FormationEntry): Row {
  return {
    id: e.id,
    space,
    memory_id: e.memoryId,
    decision: e.decision,
    previous_id: e.previousId,
    text: e.text,
    evidence: JSON.stringify(e.evidence),
    extractor: e.extractor,
    model: e.model,
    prompt_version: e.promptVersion,
    related: JSON.stringify(e.related),
    agent_id: e.agentId,
    user_id: e.userId,
    at: e.at,
  };
}

const idList = (value: unknown): string[] => (JSON.parse(String(value)) as unknown[]).map(String);

export function rowToEntry(row: Row): FormationEntry {
  return {
    id: str(row.id),
    space: str(row.space),
    memoryId: str(row.memory_id),
    decision: str(row.decision) as FormationDecisionName,
    previousId: strOrNull(row.previous_id),
    text: str(row.text),
    evidence: idList(row.evidence),
    extractor: str(row.extractor),
    model: strOrNull(row.model),
    promptVersion: str(row.prompt_version),
    related: idList(row.related),
    agentId: str(row.agent_id),
    userId: strOrNull(row.user_id),
    at: str(row.at),
  };
}
