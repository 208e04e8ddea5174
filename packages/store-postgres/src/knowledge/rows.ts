import type { Scope, Source } from '@mem/core';
import { type MemoryRecord, parseTags } from '@mem/core/adapter';
import { iso } from '../queries.js';
import { parseVector } from '../vectors.js';

// The chunk rows of the knowledge tables as they are read back (shared by every role of the store).

// Aliases have no underscores, so a shared client's column-name transform (e.g. postgres.camel) changes nothing.
export const COLUMNS = `c.id AS id, c.doc_id AS docid, c.space AS space, c.scope AS scope, c.agent_id AS agentid, c.key AS key,
  c.name AS name, c.content AS content, c.body_start AS bodystart, c.chunk_index AS chunkindex,
  c.chunk_count AS chunkcount, c.source AS source, array_to_json(c.tags)::text AS tags,
  c.embedding::text AS embedding, c.embedding_model AS embeddingmodel, c.content_hash AS contenthash,
  ${iso('c.created_at')} AS createdat, ${iso('c.updated_at')} AS updatedat, ${iso('c.expires_at')} AS expiresat,
  c.access_count AS accesscount, ${iso('c.last_accessed_at')} AS lastaccessedat, c.alpha AS alpha, c.beta AS beta,
  c.version AS version`;

export interface ChunkRow {
  id: string;
  docid: string;
  space: string;
  scope: string;
  agentid: string;
  key: string;
  name: string;
  content: string;
  bodystart: number;
  chunkindex: number;
  chunkcount: number;
  source: string;
  tags: string;
  embedding: string | null;
  embeddingmodel: string | null;
  contenthash: string;
  createdat: string;
  updatedat: string;
  expiresat: string | null;
  accesscount: number;
  lastaccessedat: string | null;
  alpha: number;
  beta: number;
  version: number;
}

export function rowToRecord(row: ChunkRow): MemoryRecord {
  return {
    id: row.id,
    docId: row.docid,
    space: row.space,
    scope: row.scope as Scope,
    agentId: row.agentid,
    key: row.key,
    name: row.name,
    content: row.content,
    bodyStart: Number(row.bodystart),
    chunkIndex: Number(row.chunkindex),
    chunkCount: Number(row.chunkcount),
    source: row.source as Source,
    tags: parseTags(row.tags),
    embedding: row.embedding === null ? null : parseVector(row.embedding),
    embeddingModel: row.embeddingmodel,
    contentHash: row.contenthash,
    createdAt: row.createdat,
    updatedAt: row.updatedat,
    expiresAt: row.expiresat,
    accessCount: Number(row.accesscount),
    lastAccessedAt: row.lastaccessedat,
    alpha: Number(row.alpha),
    beta: Number(row.beta),
    version: Number(row.version),
  };
}
