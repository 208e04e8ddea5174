import { type MemoryRecord, SQL_RECORDS, type SqlRow, selectList } from '@mem/core/adapter';
import { postgresRead } from '../sql-layer.js';
import { parseVector } from '../vectors.js';

// The chunk rows of the knowledge tables as they are read back (shared by every role of the store): the shared
// record of @mem/core/adapter, the vector sent as pgvector's text.

const CHUNK = SQL_RECORDS.chunk((embedding) => parseVector(embedding as string));

// Aliases have no underscores, so a shared client's column-name transform (e.g. postgres.camel) changes nothing.
export const COLUMNS = `${selectList({ read: postgresRead }, CHUNK.fields, 'c')}, c.embedding::text AS embedding`;

export type ChunkRow = SqlRow & { id: string };

export const rowToRecord: (row: ChunkRow) => MemoryRecord = CHUNK.from;
