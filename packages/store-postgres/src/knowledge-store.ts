import type { MemoryVersion, Scope, Source } from '@mem/core';
import { MemError } from '@mem/core';
import {
  clampSimilarity,
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
  type VectorHit,
  type VectorQuery,
} from '@mem/core/adapter';
import {
  ADAPTER,
  type ClientOptions,
  constraintOf,
  createClient,
  describeTarget,
  exec,
  Params,
  quoteIdent,
  quoteSchema,
  type Sql,
  sqlState,
  type TransactionSql,
  toStoreError,
} from './connection.js';
import {
  appliedMigrations,
  knowledgeMigrations,
  MIGRATION_LOCK,
  type MigrationResult,
  runMigrations,
} from './migrations.js';
import {
  hnswSettings,
  iso,
  keywordQuery,
  neighbourQuery,
  type QueryContext,
  termsText,
  vectorQuery,
} from './queries.js';
import { MAX_HNSW_DIMENSIONS, parseVector, vectorLiteral } from './vectors.js';

export interface HnswOptions {
  /** Links per node of the HNSW graph (pgvector `m`). Default 16. Used when an index is created. */
  m?: number;
  /** Candidate list size while building (pgvector `ef_construction`). Default 64. Used when an index is created. */
  efConstruction?: number;
  /**
   * Candidate list size while searching (`hnsw.ef_search`, set per query). Default 100 (pgvector: 40), raised per query to
   * twice the requested limit (at most 1,000).
   */
  efSearch?: number;
}

export interface PostgresStoreOptions extends ClientOptions {
  /** Connection URL, `postgres://user:password@host:5432/database`. Give this or `sql`. */
  url?: string;
  /** An existing postgres.js client to share (it stays open when the store closes). Give this or `url`. */
  sql?: Sql;
  /** Schema that holds mem's tables (created when missing). Default `mem`. */
  schema?: string;
  /** Apply pending schema migrations on open. Default true; when false call `migrate()` yourself. */
  autoMigrate?: boolean;
  /** HNSW index and search parameters of the vector arm. */
  hnsw?: HnswOptions;
}

export interface PostgresKnowledgeStore extends KnowledgeStore {
  /** Apply pending migrations of the knowledge port (idempotent; safe when several processes start at once). */
  migrate(): Promise<MigrationResult>;
  /** The postgres.js client (share it with the other PostgreSQL ports of the same database). */
  readonly sql: Sql;
  /** The schema holding the tables (unquoted). */
  readonly schema: string;
  /** Closes the client only when the store created it from `url`. */
  close(): Promise<void>;
}

/** Schema version the knowledge tables need. */
const KNOWLEDGE_SCHEMA = 1;

const META_MODEL = 'embedding.model';
const META_DIMENSION = 'embedding.dimension';
const INDEX_PREFIX = 'chunks_embedding_hnsw_';

// Aliases have no underscores, so a shared client's column-name transform (e.g. postgres.camel) changes nothing.
const COLUMNS = `c.id AS id, c.doc_id AS docid, c.space AS space, c.scope AS scope, c.agent_id AS agentid, c.key AS key,
  c.name AS name, c.content AS content, c.body_start AS bodystart, c.chunk_index AS chunkindex,
  c.chunk_count AS chunkcount, c.source AS source, array_to_json(c.tags)::text AS tags,
  c.embedding::text AS embedding, c.embedding_model AS embeddingmodel, c.content_hash AS contenthash,
  ${iso('c.created_at')} AS createdat, ${iso('c.updated_at')} AS updatedat, ${iso('c.expires_at')} AS expiresat,
  c.access_count AS accesscount, ${iso('c.last_accessed_at')} AS lastaccessedat, c.alpha AS alpha, c.beta AS beta,
  c.version AS version`;

interface ChunkRow {
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

function rowToRecord(row: ChunkRow): MemoryRecord {
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

/** The JSON shape one chunk travels in (`jsonb_to_recordset`): one parameter for any number of chunks. */
function chunkJson(chunk: MemoryRecord, version?: number): Record<string, unknown> {
  return {
    id: chunk.id,
    doc_id: chunk.docId,
    space: chunk.space,
    scope: chunk.scope,
    agent_id: chunk.agentId,
    key: chunk.key,
    name: chunk.name,
    content: chunk.content,
    body_start: chunk.bodyStart,
    chunk_index: chunk.chunkIndex,
    chunk_count: chunk.chunkCount,
    source: chunk.source,
    tags: [...new Set(chunk.tags)],
    embedding: chunk.embedding === null ? null : vectorLiteral(chunk.embedding),
    embedding_model: chunk.embeddingModel,
    content_hash: chunk.contentHash,
    created_at: chunk.createdAt,
    updated_at: chunk.updatedAt,
    expires_at: chunk.expiresAt,
    access_count: chunk.accessCount,
    last_accessed_at: chunk.lastAccessedAt,
    alpha: chunk.alpha,
    beta: chunk.beta,
    version: version ?? chunk.version,
  };
}

/** Most chunks per INSERT statement of a batch (several statements run in one transaction). */
const INSERT_BATCH = 1000;

const RECORDSET = `r(id text, doc_id text, space text, scope text, agent_id text, key text, name text, content text,
  body_start integer, chunk_index integer, chunk_count integer, source text, tags text[], embedding text,
  embedding_model text, content_hash text, created_at timestamptz, updated_at timestamptz, expires_at timestamptz,
  access_count integer, last_accessed_at timestamptz, alpha double precision, beta double precision, version integer)`;

function versionAtLeast(version: string | null | undefined, major: number, minor: number): boolean {
  if (!version) return false;
  const [a, b] = version.split('.').map((x) => Number.parseInt(x, 10));
  if (a === undefined || Number.isNaN(a)) return false;
  return a > major || (a === major && (b ?? 0) >= minor);
}

function positiveInteger(name: string, value: number | undefined, fallback: number, max: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1 || v > max) {
    throw new MemError('INVALID_INPUT', `${ADAPTER}: ${name} must be an integer from 1 to ${max} (got ${value}).`);
  }
  return v;
}

/**
 * A `KnowledgeStore` on PostgreSQL through postgres.js: a generated `tsvector` (english) with a GIN index for the
 * keyword arm, pgvector with an HNSW cosine index per embedding dimension for the vector arm.
 * Connects (and, unless `autoMigrate: false`, migrates) before it resolves, so a wrong URL, a server that is down
 * or a missing pgvector extension fail here with `STORE_UNAVAILABLE`.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresKnowledgeStore> {
  if ((options.url === undefined) === (options.sql === undefined)) {
    throw new MemError(
      'INVALID_INPUT',
      `${ADAPTER}: give exactly one of \`url\` (a connection URL) or \`sql\` (an existing postgres.js client).`,
    );
  }
  const schemaName = options.schema ?? 'mem';
  const s = quoteSchema(schemaName);
  const hnswM = positiveInteger('hnsw.m', options.hnsw?.m, 16, 100);
  const hnswEfConstruction = positiveInteger('hnsw.efConstruction', options.hnsw?.efConstruction, 64, 1000);
  const hnswEfSearch = positiveInteger('hnsw.efSearch', options.hnsw?.efSearch, 100, 1000);
  const ownsClient = options.sql === undefined;
  const sql: Sql = options.sql ?? createClient(options.url as string, options);
  const target = describeTarget(sql, options.url);

  let closed = false;
  let vectorSchema = '';
  let iterativeScan = false;
  let readyPromise: Promise<void> | undefined;

  async function init(): Promise<void> {
    const applied = await appliedMigrations(sql, schemaName);
    const version = Math.max(0, ...(applied.get(knowledgeMigrations.port) ?? []));
    if (version < KNOWLEDGE_SCHEMA) {
      throw new MemError(
        'STORE_UNAVAILABLE',
        `${ADAPTER}: schema ${schemaName} on ${target} has knowledge schema version ${version}; the store needs version ${KNOWLEDGE_SCHEMA}. Call migrate() (or open it with autoMigrate: true).`,
      );
    }
    const [ext] = await exec<{ schema: string; version: string }[]>(
      sql,
      `SELECT n.nspname AS schema, e.extversion AS version FROM pg_extension e
       JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
    );
    if (!ext) {
      throw new MemError(
        'STORE_UNAVAILABLE',
        `${ADAPTER}: the pgvector extension is not enabled in the database at ${target}. Run \`CREATE EXTENSION vector;\` there.`,
      );
    }
    vectorSchema = quoteIdent(ext.schema);
    // hnsw.iterative_scan (pgvector 0.8+) keeps scanning the graph until enough rows pass the filters.
    iterativeScan = versionAtLeast(ext.version, 0, 8);
  }

  function ready(): Promise<void> {
    if (closed) {
      return Promise.reject(
        new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${target} is closed; create a new one.`),
      );
    }
    if (readyPromise === undefined) {
      readyPromise = init().catch((error: unknown) => {
        readyPromise = undefined;
        throw error;
      });
    }
    return readyPromise;
  }

  async function run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      await ready();
      return await fn();
    } catch (error) {
      throw toStoreError(error, what, target);
    }
  }

  const v = () => vectorSchema;
  const ctx = (): QueryContext => ({ schema: s, vectorSchema });

  /** Serialise writers of one document (replace, move, delete) for the rest of the transaction. */
  async function lockDocument(tx: TransactionSql, space: string, docId: string): Promise<void> {
    const lockKey = `${schemaName}|${space.length}|${space}|${docId}`;
    await exec(tx, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
  }

  async function insertChunks(db: Sql | TransactionSql, chunks: MemoryRecord[], version?: number): Promise<void> {
    if (chunks.length === 0) return;
    const payload = JSON.stringify(chunks.map((c) => chunkJson(c, version)));
    await exec(
      db,
      `INSERT INTO ${s}.chunks (id, doc_id, space, scope, agent_id, key, name, content, body_start, chunk_index,
         chunk_count, source, tags, embedding, embedding_model, content_hash, created_at, updated_at, expires_at,
         access_count, last_accessed_at, alpha, beta, version)
       SELECT r.id, r.doc_id, r.space, r.scope, r.agent_id, r.key, r.name, r.content, r.body_start, r.chunk_index,
         r.chunk_count, r.source, coalesce(r.tags, '{}'), r.embedding::${v()}.vector, r.embedding_model,
         r.content_hash, r.created_at, r.updated_at, r.expires_at, r.access_count, r.last_accessed_at, r.alpha,
         r.beta, r.version
       FROM jsonb_to_recordset($1::text::jsonb) AS ${RECORDSET}`,
      [payload],
    );
  }

  async function insertVersion(tx: TransactionSql, ver: MemoryVersion): Promise<void> {
    await exec(
      tx,
      `INSERT INTO ${s}.versions (space, doc_id, version, old_content, old_key, intent, agent_id, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::timestamptz)`,
      [ver.space, ver.docId, ver.version, ver.oldContent, ver.oldKey, ver.intent, ver.agentId, ver.at],
    );
  }

  /** Inside a transaction holding the document lock: the stored version, after checking it exists and matches. */
  async function checkVersion(tx: TransactionSql, space: string, docId: string, expected: number): Promise<number> {
    const [row] = await exec<{ n: number; v: number | null }[]>(
      tx,
      `SELECT count(*)::int AS n, max(version) AS v FROM ${s}.chunks WHERE space = $1 AND doc_id = $2`,
      [space, docId],
    );
    if (!row || row.n === 0 || row.v === null) {
      throw new MemError('NOT_FOUND', `${ADAPTER}: no memory ${docId} in space ${space}.`, {
        details: { space, docId },
      });
    }
    const stored = Number(row.v);
    if (stored !== expected) {
      throw new MemError(
        'CONFLICT',
        `Memory ${docId} changed since it was read (stored version ${stored}, expected ${expected}). Read it again and retry the edit.`,
        { retryable: true, details: { docId, storedVersion: stored, expectedVersion: expected } },
      );
    }
    return stored;
  }

  async function keyTaken(space: string, scope: Scope, agentId: string, key: string, cause: unknown) {
    let holder: string | null = null;
    try {
      const [row] = await exec<{ docid: string }[]>(
        sql,
        `SELECT doc_id AS docid FROM ${s}.chunks WHERE space = $1 AND scope = $2 AND agent_id = $3 AND key = $4
         ORDER BY chunk_index LIMIT 1`,
        [space, scope, agentId, key],
      );
      holder = row?.docid ?? null;
    } catch {
      holder = null;
    }
    return new MemError(
      'KEY_TAKEN',
      `Key ${key} is already taken by another memory${holder ? ` (${holder})` : ''} of ${agentId} at ${scope} scope. Use memory-edit to change that memory, or choose another key.`,
      { cause, details: { key, scope, agentId, ...(holder ? { docId: holder } : {}) } },
    );
  }

  /**
   * After a key violation of a batch insert (rolled back): the first document of the batch whose key is held,
   * by another document of the batch or by a stored one.
   */
  async function keyClaimant(firsts: MemoryRecord[]): Promise<MemoryRecord | undefined> {
    const seen = new Set<string>();
    for (const f of firsts) {
      const k = JSON.stringify([f.space, f.scope, f.agentId, f.key]);
      if (seen.has(k)) return f;
      seen.add(k);
    }
    try {
      const payload = JSON.stringify(
        firsts.map((f, i) => ({ i, space: f.space, scope: f.scope, agent_id: f.agentId, key: f.key, doc_id: f.docId })),
      );
      const [row] = await exec<{ i: number }[]>(
        sql,
        `SELECT r.i FROM jsonb_to_recordset($1::text::jsonb)
           AS r(i integer, space text, scope text, agent_id text, key text, doc_id text)
         WHERE EXISTS (SELECT 1 FROM ${s}.chunks c WHERE c.space = r.space AND c.scope = r.scope
           AND c.agent_id = r.agent_id AND c.key = r.key AND c.doc_id <> r.doc_id)
         ORDER BY r.i LIMIT 1`,
        [payload],
      );
      if (row) return firsts[Number(row.i)];
    } catch {
      // fall through: report the first document
    }
    return firsts[0];
  }

  /** Map unique violations of a chunk write to KEY_TAKEN / CONFLICT; anything else is rethrown. */
  async function chunkWriteError(error: unknown, first: MemoryRecord | undefined): Promise<never> {
    if (sqlState(error) === '23505') {
      const constraint = constraintOf(error);
      if (constraint === 'chunks_key' && first) {
        throw await keyTaken(first.space, first.scope, first.agentId, first.key, error);
      }
      if (constraint === 'chunks_pkey') {
        throw new MemError('CONFLICT', `${ADAPTER}: a memory chunk with the same id already exists in this space.`, {
          cause: error,
        });
      }
    }
    throw error;
  }

  /** Names of the HNSW indexes on chunks, by dimension. */
  async function vectorIndexes(db: Sql | TransactionSql): Promise<Map<number, string>> {
    const rows = await exec<{ name: string }[]>(
      db,
      `SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1 AND tablename = 'chunks'
       AND starts_with(indexname, $2)`,
      [schemaName, INDEX_PREFIX],
    );
    const out = new Map<number, string>();
    for (const row of rows) out.set(Number(row.name.slice(INDEX_PREFIX.length)), row.name);
    return out;
  }

  /**
   * The vector column has no fixed dimension; each dimension in use gets its own partial expression index
   * `hnsw ((embedding::vector(d)) vector_cosine_ops) WHERE vector_dims(embedding) = d`. Called when the store's
   * embedder is recorded: creates the index for `dimension` and drops the ones of other dimensions (their vectors
   * are waiting for `mem reindex`). Runs under the schema's DDL lock, before any row lock of the transaction.
   */
  async function ensureVectorIndex(tx: TransactionSql, dimension: number): Promise<void> {
    const want = dimension <= MAX_HNSW_DIMENSIONS ? `${INDEX_PREFIX}${dimension}` : null;
    const current = async () => {
      const have = await vectorIndexes(tx);
      const ok = (want === null ? have.size === 0 : have.size === 1 && have.get(dimension) === want) as boolean;
      return { have, ok };
    };
    if ((await current()).ok) return;
    await exec(tx, 'SET LOCAL client_min_messages = warning');
    await exec(tx, 'SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schemaName]);
    const { have, ok } = await current();
    if (ok) return;
    for (const [dim, name] of have) {
      if (dim !== dimension) await exec(tx, `DROP INDEX ${s}.${quoteIdent(name)}`);
    }
    if (want !== null && !have.has(dimension)) {
      await exec(
        tx,
        `CREATE INDEX ${quoteIdent(want)} ON ${s}.chunks
         USING hnsw ((embedding::${v()}.vector(${dimension})) ${v()}.vector_cosine_ops)
         WITH (m = ${hnswM}, ef_construction = ${hnswEfConstruction})
         WHERE ${v()}.vector_dims(embedding) = ${dimension}`,
      );
    }
  }

  function checkDimension(info: EmbeddingInfo): number {
    const d = info.dimension;
    if (!Number.isSafeInteger(d) || d < 1 || d > 16000) {
      throw new MemError(
        'INVALID_INPUT',
        `${ADAPTER}: embedding dimension must be an integer from 1 to 16000 (got ${d}).`,
      );
    }
    return d;
  }

  async function writeEmbeddingInfo(tx: TransactionSql, info: EmbeddingInfo): Promise<void> {
    await exec(
      tx,
      `INSERT INTO ${s}.meta (key, value) VALUES ($1, $2), ($3, $4)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [META_MODEL, info.model, META_DIMENSION, String(info.dimension)],
    );
  }

  const capabilities: KnowledgeStoreCapabilities = {
    keyword: true,
    vector: true,
    exactVector: false,
    // ts_rank_cd with normalisation 1 (queries.ts): divided by 1 + ln(length).
    keywordLengthNorm: { kind: 'log' },
  };

  const store: PostgresKnowledgeStore = {
    name: ADAPTER,
    capabilities,

    get sql() {
      return sql;
    },

    get schema() {
      return schemaName;
    },

    async migrate() {
      if (closed) {
        throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${target} is closed; create a new one.`);
      }
      try {
        const result = await runMigrations(sql, { schema: schemaName, ports: [knowledgeMigrations], target });
        readyPromise = undefined;
        return result;
      } catch (error) {
        throw toStoreError(error, 'migrating', target);
      }
    },

    insertDocument(chunks) {
      return store.insertDocuments([chunks]);
    },

    insertDocuments(docs) {
      return run('insertDocuments', async () => {
        const batch = docs.filter((chunks) => chunks.length > 0);
        if (batch.length === 0) return;
        const all = batch.flat();
        try {
          if (all.length <= INSERT_BATCH) {
            // One statement is atomic by itself.
            await insertChunks(sql, all);
          } else {
            await sql.begin(async (tx) => {
              for (let i = 0; i < all.length; i += INSERT_BATCH) {
                await insertChunks(tx, all.slice(i, i + INSERT_BATCH));
              }
            });
          }
        } catch (error) {
          const firsts = batch.map((chunks) => chunks[0]!);
          const culprit =
            sqlState(error) === '23505' && constraintOf(error) === 'chunks_key' ? await keyClaimant(firsts) : firsts[0];
          await chunkWriteError(error, culprit);
        }
      });
    },

    replaceDocument(space, docId, chunks, version, expectedVersion) {
      return run('replaceDocument', async () => {
        try {
          await sql.begin(async (tx) => {
            await lockDocument(tx, space, docId);
            const stored = await checkVersion(tx, space, docId, expectedVersion);
            // Ratings and reads do not change the version: keep the counters as stored now (under the document
            // lock, which addRating and recordAccess take too), not as the editor read them.
            const [kept] = await exec<
              { accesscount: number; lastaccessedat: string | null; alpha: number; beta: number }[]
            >(
              tx,
              `SELECT access_count AS accesscount, ${iso('last_accessed_at')} AS lastaccessedat, alpha, beta
               FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 ORDER BY chunk_index LIMIT 1`,
              [space, docId],
            );
            await exec(tx, `DELETE FROM ${s}.chunks WHERE space = $1 AND doc_id = $2`, [space, docId]);
            await insertChunks(
              tx,
              chunks.map((c) =>
                kept
                  ? {
                      ...c,
                      accessCount: Number(kept.accesscount),
                      lastAccessedAt: kept.lastaccessedat,
                      alpha: Number(kept.alpha),
                      beta: Number(kept.beta),
                    }
                  : c,
              ),
              stored + 1,
            );
            await insertVersion(tx, version);
          });
        } catch (error) {
          await chunkWriteError(error, chunks[0]);
        }
      });
    },

    moveDocument(space, docId, change, version, expectedVersion) {
      return run('moveDocument', async () => {
        let owner: { scope: Scope; agentid: string } | undefined;
        try {
          await sql.begin(async (tx) => {
            await lockDocument(tx, space, docId);
            await checkVersion(tx, space, docId, expectedVersion);
            [owner] = await exec<{ scope: Scope; agentid: string }[]>(
              tx,
              `SELECT scope, agent_id AS agentid FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 LIMIT 1`,
              [space, docId],
            );
            const setExpiry = change.expiresAt !== undefined;
            await exec(
              tx,
              `UPDATE ${s}.chunks SET key = $1, updated_at = $2::text::timestamptz, version = version + 1,
                 expires_at = CASE WHEN $3::boolean THEN $4::text::timestamptz ELSE expires_at END
               WHERE space = $5 AND doc_id = $6`,
              [change.newKey, change.updatedAt, setExpiry, setExpiry ? (change.expiresAt ?? null) : null, space, docId],
            );
            await insertVersion(tx, version);
          });
        } catch (error) {
          if (sqlState(error) === '23505' && constraintOf(error) === 'chunks_key' && owner) {
            throw await keyTaken(space, owner.scope, owner.agentid, change.newKey, error);
          }
          throw error;
        }
      });
    },

    deleteDocument(space, docId) {
      return run('deleteDocument', () =>
        sql.begin(async (tx) => {
          await lockDocument(tx, space, docId);
          const [row] = await exec<{ n: number }[]>(
            tx,
            `WITH dv AS (DELETE FROM ${s}.versions WHERE space = $1 AND doc_id = $2),
                  dr AS (DELETE FROM ${s}.ratings WHERE space = $1 AND doc_id = $2),
                  dc AS (DELETE FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 RETURNING 1)
             SELECT count(*)::int AS n FROM dc`,
            [space, docId],
          );
          return Number(row?.n ?? 0);
        }),
      );
    },

    deleteByAgent(space, agentId) {
      return run('deleteByAgent', () =>
        sql.begin(async (tx) => {
          // Tags, the tsvector and the embedding live in the chunk row. A writer of one of the documents that commits
          // while the first statement runs can leave rows its snapshot did not see: repeat until none is left.
          const docs = new Set<string>();
          const total = { chunks: 0, versions: 0, ratings: 0 };
          for (let round = 0; round < 10; round++) {
            const [row] = await exec<{ chunks: number; versions: number; ratings: number; docs: string }[]>(
              tx,
              `WITH owned AS MATERIALIZED (SELECT DISTINCT doc_id FROM ${s}.chunks WHERE space = $1 AND agent_id = $2),
                    dv AS (DELETE FROM ${s}.versions x USING owned o WHERE x.space = $1 AND x.doc_id = o.doc_id
                           RETURNING 1),
                    dr AS (DELETE FROM ${s}.ratings x USING owned o WHERE x.space = $1 AND x.doc_id = o.doc_id
                           RETURNING 1),
                    dc AS (DELETE FROM ${s}.chunks x USING owned o WHERE x.space = $1 AND x.doc_id = o.doc_id
                           RETURNING x.doc_id)
               SELECT (SELECT count(*)::int FROM dc) AS chunks,
                      (SELECT count(*)::int FROM dv) AS versions,
                      (SELECT count(*)::int FROM dr) AS ratings,
                      (SELECT coalesce(array_to_json(array_agg(DISTINCT doc_id)), '[]'::json)::text FROM dc) AS docs`,
              [space, agentId],
            );
            const chunks = Number(row?.chunks ?? 0);
            total.chunks += chunks;
            total.versions += Number(row?.versions ?? 0);
            total.ratings += Number(row?.ratings ?? 0);
            for (const id of JSON.parse(row?.docs ?? '[]') as string[]) docs.add(id);
            if (chunks === 0) break;
          }
          return { documents: docs.size, ...total };
        }),
      );
    },

    getChunk(space, id) {
      return run('getChunk', async () => {
        const [row] = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c WHERE c.id = $1 AND c.space = $2`,
          [id, space],
        );
        return row === undefined ? null : rowToRecord(row);
      });
    },

    getDocument(space, docId) {
      return run('getDocument', async () => {
        const rows = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c WHERE c.space = $1 AND c.doc_id = $2 ORDER BY c.chunk_index`,
          [space, docId],
        );
        return rows.map(rowToRecord);
      });
    },

    getChunks(space, ids) {
      return run('getChunks', async () => {
        const unique = [...new Set(ids)];
        if (unique.length === 0) return [];
        const rows = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c WHERE c.space = $1 AND c.id = ANY($2::text[])`,
          [space, unique],
        );
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
      return run('findDocIdByKey', async () => {
        const [row] = await exec<{ docid: string }[]>(
          sql,
          `SELECT doc_id AS docid FROM ${s}.chunks WHERE space = $1 AND scope = $2 AND agent_id = $3 AND key = $4
           ORDER BY chunk_index LIMIT 1`,
          [space, scope, agentId, key],
        );
        return row?.docid ?? null;
      });
    },

    findDocIdByHash(space, scope, agentId, contentHash) {
      return run('findDocIdByHash', async () => {
        const [row] = await exec<{ docid: string }[]>(
          sql,
          `SELECT doc_id AS docid FROM ${s}.chunks
           WHERE space = $1 AND scope = $2 AND agent_id = $3 AND content_hash = $4
           ORDER BY created_at, id LIMIT 1`,
          [space, scope, agentId, contentHash],
        );
        return row?.docid ?? null;
      });
    },

    findDocIdsByHashes(space, lookups) {
      return run('findDocIdsByHashes', async () => {
        if (lookups.length === 0) return [];
        // One round trip: per lookup (by its position) the oldest chunk with that owner and hash.
        const found = await exec<{ i: string; docid: string }[]>(
          sql,
          `SELECT DISTINCT ON (l.i) l.i::text AS i, c.doc_id AS docid
             FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS l(scope, agent_id, hash, i)
             JOIN ${s}.chunks c
               ON c.space = $1 AND c.scope = l.scope AND c.agent_id = l.agent_id AND c.content_hash = l.hash
            ORDER BY l.i, c.created_at, c.id`,
          [space, lookups.map((l) => l.scope), lookups.map((l) => l.agentId), lookups.map((l) => l.contentHash)],
        );
        const out: (string | null)[] = lookups.map(() => null);
        for (const row of found) out[Number(row.i) - 1] = row.docid;
        return out;
      });
    },

    keywordSearch(query: KeywordQuery): Promise<KeywordHit[]> {
      return run('keywordSearch', async () => {
        const limit = Math.floor(query.limit);
        const text = termsText(query.terms);
        if (text === '' || !(limit > 0)) return [];
        const q = keywordQuery(ctx(), query.filter, text, limit);
        const rows = await exec<{ id: string; score: number }[]>(sql, q.text, q.params);
        return rows.map((row) => ({ id: row.id, score: Number(row.score) }));
      });
    },

    vectorSearch(query: VectorQuery): Promise<VectorHit[]> {
      return run('vectorSearch', async () => {
        const limit = Math.floor(query.limit);
        const dims = query.vector.length;
        if (dims === 0 || !(limit > 0)) return [];
        const literal = vectorLiteral(query.vector);
        const search = async (approximate: boolean) => {
          const q = vectorQuery(ctx(), query.filter, literal, dims, limit, approximate);
          if (!approximate) return exec<{ id: string; distance: number }[]>(sql, q.text, q.params);
          const [, rows] = await sql.begin((tx) => [
            exec(tx, hnswSettings(Math.max(hnswEfSearch, limit * 2), iterativeScan)),
            exec<{ id: string; distance: number }[]>(tx, q.text, q.params),
          ]);
          return rows;
        };
        const indexable = dims <= MAX_HNSW_DIMENSIONS;
        let rows = await search(indexable);
        // An approximate index scan may stop short of `limit` rows that pass the filters; the filtered set is then
        // small, so the exact form is cheap and correct.
        if (indexable && rows.length < limit) rows = await search(false);
        return rows.map((row) => ({ id: row.id, similarity: clampSimilarity(1 - Number(row.distance)) }));
      });
    },

    neighbours(query: NeighbourQuery): Promise<MemoryRecord[]> {
      return run('neighbours', async () => {
        const radius = Math.floor(query.radius);
        if (query.ids.length === 0 || !(radius > 0)) return [];
        const q = neighbourQuery(ctx(), query.filter, query.ids, radius, COLUMNS);
        return (await exec<ChunkRow[]>(sql, q.text, q.params)).map(rowToRecord);
      });
    },

    recordAccess(space, docId, at) {
      return run('recordAccess', async () => {
        // Under the document lock, so that an edit replacing the chunks meanwhile cannot drop the count.
        await sql.begin(async (tx) => {
          await lockDocument(tx, space, docId);
          await exec(
            tx,
            `UPDATE ${s}.chunks SET access_count = access_count + 1, last_accessed_at = $1::text::timestamptz
             WHERE space = $2 AND doc_id = $3`,
            [at, space, docId],
          );
        });
      });
    },

    addRating(rating: Rating): Promise<RatingOutcome> {
      return run('addRating', async () => {
        try {
          // One transaction under the document lock (an edit replacing the chunks meanwhile cannot drop the change):
          // the rating row (uncounted first, so that a repeat in the task fails before any counter moves), then,
          // for a counted vote, the rater's earlier counted votes taken back and this one counted.
          return await sql.begin(async (tx) => {
            await lockDocument(tx, rating.space, rating.docId);
            const [found] = await exec<{ n: number }[]>(
              tx,
              `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.chunks WHERE space = $1 AND doc_id = $2 LIMIT 1) d`,
              [rating.space, rating.docId],
            );
            if (!found || Number(found.n) === 0) {
              throw new MemError(
                'NOT_FOUND',
                `${ADAPTER}: no memory ${rating.docId} in space ${rating.space} to rate.`,
                {
                  details: { space: rating.space, docId: rating.docId },
                },
              );
            }
            await exec(
              tx,
              `INSERT INTO ${s}.ratings (space, doc_id, task_id, useful, note, agent_id, at, counted)
               VALUES ($1, $2, $3, $4::boolean, $5, $6, $7::text::timestamptz, false)`,
              [rating.space, rating.docId, rating.taskId, rating.useful, rating.note, rating.agentId, rating.at],
            );
            if (!rating.counted) return { replaced: 0 };
            const earlier = await exec<{ useful: boolean }[]>(
              tx,
              `UPDATE ${s}.ratings SET counted = false
               WHERE space = $1 AND doc_id = $2 AND agent_id = $3 AND counted RETURNING useful`,
              [rating.space, rating.docId, rating.agentId],
            );
            await exec(tx, `UPDATE ${s}.ratings SET counted = true WHERE space = $1 AND doc_id = $2 AND task_id = $3`, [
              rating.space,
              rating.docId,
              rating.taskId,
            ]);
            const up = earlier.filter((r) => r.useful).length;
            const dAlpha = (rating.useful ? 1 : 0) - up;
            const dBeta = (rating.useful ? 0 : 1) - (earlier.length - up);
            await exec(
              tx,
              `UPDATE ${s}.chunks SET alpha = alpha + $3::float8, beta = beta + $4::float8 WHERE space = $1 AND doc_id = $2`,
              [rating.space, rating.docId, dAlpha, dBeta],
            );
            return { replaced: earlier.length };
          });
        } catch (error) {
          if (sqlState(error) === '23505' && constraintOf(error) === 'ratings_pkey') {
            throw new MemError(
              'ALREADY_RATED',
              `Memory ${rating.docId} was already rated in task ${rating.taskId}; a memory counts once per task.`,
              { cause: error, details: { docId: rating.docId, taskId: rating.taskId } },
            );
          }
          throw error;
        }
      });
    },

    listVersions(space, docId) {
      return run('listVersions', async () => {
        const rows = await exec<
          {
            docid: string;
            space: string;
            version: number;
            oldcontent: string;
            oldkey: string;
            intent: string;
            agentid: string;
            at: string;
          }[]
        >(
          sql,
          `SELECT doc_id AS docid, space, version, old_content AS oldcontent, old_key AS oldkey, intent,
             agent_id AS agentid, ${iso('at')} AS at
           FROM ${s}.versions WHERE space = $1 AND doc_id = $2 ORDER BY version, vid`,
          [space, docId],
        );
        return rows.map(
          (row): MemoryVersion => ({
            docId: row.docid,
            space: row.space,
            version: Number(row.version),
            oldContent: row.oldcontent,
            oldKey: row.oldkey,
            intent: row.intent,
            agentId: row.agentid,
            at: row.at,
          }),
        );
      });
    },

    deleteExpired(now, space) {
      return run('deleteExpired', async () => {
        const p = new Params();
        const cond = `expires_at IS NOT NULL AND expires_at <= ${p.add(now)}::text::timestamptz${
          space === undefined ? '' : ` AND space = ${p.add(space)}`
        }`;
        const [row] = await exec<{ n: number }[]>(
          sql,
          `WITH expired AS MATERIALIZED (SELECT DISTINCT space, doc_id FROM ${s}.chunks WHERE ${cond}),
                dv AS (DELETE FROM ${s}.versions x USING expired e WHERE x.space = e.space AND x.doc_id = e.doc_id),
                dr AS (DELETE FROM ${s}.ratings x USING expired e WHERE x.space = e.space AND x.doc_id = e.doc_id),
                dc AS (DELETE FROM ${s}.chunks x USING expired e WHERE x.space = e.space AND x.doc_id = e.doc_id
                       RETURNING 1)
           SELECT count(*)::int AS n FROM dc`,
          p.values,
        );
        return Number(row?.n ?? 0);
      });
    },

    scan(options: ScanOptions) {
      return run('scan', async () => {
        const limit = Math.floor(options.limit);
        if (!(limit > 0)) return [];
        const p = new Params();
        const where: string[] = [];
        if (options.space !== undefined) where.push(`c.space = ${p.add(options.space)}`);
        if (options.after !== undefined) {
          where.push(
            `(c.created_at, c.id) > (${p.add(options.after.createdAt)}::text::timestamptz, ${p.add(options.after.id)})`,
          );
        }
        const rows = await exec<ChunkRow[]>(
          sql,
          `SELECT ${COLUMNS} FROM ${s}.chunks c ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY c.created_at, c.id LIMIT ${p.add(limit)}`,
          p.values,
        );
        return rows.map(rowToRecord);
      });
    },

    updateEmbeddings(updates, info) {
      return run('updateEmbeddings', async () => {
        const dimension = checkDimension(info);
        await sql.begin(async (tx) => {
          await ensureVectorIndex(tx, dimension);
          if (updates.length > 0) {
            const payload = JSON.stringify(updates.map((u) => ({ id: u.id, embedding: vectorLiteral(u.embedding) })));
            await exec(
              tx,
              `UPDATE ${s}.chunks c SET embedding = r.embedding::${v()}.vector, embedding_model = $2
               FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, embedding text) WHERE c.id = r.id`,
              [payload, info.model],
            );
          }
          await writeEmbeddingInfo(tx, info);
        });
      });
    },

    /** Documents and chunks of a space; `bySource` / `byScope` count documents. */
    stats(space): Promise<KnowledgeStats> {
      return run('stats', async () => {
        const rows = await exec<
          { gs: number; gc: number; source: string | null; scope: string | null; docs: number; chunks: number }[]
        >(
          sql,
          `SELECT GROUPING(source) AS gs, GROUPING(scope) AS gc, source, scope,
             count(DISTINCT doc_id)::int AS docs, count(*)::int AS chunks
           FROM ${s}.chunks WHERE space = $1 GROUP BY GROUPING SETS ((), (source), (scope))`,
          [space],
        );
        const out: KnowledgeStats = { documents: 0, chunks: 0, bySource: {}, byScope: {} };
        for (const row of rows) {
          const gs = Number(row.gs);
          const gc = Number(row.gc);
          if (gs === 1 && gc === 1) {
            out.documents = Number(row.docs);
            out.chunks = Number(row.chunks);
          } else if (gs === 0 && row.source !== null) {
            out.bySource[row.source] = Number(row.docs);
          } else if (gc === 0 && row.scope !== null) {
            out.byScope[row.scope] = Number(row.docs);
          }
        }
        return out;
      });
    },

    getEmbeddingInfo() {
      return run('getEmbeddingInfo', async () => {
        const rows = await exec<{ key: string; value: string }[]>(
          sql,
          `SELECT key, value FROM ${s}.meta WHERE key IN ($1, $2)`,
          [META_MODEL, META_DIMENSION],
        );
        const model = rows.find((r) => r.key === META_MODEL)?.value;
        const dimension = Number(rows.find((r) => r.key === META_DIMENSION)?.value);
        if (model === undefined || !Number.isFinite(dimension)) return null;
        return { model, dimension };
      });
    },

    setEmbeddingInfo(info) {
      return run('setEmbeddingInfo', async () => {
        const dimension = checkDimension(info);
        await sql.begin(async (tx) => {
          await ensureVectorIndex(tx, dimension);
          await writeEmbeddingInfo(tx, info);
        });
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      if (ownsClient) {
        try {
          await sql.end({ timeout: 5 });
        } catch (error) {
          throw toStoreError(error, 'close', target);
        }
      }
    },
  };

  try {
    // Fail fast on a wrong URL, a server that is down or a missing extension: one round trip.
    await exec(sql, 'SELECT 1');
    if (options.autoMigrate ?? true) {
      await runMigrations(sql, { schema: schemaName, ports: [knowledgeMigrations], target });
      await ready();
    }
  } catch (error) {
    closed = true;
    if (ownsClient) await sql.end({ timeout: 1 }).catch(() => undefined);
    throw toStoreError(error, 'opening the store', target);
  }
  return store;
}
