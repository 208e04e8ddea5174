import { type MemoryRecord, SQL_RECORDS, type SqlRow, selectList } from '@mem/core/adapter';
import { sqliteDialect } from '../sql-layer.js';

// The chunk rows of the knowledge tables and their conversions (shared by every role of the store): the shared
// record of @mem/core/adapter, the vector stored as a BLOB.

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

const CHUNK = SQL_RECORDS.chunk((embedding) => blobToVector(embedding as Buffer));

export const COLUMNS = `${selectList(sqliteDialect, CHUNK.fields, 'c')}, c.embedding AS embedding`;

export type ChunkRow = SqlRow & { id: string };

export const rowToRecord: (row: ChunkRow) => MemoryRecord = CHUNK.from;
