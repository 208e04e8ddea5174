import type { Scope, Source } from '@mem/core';
import { type MemoryRecord, parseTags } from '@mem/core/adapter';

// The chunk rows of the knowledge tables and their conversions (shared by every role of the store).

export const COLUMNS = `c.id, c.doc_id, c.space, c.scope, c.agent_id, c.key, c.name, c.content, c.body_start, c.chunk_index, c.chunk_count,
  c.source, c.tags, c.embedding, c.embedding_model, c.content_hash, c.created_at, c.updated_at, c.expires_at,
  c.access_count, c.last_accessed_at, c.alpha, c.beta, c.version`;

export interface ChunkRow {
  id: string;
  doc_id: string;
  space: string;
  scope: string;
  agent_id: string;
  key: string;
  name: string;
  content: string;
  body_start: number;
  chunk_index: number;
  chunk_count: number;
  source: string;
  tags: string;
  embedding: Buffer | null;
  embedding_model: string | null;
  content_hash: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  access_count: number;
  last_accessed_at: string | null;
  alpha: number;
  beta: number;
  version: number;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Float32Array → BLOB of little-endian float32 (what sqlite-vec reads). */
export function vectorToBlob(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const out = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i] ?? 0, i * 4);
  return out;
}

/** BLOB of little-endian float32 → a fresh Float32Array (never aliasing the driver's buffer). */
export function blobToVector(blob: Buffer): Float32Array {
  const n = Math.floor(blob.byteLength / 4);
  if (LITTLE_ENDIAN) return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + n * 4));
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = blob.readFloatLE(i * 4);
  return out;
}

export function rowToRecord(row: ChunkRow): MemoryRecord {
  return {
    id: row.id,
    docId: row.doc_id,
    space: row.space,
    scope: row.scope as Scope,
    agentId: row.agent_id,
    key: row.key,
    name: row.name,
    content: row.content,
    bodyStart: row.body_start,
    chunkIndex: row.chunk_index,
    chunkCount: row.chunk_count,
    source: row.source as Source,
    tags: parseTags(row.tags),
    embedding: row.embedding === null ? null : blobToVector(row.embedding),
    embeddingModel: row.embedding_model,
    contentHash: row.content_hash,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    accessCount: row.access_count,
    lastAccessedAt: row.last_accessed_at,
    alpha: row.alpha,
    beta: row.beta,
    version: row.version,
  };
}
