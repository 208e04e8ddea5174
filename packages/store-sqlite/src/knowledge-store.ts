import type { MemoryVersion, Scope, Source } from '@mem/core';
import { MemError } from '@mem/core';
import {
  clampSimilarity,
  cosine,
  type EmbeddingInfo,
  type KeywordHit,
  type KeywordQuery,
  type KnowledgeStats,
  type KnowledgeStore,
  type KnowledgeStoreCapabilities,
  type MemoryRecord,
  type NeighbourQuery,
  parseTags,
  type Rating,
  type RatingOutcome,
  type ScanOptions,
  type SearchFilter,
  type VectorHit,
  type VectorQuery,
} from '@mem/core/adapter';
import type { Database, Statement } from 'better-sqlite3';
import { ADAPTER, loadVectorExtension, openDatabase, toStoreError, withBusyRetry } from './database.js';
import { type MigrationResult, runMigrations, schemaVersion } from './migrations.js';
import { ensureFilterIndex, FILTER_INDEX } from './search-indexes.js';
import {
  createVectorIndex,
  ensureVectorIndexSchema,
  resolveVectorIndexOptions,
  type VectorIndex,
  type VectorIndexOptions,
} from './vector-index.js';

export interface SqliteStoreOptions {
  /** Database file path (its folder is created when missing), or ':memory:'. */
  path: string;
  /** Wait for another connection's write lock this long before giving up (ms). Default 10000. */
  busyTimeoutMs?: number;
  /** Apply pending schema migrations on open. Default true; when false call `migrate()` yourself. */
  autoMigrate?: boolean;
  /**
   * Load sqlite-vec for the vector arm. Default true; false (or a failed load) uses a JavaScript cosine over
   * the same filtered rows, with the same results.
   */
  vectorExtension?: boolean;
  /** Page cache of the connection in KiB. Default 32768. */
  cacheSizeKiB?: number;
  /** Memory-mapped read window in bytes (0 = off). Default 1 GiB. */
  mmapSizeBytes?: number;
  /**
   * Search indexes. `vector`: the approximate vector index (an inverted file with int8 vectors and an exact
   * re-rank), trained once the file holds `minRows` vectors; `{ type: 'none' }` keeps the exact scan. It needs
   * sqlite-vec; without it search is exact. See the README for the options.
   */
  index?: { vector?: VectorIndexOptions };
}

export interface SqliteKnowledgeStore extends KnowledgeStore {
  /** Apply pending schema migrations (idempotent; safe when several processes open the file at once). */
  migrate(): Promise<MigrationResult>;
  /** The raw better-sqlite3 connection (shared by the other SQLite ports of the same file). */
  readonly db: Database;
  /** True when the vector arm runs inside SQLite (sqlite-vec); false when it falls back to JavaScript. */
  readonly nativeVector: boolean;
  /** True when the approximate vector index is trained and answers vector searches (false: exact scan). */
  vectorIndexTrained(): boolean;
}

/** Schema version the knowledge tables need. */
const KNOWLEDGE_SCHEMA = 1;

const META_MODEL = 'embedding.model';
const META_DIMENSION = 'embedding.dimension';

const COLUMNS = `c.id, c.doc_id, c.space, c.scope, c.agent_id, c.key, c.name, c.content, c.body_start, c.chunk_index, c.chunk_count,
  c.source, c.tags, c.embedding, c.embedding_model, c.content_hash, c.created_at, c.updated_at, c.expires_at,
  c.access_count, c.last_accessed_at, c.alpha, c.beta, c.version`;

interface ChunkRow {
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

function rowToRecord(row: ChunkRow): MemoryRecord {
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

/** Quote one term as an FTS5 string ("..." with inner quotes doubled): no FTS5 operator can leak in. */
export function ftsString(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** OR the terms as FTS5 strings; null when nothing is left to search for. */
export function buildMatchExpression(terms: readonly string[]): string | null {
  const seen = new Set<string>();
  for (const term of terms) {
    // NUL cannot appear inside an FTS5 string; it separates nothing a user typed.
    const clean = term.replaceAll('\u0000', ' ').trim();
    if (clean !== '') seen.add(clean);
  }
  if (seen.size === 0) return null;
  return [...seen].map(ftsString).join(' OR ');
}

/**
 * The WHERE clause every search arm shares (alias `c` for chunks), with its parameters appended to `params`.
 * Space, visibility, expiry, then the optional scope, key prefix, tags and source — all before any LIMIT.
 */
function filterClause(filter: SearchFilter, params: unknown[]): string {
  const parts = [
    'c.space = ?',
    "(c.scope = 'swarm' OR (c.scope = 'agent' AND c.agent_id = ?))",
    '(c.expires_at IS NULL OR c.expires_at > ?)',
  ];
  params.push(filter.space, filter.viewerAgentId, filter.now);
  if (filter.scope !== undefined) {
    parts.push('c.scope = ?');
    params.push(filter.scope);
  }
  if (filter.keyPrefix !== undefined && filter.keyPrefix !== '') {
    // Literal and case-sensitive: no LIKE wildcards, no case folding.
    parts.push('substr(c.key, 1, length(?)) = ?');
    params.push(filter.keyPrefix, filter.keyPrefix);
  }
  if (filter.tags !== undefined) {
    for (const tag of new Set(filter.tags)) {
      parts.push('EXISTS (SELECT 1 FROM chunk_tags t WHERE t.chunk_rid = c.rid AND t.tag = ?)');
      params.push(tag);
    }
  }
  if (filter.source !== undefined) {
    parts.push('c.source = ?');
    params.push(filter.source);
  }
  return parts.join(' AND ');
}

function constraintKind(error: unknown): 'key' | 'id' | 'rating' | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return null;
  const message = error instanceof Error ? error.message : '';
  if (message.includes('chunks.key')) return 'key';
  if (message.includes('chunks.id')) return 'id';
  if (message.includes('ratings.')) return 'rating';
  return null;
}

/**
 * A `KnowledgeStore` on one SQLite file (better-sqlite3): FTS5 for the keyword arm, sqlite-vec's exact cosine
 * for the vector arm (a JavaScript cosine over the same filtered rows when the extension cannot load).
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteKnowledgeStore {
  const { path } = options;
  const { busyTimeoutMs, cacheSizeKiB, mmapSizeBytes } = options;
  const db = openDatabase(path, { busyTimeoutMs, cacheSizeKiB, mmapSizeBytes });
  let nativeVector: boolean;
  let vectorOptions: ReturnType<typeof resolveVectorIndexOptions>;
  try {
    vectorOptions = resolveVectorIndexOptions(options.index?.vector);
  } catch (error) {
    db.close();
    throw new MemError('INVALID_INPUT', `${ADAPTER}: ${(error as Error).message}.`);
  }
  try {
    nativeVector = options.vectorExtension === false ? false : loadVectorExtension(db);
    if (options.autoMigrate ?? true) runMigrations(db);
  } catch (error) {
    db.close();
    throw toStoreError(error, `migrating ${path}`, path);
  }

  const statements = new Map<string, Statement>();
  let schemaChecked = false;
  let closed = false;
  let vectorIndex: VectorIndex | null = null;
  let filterIndex = false;

  function stmt(sql: string): Statement {
    let s = statements.get(sql);
    if (s === undefined) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  }

  function ready(): void {
    if (closed)
      throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${path} is closed; create a new one.`);
    if (schemaChecked) return;
    const version = schemaVersion(db);
    if (version < KNOWLEDGE_SCHEMA) {
      throw new MemError(
        'STORE_UNAVAILABLE',
        `${ADAPTER}: ${path} has schema version ${version}; the knowledge store needs version ${KNOWLEDGE_SCHEMA}. Call migrate() (or open it with autoMigrate: true).`,
      );
    }
    filterIndex = withBusyRetry(() => ensureFilterIndex(db));
    if (nativeVector && vectorOptions.type === 'ivf' && vectorIndex === null) {
      withBusyRetry(() => ensureVectorIndexSchema(db));
      vectorIndex = createVectorIndex(stmt, vectorOptions);
    }
    schemaChecked = true;
  }

  /** Run a read or a single-statement write; map driver errors. */
  function run<T>(what: string, fn: () => T): Promise<T> {
    try {
      ready();
      return Promise.resolve(withBusyRetry(fn));
    } catch (error) {
      return Promise.reject(toStoreError(error, what, path));
    }
  }

  /** Run `fn` in a BEGIN IMMEDIATE transaction (retried on SQLITE_BUSY); map driver errors. */
  function write<T>(what: string, fn: () => T, mapError?: (error: unknown) => MemError | null): Promise<T> {
    return run(what, () => {
      try {
        return db.transaction(fn).immediate();
      } catch (error) {
        const mapped = mapError?.(error);
        if (mapped) throw mapped;
        throw error;
      }
    });
  }

  // --- statements used on hot paths (prepared lazily once, then reused) ---

  const CHUNK_COLUMNS = `id, doc_id, space, scope, agent_id, key, name, content, body_start, chunk_index, chunk_count,
    source, tags, embedding, embedding_model, content_hash, created_at, updated_at, expires_at, access_count,
    last_accessed_at, alpha, beta, version`;
  // Positional parameters (in CHUNK_COLUMNS order): binding an array is cheaper than looking up 24 named ones per row.
  const INSERT_CHUNK = `INSERT INTO chunks (${CHUNK_COLUMNS}) VALUES (${Array(24).fill('?').join(', ')})`;
  const INSERT_TAG = 'INSERT OR IGNORE INTO chunk_tags (chunk_rid, tag) VALUES (?, ?)';
  const INSERT_VERSION = `INSERT INTO versions (space, doc_id, version, old_content, old_key, intent, agent_id, at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
  const DOC_VERSION = 'SELECT count(*) AS n, max(version) AS v FROM chunks WHERE space = ? AND doc_id = ?';

  function insertChunk(chunk: MemoryRecord, version?: number): void {
    const result = stmt(INSERT_CHUNK).run(
      chunk.id,
      chunk.docId,
      chunk.space,
      chunk.scope,
      chunk.agentId,
      chunk.key,
      chunk.name,
      chunk.content,
      chunk.bodyStart,
      chunk.chunkIndex,
      chunk.chunkCount,
      chunk.source,
      JSON.stringify(chunk.tags),
      chunk.embedding === null ? null : vectorToBlob(chunk.embedding),
      chunk.embeddingModel,
      chunk.contentHash,
      chunk.createdAt,
      chunk.updatedAt,
      chunk.expiresAt,
      chunk.accessCount,
      chunk.lastAccessedAt,
      chunk.alpha,
      chunk.beta,
      version ?? chunk.version,
    );
    if (chunk.tags.length > 0) {
      const insertTag = stmt(INSERT_TAG);
      for (const tag of new Set(chunk.tags)) insertTag.run(result.lastInsertRowid, tag);
    }
    vectorIndex?.placeInserted(result.lastInsertRowid, chunk.embedding);
  }

  function insertVersion(v: MemoryVersion): void {
    stmt(INSERT_VERSION).run(v.space, v.docId, v.version, v.oldContent, v.oldKey, v.intent, v.agentId, v.at);
  }

  /** Inside a transaction: the document's stored version, after checking it exists and matches. */
  function checkVersion(space: string, docId: string, expectedVersion: number): number {
    const row = stmt(DOC_VERSION).get(space, docId) as { n: number; v: number | null };
    if (row.n === 0 || row.v === null) {
      throw new MemError('NOT_FOUND', `${ADAPTER}: no memory ${docId} in space ${space}.`, {
        details: { space, docId },
      });
    }
    if (row.v !== expectedVersion) {
      throw new MemError(
        'CONFLICT',
        `Memory ${docId} changed since it was read (stored version ${row.v}, expected ${expectedVersion}). Read it again and retry the edit.`,
        { retryable: true, details: { docId, storedVersion: row.v, expectedVersion } },
      );
    }
    return row.v;
  }

  function keyTaken(space: string, scope: Scope, agentId: string, key: string, cause: unknown): MemError {
    let holder: string | null = null;
    try {
      const row = stmt(
        'SELECT doc_id FROM chunks WHERE space = ? AND scope = ? AND agent_id = ? AND key = ? ORDER BY chunk_index LIMIT 1',
      ).get(space, scope, agentId, key) as { doc_id: string } | undefined;
      holder = row?.doc_id ?? null;
    } catch {
      holder = null;
    }
    return new MemError(
      'KEY_TAKEN',
      `Key ${key} is already taken by another memory${holder ? ` (${holder})` : ''} of ${agentId} at ${scope} scope. Use memory-edit to change that memory, or choose another key.`,
      { cause, details: { key, scope, agentId, ...(holder ? { docId: holder } : {}) } },
    );
  }

  function duplicateId(cause: unknown): MemError {
    return new MemError('CONFLICT', `${ADAPTER}: a memory chunk with the same id already exists in this space.`, {
      cause,
    });
  }

  function deleteDocRows(space: string, docId: string): number {
    stmt('DELETE FROM versions WHERE space = ? AND doc_id = ?').run(space, docId);
    stmt('DELETE FROM ratings WHERE space = ? AND doc_id = ?').run(space, docId);
    return stmt('DELETE FROM chunks WHERE space = ? AND doc_id = ?').run(space, docId).changes;
  }

  function writeEmbeddingInfo(info: EmbeddingInfo): void {
    const put = stmt(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    put.run(META_MODEL, info.model);
    put.run(META_DIMENSION, String(info.dimension));
  }

  function indexTrained(): boolean {
    try {
      ready();
    } catch {
      return false;
    }
    return vectorIndex?.trained() ?? false;
  }

  const capabilities: KnowledgeStoreCapabilities = {
    keyword: true,
    vector: true,
    // FTS5's bm25(): k1 = 1.2, b = 0.75.
    keywordLengthNorm: { kind: 'bm25', k1: 1.2, b: 0.75 },
    /** Exact until the approximate vector index is trained (then its recall is measured, not guaranteed). */
    get exactVector() {
      return !indexTrained();
    },
  };

  const store: SqliteKnowledgeStore = {
    name: ADAPTER,
    capabilities,

    get db() {
      return db;
    },

    get nativeVector() {
      return nativeVector;
    },

    vectorIndexTrained() {
      return indexTrained();
    },

    migrate() {
      try {
        if (closed)
          throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${path} is closed; create a new one.`);
        const result = runMigrations(db);
        schemaChecked = false;
        return Promise.resolve(result);
      } catch (error) {
        return Promise.reject(toStoreError(error, `migrating ${path}`, path));
      }
    },

    insertDocument(chunks) {
      return store.insertDocuments([chunks]);
    },

    insertDocuments(docs) {
      const batch = docs.filter((chunks) => chunks.length > 0);
      if (batch.length === 0) return run('insertDocuments', () => undefined);
      // The document being written when a constraint fails (the transaction rolls back as a whole).
      let current: MemoryRecord | undefined;
      return write(
        'insertDocuments',
        () => {
          vectorIndex?.refresh();
          for (const chunks of batch) {
            current = chunks[0];
            for (const chunk of chunks) insertChunk(chunk);
          }
          vectorIndex?.flush();
          vectorIndex?.maintain();
        },
        (error) => {
          const kind = constraintKind(error);
          if (kind === 'key' && current) {
            return keyTaken(current.space, current.scope, current.agentId, current.key, error);
          }
          if (kind === 'id') return duplicateId(error);
          return null;
        },
      );
    },

    replaceDocument(space, docId, chunks, version, expectedVersion) {
      return write(
        'replaceDocument',
        () => {
          const stored = checkVersion(space, docId, expectedVersion);
          // Ratings and reads do not change the version: keep the counters as stored now, not as the editor read
          // them, or a rating given while the edit was under way would be lost.
          const counters = stmt(
            `SELECT access_count AS accessCount, last_accessed_at AS lastAccessedAt, alpha, beta FROM chunks
             WHERE space = ? AND doc_id = ? ORDER BY chunk_index LIMIT 1`,
          ).get(space, docId) as Pick<MemoryRecord, 'accessCount' | 'lastAccessedAt' | 'alpha' | 'beta'>;
          vectorIndex?.refresh();
          stmt('DELETE FROM chunks WHERE space = ? AND doc_id = ?').run(space, docId);
          for (const chunk of chunks) insertChunk({ ...chunk, ...counters }, stored + 1);
          vectorIndex?.flush();
          insertVersion(version);
        },
        (error) => {
          const kind = constraintKind(error);
          const first = chunks[0];
          if (kind === 'key' && first) return keyTaken(first.space, first.scope, first.agentId, first.key, error);
          if (kind === 'id') return duplicateId(error);
          return null;
        },
      );
    },

    moveDocument(space, docId, change, version, expectedVersion) {
      let owner: { scope: Scope; agent_id: string } | undefined;
      return write(
        'moveDocument',
        () => {
          checkVersion(space, docId, expectedVersion);
          owner = stmt('SELECT scope, agent_id FROM chunks WHERE space = ? AND doc_id = ? LIMIT 1').get(space, docId) as
            | { scope: Scope; agent_id: string }
            | undefined;
          const setExpiry = change.expiresAt !== undefined;
          stmt(
            `UPDATE chunks SET key = ?, updated_at = ?, version = version + 1,
               expires_at = CASE WHEN ? THEN ? ELSE expires_at END
             WHERE space = ? AND doc_id = ?`,
          ).run(change.newKey, change.updatedAt, setExpiry ? 1 : 0, setExpiry ? change.expiresAt : null, space, docId);
          insertVersion(version);
        },
        (error) => {
          if (constraintKind(error) === 'key' && owner)
            return keyTaken(space, owner.scope, owner.agent_id, change.newKey, error);
          return null;
        },
      );
    },

    deleteDocument(space, docId) {
      return write('deleteDocument', () => deleteDocRows(space, docId));
    },

    deleteByAgent(space, agentId) {
      return write('deleteByAgent', () => {
        // Tags (ON DELETE CASCADE) and FTS rows (trigger) go with their chunks; embeddings live in the chunk row.
        const owned = 'SELECT doc_id FROM chunks WHERE space = ? AND agent_id = ?';
        const docs = stmt(`SELECT count(DISTINCT doc_id) AS n FROM chunks WHERE space = ? AND agent_id = ?`).get(
          space,
          agentId,
        ) as { n: number };
        const versions = stmt(`DELETE FROM versions WHERE space = ? AND doc_id IN (${owned})`).run(
          space,
          space,
          agentId,
        ).changes;
        const ratings = stmt(`DELETE FROM ratings WHERE space = ? AND doc_id IN (${owned})`).run(
          space,
          space,
          agentId,
        ).changes;
        const chunks = stmt('DELETE FROM chunks WHERE space = ? AND agent_id = ?').run(space, agentId).changes;
        return { documents: Number(docs.n), chunks, versions, ratings };
      });
    },

    getChunk(space, id) {
      return run('getChunk', () => {
        const row = stmt(`SELECT ${COLUMNS} FROM chunks c WHERE c.id = ? AND c.space = ?`).get(id, space) as
          | ChunkRow
          | undefined;
        return row === undefined ? null : rowToRecord(row);
      });
    },

    getDocument(space, docId) {
      return run('getDocument', () => {
        const rows = stmt(
          `SELECT ${COLUMNS} FROM chunks c WHERE c.space = ? AND c.doc_id = ? ORDER BY c.chunk_index`,
        ).all(space, docId) as ChunkRow[];
        return rows.map(rowToRecord);
      });
    },

    getChunks(space, ids) {
      if (ids.length === 0) return run('getChunks', () => []);
      return run('getChunks', () => {
        const unique = [...new Set(ids)];
        const rows = stmt(
          // json_each drives the join: one (id, space) index lookup per id. `c.id IN (SELECT … json_each)` let the
          // planner walk every chunk of the space instead (it grew with the space: 3.5 ms at 100,000 memories).
          `SELECT ${COLUMNS} FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value WHERE c.space = ?`,
        ).all(JSON.stringify(unique), space) as ChunkRow[];
        const byId = new Map(rows.map((row) => [row.id, row]));
        const out: MemoryRecord[] = [];
        for (const id of unique) {
          const row = byId.get(id);
          if (row) out.push(rowToRecord(row));
        }
        return out;
      });
    },

    findDocIdByKey(space, scope, agentId, key) {
      return run('findDocIdByKey', () => {
        const row = stmt(
          'SELECT doc_id FROM chunks WHERE space = ? AND scope = ? AND agent_id = ? AND key = ? ORDER BY chunk_index LIMIT 1',
        ).get(space, scope, agentId, key) as { doc_id: string } | undefined;
        return row?.doc_id ?? null;
      });
    },

    findDocIdByHash(space, scope, agentId, contentHash) {
      return run('findDocIdByHash', () => {
        const row = stmt(
          `SELECT doc_id FROM chunks WHERE space = ? AND scope = ? AND agent_id = ? AND content_hash = ?
           ORDER BY created_at, rid LIMIT 1`,
        ).get(space, scope, agentId, contentHash) as { doc_id: string } | undefined;
        return row?.doc_id ?? null;
      });
    },

    findDocIdsByHashes(space, lookups) {
      return run('findDocIdsByHashes', () => {
        if (lookups.length === 0) return [];
        // One statement for the batch; each lookup is exactly findDocIdByHash's (same index, same order).
        const rows = stmt(
          `SELECT CAST(j.key AS INTEGER) AS i,
             (SELECT c.doc_id FROM chunks c
              WHERE c.space = ? AND c.scope = json_extract(j.value, '$.scope')
                AND c.agent_id = json_extract(j.value, '$.agentId')
                AND c.content_hash = json_extract(j.value, '$.contentHash')
              ORDER BY c.created_at, c.rid LIMIT 1) AS doc_id
           FROM json_each(?) j`,
        ).all(
          space,
          JSON.stringify(lookups.map((l) => ({ scope: l.scope, agentId: l.agentId, contentHash: l.contentHash }))),
        ) as { i: number; doc_id: string | null }[];
        const out: (string | null)[] = lookups.map(() => null);
        for (const row of rows) out[row.i] = row.doc_id ?? null;
        return out;
      });
    },

    keywordSearch(query: KeywordQuery): Promise<KeywordHit[]> {
      return run('keywordSearch', () => {
        const match = buildMatchExpression(query.terms);
        const limit = Math.floor(query.limit);
        if (match === null || !(limit > 0)) return [];
        const params: unknown[] = [match];
        const where = filterClause(query.filter, params);
        params.push(limit);
        const rows = stmt(
          `SELECT c.id AS id, bm25(chunks_fts) AS bm
           FROM chunks_fts CROSS JOIN chunks c ${filterIndex ? `INDEXED BY ${FILTER_INDEX}` : ''} ON c.rid = chunks_fts.rowid
           WHERE chunks_fts MATCH ? AND ${where}
           ORDER BY bm, c.rid LIMIT ?`,
        ).all(...params) as { id: string; bm: number }[];
        // CROSS JOIN keeps the FTS index as the outer loop (otherwise the planner may walk every chunk of the
        // space and run one full-text lookup per row). The filter index covers the join (see search-indexes.ts).
        // bm25() is lower-is-better; the port wants higher-is-better.
        return rows.map((row) => ({ id: row.id, score: -row.bm }));
      });
    },

    vectorSearch(query: VectorQuery): Promise<VectorHit[]> {
      return run('vectorSearch', () => {
        const limit = Math.floor(query.limit);
        const dims = query.vector.length;
        if (dims === 0 || !(limit > 0)) return [];
        const blob = vectorToBlob(query.vector);
        if (vectorIndex) {
          const hits = vectorIndex.search(query.vector, limit, query.filter, filterClause);
          if (hits !== null) return hits.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - row.d) }));
        }
        if (nativeVector) {
          const params: unknown[] = [blob];
          const where = filterClause(query.filter, params);
          params.push(blob.byteLength, limit);
          // A zero vector has no direction: sqlite-vec gives NULL, scored as similarity 0 (distance 1).
          const rows = stmt(
            `SELECT c.id AS id, coalesce(vec_distance_cosine(c.embedding, ?), 1.0) AS d
             FROM chunks c
             WHERE ${where} AND c.embedding IS NOT NULL AND length(c.embedding) = ?
             ORDER BY d, c.rid LIMIT ?`,
          ).all(...params) as { id: string; d: number }[];
          return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - row.d) }));
        }
        const params: unknown[] = [];
        const where = filterClause(query.filter, params);
        params.push(blob.byteLength);
        const rows = stmt(
          `SELECT c.id AS id, c.embedding AS embedding
           FROM chunks c
           WHERE ${where} AND c.embedding IS NOT NULL AND length(c.embedding) = ?
           ORDER BY c.rid`,
        ).all(...params) as { id: string; embedding: Buffer }[];
        const scored = rows.map((row) => ({
          id: row.id,
          similarity: clampSimilarity(cosine(query.vector, blobToVector(row.embedding))),
        }));
        // Stable sort keeps rid order among ties, as the SQL path does.
        scored.sort((a, b) => b.similarity - a.similarity);
        return scored.slice(0, limit);
      });
    },

    neighbours(query: NeighbourQuery): Promise<MemoryRecord[]> {
      return run('neighbours', () => {
        const radius = Math.floor(query.radius);
        const out = new Map<string, MemoryRecord>();
        if (!(radius > 0)) return [];
        for (const id of new Set(query.ids)) {
          const params: unknown[] = [id];
          const where = filterClause(query.filter, params);
          const at = stmt(
            `SELECT c.created_at AS created_at, c.scope AS scope, c.agent_id AS agent_id FROM chunks c WHERE c.id = ? AND ${where}`,
          ).get(...params) as { created_at: string; scope: string; agent_id: string } | undefined;
          if (!at) continue;
          // The (space, created_at, id) index walked from the memory outwards, one direction per query.
          for (const [cmp, order] of [
            ['<', 'DESC'],
            ['>', 'ASC'],
          ] as const) {
            const side: unknown[] = [];
            const sideWhere = filterClause(query.filter, side);
            side.push(at.scope, at.agent_id, at.created_at, id, radius);
            const rows = stmt(
              `SELECT ${COLUMNS} FROM chunks c
               WHERE ${sideWhere} AND c.scope = ? AND c.agent_id = ? AND (c.created_at, c.id) ${cmp} (?, ?)
               ORDER BY c.created_at ${order}, c.id ${order} LIMIT ?`,
            ).all(...side) as ChunkRow[];
            for (const row of rows) out.set(row.id, rowToRecord(row));
          }
        }
        return [...out.values()];
      });
    },

    recordAccess(space, docId, at) {
      return write('recordAccess', () => {
        stmt(
          'UPDATE chunks SET access_count = access_count + 1, last_accessed_at = ? WHERE space = ? AND doc_id = ?',
        ).run(at, space, docId);
      });
    },

    addRating(rating: Rating): Promise<RatingOutcome> {
      return write(
        'addRating',
        () => {
          const exists = stmt('SELECT 1 FROM chunks WHERE space = ? AND doc_id = ? LIMIT 1').get(
            rating.space,
            rating.docId,
          );
          if (!exists) {
            throw new MemError('NOT_FOUND', `${ADAPTER}: no memory ${rating.docId} in space ${rating.space} to rate.`, {
              details: { space: rating.space, docId: rating.docId },
            });
          }
          // Insert first: a repeat in the same task fails here (ALREADY_RATED) before any counter moves.
          stmt(
            'INSERT INTO ratings (space, doc_id, task_id, useful, note, agent_id, at, counted) VALUES (?, ?, ?, ?, ?, ?, ?, 0)',
          ).run(
            rating.space,
            rating.docId,
            rating.taskId,
            rating.useful ? 1 : 0,
            rating.note,
            rating.agentId,
            rating.at,
          );
          if (!rating.counted) return { replaced: 0 };
          // Take back the rater's earlier counted votes on this memory, then count this one.
          const earlier = stmt(
            'SELECT coalesce(sum(useful), 0) AS up, count(*) AS n FROM ratings WHERE space = ? AND doc_id = ? AND agent_id = ? AND counted = 1',
          ).get(rating.space, rating.docId, rating.agentId) as { up: number; n: number };
          stmt('UPDATE ratings SET counted = 0 WHERE space = ? AND doc_id = ? AND agent_id = ? AND counted = 1').run(
            rating.space,
            rating.docId,
            rating.agentId,
          );
          stmt('UPDATE ratings SET counted = 1 WHERE space = ? AND doc_id = ? AND task_id = ?').run(
            rating.space,
            rating.docId,
            rating.taskId,
          );
          const dAlpha = (rating.useful ? 1 : 0) - Number(earlier.up);
          const dBeta = (rating.useful ? 0 : 1) - (Number(earlier.n) - Number(earlier.up));
          stmt('UPDATE chunks SET alpha = alpha + ?, beta = beta + ? WHERE space = ? AND doc_id = ?').run(
            dAlpha,
            dBeta,
            rating.space,
            rating.docId,
          );
          return { replaced: Number(earlier.n) };
        },
        (error) =>
          constraintKind(error) === 'rating'
            ? new MemError(
                'ALREADY_RATED',
                `Memory ${rating.docId} was already rated in task ${rating.taskId}; a memory counts once per task.`,
                { cause: error, details: { docId: rating.docId, taskId: rating.taskId } },
              )
            : null,
      );
    },

    listVersions(space, docId) {
      return run('listVersions', () => {
        const rows = stmt(
          `SELECT doc_id, space, version, old_content, old_key, intent, agent_id, at FROM versions
           WHERE space = ? AND doc_id = ? ORDER BY version, vid`,
        ).all(space, docId) as {
          doc_id: string;
          space: string;
          version: number;
          old_content: string;
          old_key: string;
          intent: string;
          agent_id: string;
          at: string;
        }[];
        return rows.map(
          (row): MemoryVersion => ({
            docId: row.doc_id,
            space: row.space,
            version: row.version,
            oldContent: row.old_content,
            oldKey: row.old_key,
            intent: row.intent,
            agentId: row.agent_id,
            at: row.at,
          }),
        );
      });
    },

    deleteExpired(now, space) {
      return write('deleteExpired', () => {
        const expired =
          space === undefined
            ? 'SELECT space, doc_id FROM chunks WHERE expires_at IS NOT NULL AND expires_at <= ?'
            : 'SELECT space, doc_id FROM chunks WHERE expires_at IS NOT NULL AND expires_at <= ? AND space = ?';
        const params = space === undefined ? [now] : [now, space];
        stmt(`DELETE FROM versions WHERE (space, doc_id) IN (${expired})`).run(...params);
        stmt(`DELETE FROM ratings WHERE (space, doc_id) IN (${expired})`).run(...params);
        return stmt(`DELETE FROM chunks WHERE (space, doc_id) IN (${expired})`).run(...params).changes;
      });
    },

    scan(options: ScanOptions) {
      return run('scan', () => {
        const limit = Math.floor(options.limit);
        if (!(limit > 0)) return [];
        const where: string[] = [];
        const params: unknown[] = [];
        if (options.space !== undefined) {
          where.push('c.space = ?');
          params.push(options.space);
        }
        if (options.after !== undefined) {
          where.push('(c.created_at, c.id) > (?, ?)');
          params.push(options.after.createdAt, options.after.id);
        }
        params.push(limit);
        const rows = stmt(
          `SELECT ${COLUMNS} FROM chunks c ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY c.created_at, c.id LIMIT ?`,
        ).all(...params) as ChunkRow[];
        return rows.map(rowToRecord);
      });
    },

    updateEmbeddings(updates, info) {
      return write('updateEmbeddings', () => {
        const update = stmt('UPDATE chunks SET embedding = ?, embedding_model = ? WHERE id = ?');
        for (const u of updates) update.run(vectorToBlob(u.embedding), info.model, u.id);
        writeEmbeddingInfo(info);
        if (vectorIndex) {
          vectorIndex.embeddingsChanged(info.dimension);
          vectorIndex.maintain();
        }
      });
    },

    /** Documents and chunks of a space; `bySource` / `byScope` count documents. */
    stats(space): Promise<KnowledgeStats> {
      return run('stats', () => {
        const totals = stmt(
          'SELECT count(DISTINCT doc_id) AS documents, count(*) AS chunks FROM chunks WHERE space = ?',
        ).get(space) as { documents: number; chunks: number };
        const bySource: Record<string, number> = {};
        for (const row of stmt(
          'SELECT source AS k, count(DISTINCT doc_id) AS n FROM chunks WHERE space = ? GROUP BY source',
        ).all(space) as {
          k: string;
          n: number;
        }[])
          bySource[row.k] = row.n;
        const byScope: Record<string, number> = {};
        for (const row of stmt(
          'SELECT scope AS k, count(DISTINCT doc_id) AS n FROM chunks WHERE space = ? GROUP BY scope',
        ).all(space) as {
          k: string;
          n: number;
        }[])
          byScope[row.k] = row.n;
        return { documents: totals.documents, chunks: totals.chunks, bySource, byScope };
      });
    },

    getEmbeddingInfo() {
      return run('getEmbeddingInfo', () => {
        const rows = stmt('SELECT key, value FROM meta WHERE key IN (?, ?)').all(META_MODEL, META_DIMENSION) as {
          key: string;
          value: string;
        }[];
        const model = rows.find((r) => r.key === META_MODEL)?.value;
        const dimension = Number(rows.find((r) => r.key === META_DIMENSION)?.value);
        if (model === undefined || !Number.isFinite(dimension)) return null;
        return { model, dimension };
      });
    },

    setEmbeddingInfo(info) {
      return write('setEmbeddingInfo', () => writeEmbeddingInfo(info));
    },

    close() {
      if (!closed) {
        closed = true;
        statements.clear();
        try {
          db.close();
        } catch (error) {
          return Promise.reject(toStoreError(error, 'close', path));
        }
      }
      return Promise.resolve();
    },
  };
  return store;
}
