import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as lancedb from '@lancedb/lancedb';
import type {
  EmbeddingInfo,
  KeywordHit,
  KeywordQuery,
  KnowledgeStats,
  KnowledgeStore,
  KnowledgeStoreCapabilities,
  MemoryRecord,
  MemoryVersion,
  Rating,
  ScanOptions,
  Scope,
  VectorHit,
  VectorQuery,
} from '@mem/core';
import { MemError, wrapStoreError } from '@mem/core';
import { FileLock, type FileLockOptions, withProcessMutex } from './lock.js';
import {
  accessSchema,
  baseOf,
  chunkSchema,
  type DocCounters,
  FTS_COLUMN,
  metaSchema,
  REQUIRED_CHUNK_COLUMNS,
  type Row,
  ratingSchema,
  ratingToRow,
  recordToRow,
  rowToRecord,
  rowToVersion,
  SCHEMA_VERSION,
  vectorColumn,
  vectorDimension,
  vectorField,
  versionSchema,
  versionToRow,
} from './schema.js';
import { docPredicate, filterPredicate, matchText, sqlIn, sqlString } from './sql.js';

export const ADAPTER = 'lancedb';

export type VectorIndexType = 'IVF_PQ' | 'IVF_HNSW_SQ' | 'none';

export interface LanceStoreOptions {
  /** A local folder (created when missing) or an object-storage URI (`s3://…`, `gs://…`, `az://…`). */
  uri: string;
  /** Passed to LanceDB for object storage (region, endpoint, credentials…). */
  storageOptions?: Record<string, string>;
  /** Table names inside the database. */
  tableNames?: { chunks?: string; versions?: string; ratings?: string; meta?: string; access?: string };
  index?: {
    vector?: {
      /**
       * ANN index built once the table holds `minRows` vectors of one dimension. Default `IVF_HNSW_SQ` (measured:
       * recall@10 1.00 against flat search at 10k × 512-d, where IVF_PQ gave 0.90 at the same latency).
       */
      type?: VectorIndexType;
      metric?: 'cosine';
      /** Below this many vectors the vector arm is exact (flat). Default 5000. */
      minRows?: number;
      /** IVF partitions probed per query. Default 20. */
      nprobes?: number;
      /** Re-rank `refineFactor × limit` ANN candidates with exact distances. Default 10. */
      refineFactor?: number;
    };
    /** Full-text index on name + content (the keyword arm). Default true; false turns the keyword arm off. */
    fts?: boolean;
  };
  /**
   * Index upkeep after writes that change chunks (see the README). Up to `ftsRebuildBelowRows` chunks the
   * full-text index is rebuilt after each such write (it is then always exact); above, new rows are folded in by
   * `optimize` once they reach `maxUnindexedFraction` of the indexed rows, or once the table has more than
   * `maxFragments` fragments. `auto: false` leaves everything to `optimize()`.
   */
  maintenance?: {
    auto?: boolean;
    ftsRebuildBelowRows?: number;
    maxUnindexedFraction?: number;
    maxFragments?: number;
  };
  /**
   * Write lock file in the folder (local folders only), shared by every process that opens it. `false` turns it
   * off (a single process that owns the folder). Object storage has no lock file: see the README.
   */
  lock?: false | FileLockOptions;
  /** Check other writers' commits on every read (0, the default: strong consistency) or every N seconds. */
  readConsistencyIntervalSeconds?: number;
  /** Where recovered problems are reported (a failed index refresh after a committed write). */
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
}

export interface LanceOptimizeReport {
  /** Fragments removed / added by compaction, per table. */
  compaction: Record<string, { fragmentsRemoved: number; fragmentsAdded: number }>;
  /** Old table versions removed by cleanup, per table. */
  prunedVersions: Record<string, number>;
  /** Indexes created by this call (e.g. `vec_512` once it reached `minRows`). */
  indexesCreated: string[];
  /** Vector columns dropped because no row uses them any more (after a re-embedding into another dimension). */
  droppedVectorColumns: string[];
}

export interface LanceIndexState {
  /** The full-text index: rows it covers and rows written since its last refresh. Null before the first row. */
  fts: { indexedRows: number; unindexedRows: number } | null;
  /** ANN indexes by vector column. */
  vector: Record<string, { type: string; indexedRows: number; unindexedRows: number }>;
}

export interface LanceKnowledgeStore extends KnowledgeStore {
  /** Open the database and create missing tables now (every method does it on first use). */
  ready(): Promise<void>;
  /**
   * Maintenance: compact fragments, fold new rows into the indexes, build an ANN index that reached its
   * threshold, drop unused vector columns and remove table versions older than `cleanupOlderThan` (default 7 days).
   */
  optimize(options?: { cleanupOlderThan?: Date }): Promise<LanceOptimizeReport>;
  /** Which indexes exist and how fresh they are. */
  indexState(): Promise<LanceIndexState>;
}

const META_SCHEMA = 'schema.version';
const META_MODEL = 'embedding.model';
const META_DIMENSION = 'embedding.dimension';
/** Longest IN (…) list per query. */
const BATCH = 500;

const isObjectStorage = (uri: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) && !uri.startsWith('file://');

function localPath(uri: string): string {
  return uri.startsWith('file://') ? fileURLToPath(uri) : resolve(uri);
}

function chunked<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function clampSimilarity(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.max(-1, Math.min(1, value));
}

/** IVF_PQ sub-vectors: 16 or 8 dimensions each (SIMD friendly), else the largest divisor ≤ dimension / 4. */
function subVectors(dimension: number): number {
  if (dimension % 16 === 0) return dimension / 16;
  if (dimension % 8 === 0) return dimension / 8;
  for (let d = Math.max(1, Math.floor(dimension / 4)); d > 1; d--) if (dimension % d === 0) return d;
  return 1;
}

function notFound(space: string, docId: string, what = 'memory'): MemError {
  return new MemError('NOT_FOUND', `${ADAPTER}: no ${what} ${docId} in space ${space}.`, {
    details: { space, docId },
  });
}

function keyTaken(key: string, scope: Scope, agentId: string, holder: string): MemError {
  return new MemError(
    'KEY_TAKEN',
    `Key ${key} is already taken by another memory (${holder}) of ${agentId} at ${scope} scope. Use memory-edit to change that memory, or choose another key.`,
    { details: { key, scope, agentId, docId: holder } },
  );
}

interface Tables {
  conn: lancedb.Connection;
  chunks: lancedb.Table;
  versions: lancedb.Table;
  ratings: lancedb.Table;
  meta: lancedb.Table;
  access: lancedb.Table;
}

/**
 * A `KnowledgeStore` on LanceDB: a chunks table with a full-text index over name + content (BM25 `_score`) and one
 * vector column per embedding dimension (cosine; exact below the index threshold, IVF_PQ or IVF_HNSW_SQ above it),
 * plus versions, ratings, access and meta tables. Every filter is a LanceDB SQL predicate applied before the limit.
 * Writes run under a write lock (in-process queue + lock file in the folder); see the README for the model.
 */
export function createLanceStore(options: LanceStoreOptions): LanceKnowledgeStore {
  const uri = options.uri;
  const remote = isObjectStorage(uri);
  const names = {
    chunks: options.tableNames?.chunks ?? 'knowledge_chunks',
    versions: options.tableNames?.versions ?? 'knowledge_versions',
    ratings: options.tableNames?.ratings ?? 'knowledge_ratings',
    meta: options.tableNames?.meta ?? 'knowledge_meta',
    access: options.tableNames?.access ?? 'knowledge_access',
  };
  const ftsEnabled = options.index?.fts ?? true;
  const vectorOptions = options.index?.vector ?? {};
  const annType: VectorIndexType = vectorOptions.type ?? 'IVF_HNSW_SQ';
  const minRows = Math.max(256, vectorOptions.minRows ?? 5_000);
  const nprobes = vectorOptions.nprobes ?? 20;
  const refineFactor = vectorOptions.refineFactor ?? 10;
  const autoMaintain = options.maintenance?.auto ?? true;
  const ftsRebuildBelowRows = options.maintenance?.ftsRebuildBelowRows ?? 1_000;
  const maxUnindexedFraction = options.maintenance?.maxUnindexedFraction ?? 0.05;
  const maxFragments = options.maintenance?.maxFragments ?? 32;
  const logger = options.logger;

  const folder = remote ? null : localPath(uri);
  const lock =
    folder !== null && options.lock !== false
      ? new FileLock(join(folder, '.mem-write.lock'), options.lock || {})
      : null;
  const mutexName = `lancedb:${folder ?? uri}`;

  let opening: Promise<Tables> | null = null;
  let tables: Tables | null = null;
  let closed = false;
  const pending = new Set<Promise<unknown>>();

  /** Vector columns with an ANN index (refreshed after maintenance and, at most every 5 s, by searches). */
  let annColumns = new Set<string>();
  let annCheckedAt = 0;
  let ftsIndexed = false;

  const capabilities: KnowledgeStoreCapabilities = {
    keyword: ftsEnabled,
    vector: true,
    get exactVector() {
      return annColumns.size === 0;
    },
  };

  function closedError(): MemError {
    return new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${uri} is closed; create a new one.`);
  }

  async function open(): Promise<Tables> {
    if (folder !== null) mkdirSync(folder, { recursive: true });
    const conn = await lancedb.connect(uri, {
      readConsistencyInterval: options.readConsistencyIntervalSeconds ?? 0,
      ...(options.storageOptions ? { storageOptions: options.storageOptions } : {}),
    });
    try {
      const opened = await exclusive(async () => {
        const existing = new Set(await conn.tableNames());
        const openOrCreate = async (name: string, schema: ReturnType<typeof chunkSchema>) =>
          existing.has(name)
            ? conn.openTable(name)
            : conn.createEmptyTable(name, schema, { mode: 'create', existOk: true });
        const t: Tables = {
          conn,
          chunks: await openOrCreate(names.chunks, chunkSchema()),
          versions: await openOrCreate(names.versions, versionSchema()),
          ratings: await openOrCreate(names.ratings, ratingSchema()),
          meta: await openOrCreate(names.meta, metaSchema()),
          access: await openOrCreate(names.access, accessSchema()),
        };
        const columns = new Set((await t.chunks.schema()).fields.map((f) => f.name));
        const missing = REQUIRED_CHUNK_COLUMNS.filter((c) => !columns.has(c));
        if (missing.length > 0) {
          throw new MemError(
            'STORE_CORRUPT',
            `${ADAPTER}: table ${names.chunks} in ${uri} is not a mem knowledge table (missing columns: ${missing.join(', ')}). Use another folder or another table name (tableNames.chunks).`,
          );
        }
        const stored = await metaGet(t, META_SCHEMA);
        if (stored === null) await metaPut(t, { [META_SCHEMA]: String(SCHEMA_VERSION) });
        else if (Number(stored) > SCHEMA_VERSION) {
          throw new MemError(
            'STORE_UNAVAILABLE',
            `${ADAPTER}: ${uri} has knowledge schema version ${stored}, newer than this @mem/store-lancedb understands (${SCHEMA_VERSION}). Upgrade the package.`,
          );
        }
        return t;
      });
      await refreshIndexInfo(opened);
      return opened;
    } catch (error) {
      conn.close();
      throw error;
    }
  }

  function ready(): Promise<Tables> {
    if (closed) return Promise.reject(closedError());
    if (tables) return Promise.resolve(tables);
    opening ??= open().then(
      (t) => {
        tables = t;
        return t;
      },
      (error) => {
        opening = null;
        throw error;
      },
    );
    return opening;
  }

  /** The write lock: one writer at a time in this process, then across processes through the lock file. */
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return withProcessMutex(mutexName, async () => {
      const release = lock ? await lock.acquire() : null;
      try {
        return await fn();
      } finally {
        await release?.();
      }
    });
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    pending.add(promise);
    const done = () => pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  function read<T>(what: string, fn: (t: Tables) => Promise<T>): Promise<T> {
    return track(
      (async () => {
        try {
          return await fn(await ready());
        } catch (error) {
          throw wrapStoreError(ADAPTER, error, what);
        }
      })(),
    );
  }

  /** A write critical section (under the lock), then index maintenance when asked. */
  function write<T>(what: string, fn: (t: Tables) => Promise<T>, maintain = false): Promise<T> {
    return track(
      (async () => {
        try {
          const t = await ready();
          return await exclusive(async () => {
            const result = await fn(t);
            if (maintain && autoMaintain) {
              try {
                await maintainAfterWrite(t);
              } catch (error) {
                // The write is committed; a failed refresh is retried after the next write or by optimize().
                logger?.warn(`${ADAPTER}: index refresh after ${what} failed`, { error });
              }
            }
            return result;
          });
        } catch (error) {
          throw wrapStoreError(ADAPTER, error, what);
        }
      })(),
    );
  }

  // ---------- small helpers over the tables ----------

  async function rows(table: lancedb.Table, where: string, limit?: number, columns?: string[]): Promise<Row[]> {
    let q = table.query().where(where);
    if (columns) q = q.select(columns);
    if (limit !== undefined) q = q.limit(limit);
    return (await q.toArray()) as Row[];
  }

  async function metaGet(t: Tables, key: string): Promise<string | null> {
    const [row] = await rows(t.meta, `key = ${sqlString(key)}`, 1);
    return row ? String(row.value) : null;
  }

  async function metaPut(t: Tables, entries: Record<string, string>): Promise<void> {
    const data = Object.entries(entries).map(([key, value]) => ({ key, value }));
    await t.meta.mergeInsert('key').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
  }

  async function vectorColumns(t: Tables): Promise<string[]> {
    return (await t.chunks.schema()).fields.map((f) => f.name).filter((n) => vectorDimension(n) !== null);
  }

  /** Under the lock: make sure the vector column of every dimension in `dimensions` exists. */
  async function ensureVectorColumns(t: Tables, dimensions: Iterable<number>): Promise<string[]> {
    const existing = await vectorColumns(t);
    const missing = [...new Set(dimensions)].filter((d) => !existing.includes(vectorColumn(d)));
    if (missing.length > 0) {
      await t.chunks.addColumns(missing.map(vectorField));
      return vectorColumns(t);
    }
    return existing;
  }

  /** Accesses and ratings of documents since they were written (added to the stored base counters on read). */
  async function docCounters(t: Tables, space: string, docIds: Iterable<string>): Promise<Map<string, DocCounters>> {
    const counters = new Map<string, DocCounters>();
    const get = (id: string) => {
      let c = counters.get(id);
      if (!c) {
        c = { accesses: 0, lastAccessAt: null, useful: 0, useless: 0 };
        counters.set(id, c);
      }
      return c;
    };
    for (const batch of chunked([...new Set(docIds)])) {
      const where = `space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`;
      for (const r of await rows(t.ratings, where, undefined, ['doc_id', 'useful'])) {
        const c = get(String(r.doc_id));
        if (r.useful) c.useful += 1;
        else c.useless += 1;
      }
      for (const r of await rows(t.access, where, undefined, ['doc_id', 'count', 'last_at'])) {
        const c = get(String(r.doc_id));
        c.accesses += Number(r.count);
        c.lastAccessAt = String(r.last_at);
      }
    }
    return counters;
  }

  async function toRecords(t: Tables, found: Row[]): Promise<MemoryRecord[]> {
    if (found.length === 0) return [];
    const bySpace = new Map<string, Set<string>>();
    for (const r of found) {
      const set = bySpace.get(String(r.space)) ?? new Set<string>();
      set.add(String(r.doc_id));
      bySpace.set(String(r.space), set);
    }
    const counters = new Map<string, DocCounters>();
    for (const [space, ids] of bySpace) {
      for (const [docId, c] of await docCounters(t, space, ids)) counters.set(`${space}\u0000${docId}`, c);
    }
    return found.map((r) => rowToRecord(r, counters.get(`${String(r.space)}\u0000${String(r.doc_id)}`)));
  }

  /** Under the lock: the document's stored version, after checking that it exists and matches. */
  async function checkVersion(
    t: Tables,
    space: string,
    docId: string,
    expected: number,
  ): Promise<{ version: number; scope: Scope; agentId: string; base: ReturnType<typeof baseOf> }> {
    const found = await rows(t.chunks, docPredicate(space, docId), undefined, [
      'version',
      'scope',
      'agent_id',
      'access_base',
      'last_access_base',
      'alpha_base',
      'beta_base',
    ]);
    if (found.length === 0) throw notFound(space, docId);
    const version = Math.max(...found.map((r) => Number(r.version)));
    if (version !== expected) {
      throw new MemError(
        'CONFLICT',
        `Memory ${docId} changed since it was read (stored version ${version}, expected ${expected}). Read it again and retry the edit.`,
        { retryable: true, details: { docId, storedVersion: version, expectedVersion: expected } },
      );
    }
    const first = found[0]!;
    return { version, scope: String(first.scope) as Scope, agentId: String(first.agent_id), base: baseOf(first) };
  }

  /** Under the lock: the document holding (space, scope, agent, key), other than `self`. */
  async function keyHolder(
    t: Tables,
    space: string,
    scope: Scope,
    agentId: string,
    key: string,
    self: string,
  ): Promise<string | null> {
    const found = await rows(
      t.chunks,
      `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND key = ${sqlString(key)} AND doc_id <> ${sqlString(self)}`,
      1,
      ['doc_id'],
    );
    return found[0] ? String(found[0].doc_id) : null;
  }

  /**
   * Under the lock, in one query where the id list is short: the key must be free (KEY_TAKEN), and neither the
   * document nor any of its chunk ids may exist already (CONFLICT).
   */
  async function checkNewDocument(t: Tables, first: MemoryRecord, ids: string[]): Promise<void> {
    const space = sqlString(first.space);
    const keyed = `scope = ${sqlString(first.scope)} AND agent_id = ${sqlString(first.agentId)} AND key = ${sqlString(first.key)}`;
    for (const [i, batch] of chunked(ids).entries()) {
      const extra = i === 0 ? `(${keyed}) OR doc_id = ${sqlString(first.docId)} OR ` : '';
      const found = await rows(t.chunks, `space = ${space} AND (${extra}${sqlIn('id', batch)})`, undefined, [
        'id',
        'doc_id',
        'scope',
        'agent_id',
        'key',
      ]);
      const holder = found.find(
        (r) =>
          r.scope === first.scope && r.agent_id === first.agentId && r.key === first.key && r.doc_id !== first.docId,
      );
      if (holder) throw keyTaken(first.key, first.scope, first.agentId, String(holder.doc_id));
      const clash = found[0];
      if (clash) {
        throw new MemError(
          'CONFLICT',
          clash.doc_id === first.docId
            ? `${ADAPTER}: memory ${first.docId} already exists in space ${first.space}.`
            : `${ADAPTER}: a memory chunk with id ${String(clash.id)} already exists in space ${first.space}.`,
        );
      }
    }
  }

  /** Under the lock: refuse chunk ids that another document of the space already uses. */
  async function checkIds(t: Tables, space: string, docId: string, ids: string[]): Promise<void> {
    for (const batch of chunked(ids)) {
      const clash = await rows(
        t.chunks,
        `space = ${sqlString(space)} AND ${sqlIn('id', batch)} AND doc_id <> ${sqlString(docId)}`,
        1,
        ['id'],
      );
      if (clash.length > 0) {
        throw new MemError(
          'CONFLICT',
          `${ADAPTER}: a memory chunk with id ${String(clash[0]!.id)} already exists in space ${space}.`,
        );
      }
    }
  }

  /**
   * Under the lock: write the version row of an edit before the chunks change. Rows left by an edit that never
   * committed (a crash between the two writes) have a version number ≥ the document's; they are removed here and
   * never listed.
   */
  async function writeVersionRow(t: Tables, v: MemoryVersion, storedVersion: number): Promise<void> {
    const stale = `${docPredicate(v.space, v.docId)} AND version >= ${Math.floor(storedVersion)}`;
    if ((await t.versions.countRows(stale)) > 0) await t.versions.delete(stale);
    await t.versions.add([versionToRow(v, Date.now())]);
  }

  async function undoVersionRow(t: Tables, v: MemoryVersion, storedVersion: number): Promise<void> {
    await t.versions
      .delete(`${docPredicate(v.space, v.docId)} AND version >= ${Math.floor(storedVersion)}`)
      .catch(() => undefined);
  }

  async function deleteHistory(t: Tables, space: string, docIds: string[]): Promise<void> {
    for (const batch of chunked(docIds)) {
      const where = `space = ${sqlString(space)} AND ${sqlIn('doc_id', batch)}`;
      await t.versions.delete(where);
      await t.ratings.delete(where);
      await t.access.delete(where);
    }
  }

  // ---------- indexes ----------

  async function refreshIndexInfo(t: Tables): Promise<void> {
    const indices = await t.chunks.listIndices();
    const ann = new Set<string>();
    let fts = false;
    for (const index of indices) {
      const column = index.columns[0] ?? '';
      if (column === FTS_COLUMN && index.indexType === 'FTS') fts = true;
      else if (vectorDimension(column) !== null) ann.add(column);
    }
    annColumns = ann;
    ftsIndexed = fts;
    annCheckedAt = Date.now();
  }

  function vectorIndexConfig(dimension: number, rowsNow: number): lancedb.Index {
    if (annType === 'IVF_HNSW_SQ') {
      return lancedb.Index.hnswSq({
        distanceType: 'cosine',
        numPartitions: Math.max(1, Math.round(rowsNow / 100_000)),
      });
    }
    return lancedb.Index.ivfPq({
      distanceType: 'cosine',
      numPartitions: Math.max(1, Math.min(Math.round(Math.sqrt(rowsNow)), Math.floor(rowsNow / 256))),
      numSubVectors: subVectors(dimension),
    });
  }

  /** Build the ANN index of every vector column that reached `minRows`; returns the columns indexed. */
  async function buildVectorIndexes(t: Tables): Promise<string[]> {
    if (annType === 'none') return [];
    if ((await t.chunks.countRows()) < minRows) return [];
    // Another process may have built it meanwhile: never rebuild an index that exists.
    await refreshIndexInfo(t);
    const created: string[] = [];
    for (const column of await vectorColumns(t)) {
      if (annColumns.has(column)) continue;
      const n = await t.chunks.countRows(`${column} IS NOT NULL`);
      if (n < minRows) continue;
      await t.chunks.createIndex(column, { config: vectorIndexConfig(vectorDimension(column)!, n), replace: true });
      created.push(column);
    }
    if (created.length > 0) await refreshIndexInfo(t);
    return created;
  }

  async function rebuildFts(t: Tables): Promise<void> {
    await t.chunks.createIndex(FTS_COLUMN, {
      // Stop words stay searchable (the core already drops them from queries unless nothing else is left).
      config: lancedb.Index.fts({
        withPosition: false,
        stem: true,
        lowercase: true,
        asciiFolding: true,
        removeStopWords: false,
      }),
      replace: true,
    });
  }

  async function ensureFtsIndex(t: Tables): Promise<boolean> {
    if (!ftsEnabled || ftsIndexed) return false;
    if ((await t.chunks.countRows()) === 0) return false;
    await rebuildFts(t);
    await refreshIndexInfo(t);
    return true;
  }

  /**
   * After a write that changed chunk rows. LanceDB searches rows its full-text index has not seen with a flat
   * scan scored by the index's statistics: close to the real BM25 when those rows are a small share of a large
   * index, poor (rows can even be missed) when they are not. So: a small table gets its full-text index rebuilt
   * (cheap there, always exact); a larger one folds new rows in with `optimize` once they reach
   * `maxUnindexedFraction`, or once appends left more than `maxFragments` fragments (every commit adds one, and
   * reads slow down with their number). Finally the ANN index is built once a vector column reaches `minRows`.
   */
  async function maintainAfterWrite(t: Tables): Promise<void> {
    if (!ftsIndexed) await refreshIndexInfo(t);
    let optimized = false;
    if (!(await ensureFtsIndex(t)) && ftsEnabled && ftsIndexed) {
      const s = await t.chunks.indexStats(`${FTS_COLUMN}_idx`);
      if (s && s.numUnindexedRows > 0) {
        if (s.numIndexedRows + s.numUnindexedRows <= ftsRebuildBelowRows) await rebuildFts(t);
        else if (s.numUnindexedRows >= maxUnindexedFraction * s.numIndexedRows) {
          await t.chunks.optimize();
          optimized = true;
        }
      }
    }
    if (!optimized && (await t.chunks.stats()).fragmentStats.numFragments > maxFragments) await t.chunks.optimize();
    await buildVectorIndexes(t);
  }

  // ---------- the port ----------

  const store: LanceKnowledgeStore = {
    name: ADAPTER,
    capabilities,

    async ready() {
      try {
        await ready();
      } catch (error) {
        throw wrapStoreError(ADAPTER, error, `opening ${uri}`);
      }
    },

    insertDocument(chunks) {
      const first = chunks[0];
      if (!first) return read('insertDocument', async () => undefined);
      return write(
        'insertDocument',
        async (t) => {
          await checkNewDocument(
            t,
            first,
            chunks.map((c) => c.id),
          );
          const columns = await ensureVectorColumns(
            t,
            chunks.flatMap((c) => (c.embedding ? [c.embedding.length] : [])),
          );
          // One append = one LanceDB commit: readers see every chunk of the document or none.
          await t.chunks.add(
            chunks.map((c) =>
              recordToRow(c, columns, {
                accessCount: c.accessCount,
                lastAccessedAt: c.lastAccessedAt,
                alpha: c.alpha,
                beta: c.beta,
                version: c.version,
              }),
            ),
          );
        },
        true,
      );
    },

    replaceDocument(space, docId, chunks, version, expectedVersion) {
      return write(
        'replaceDocument',
        async (t) => {
          const stored = await checkVersion(t, space, docId, expectedVersion);
          const first = chunks[0];
          if (first) {
            const holder = await keyHolder(t, space, first.scope, first.agentId, first.key, docId);
            if (holder) throw keyTaken(first.key, first.scope, first.agentId, holder);
            await checkIds(
              t,
              space,
              docId,
              chunks.map((c) => c.id),
            );
          }
          const columns = await ensureVectorColumns(
            t,
            chunks.flatMap((c) => (c.embedding ? [c.embedding.length] : [])),
          );
          // Counters stay with the document: its stored base plus its access and ratings rows (untouched here).
          const data = chunks.map((c) => recordToRow(c, columns, { ...stored.base, version: stored.version + 1 }));
          await writeVersionRow(t, version, stored.version);
          try {
            // One merge-insert = one commit: update chunks that keep their id, insert new ones, delete the rest.
            await t.chunks
              .mergeInsert(['space', 'id'])
              .whenMatchedUpdateAll()
              .whenNotMatchedInsertAll()
              .whenNotMatchedBySourceDelete({ where: docPredicate(space, docId) })
              .execute(data);
          } catch (error) {
            await undoVersionRow(t, version, stored.version);
            throw error;
          }
        },
        true,
      );
    },

    moveDocument(space, docId, change, version, expectedVersion) {
      return write(
        'moveDocument',
        async (t) => {
          const stored = await checkVersion(t, space, docId, expectedVersion);
          const holder = await keyHolder(t, space, stored.scope, stored.agentId, change.newKey, docId);
          if (holder) throw keyTaken(change.newKey, stored.scope, stored.agentId, holder);
          const values: Record<string, string> = {
            key: sqlString(change.newKey),
            updated_at: sqlString(change.updatedAt),
            version: 'version + 1',
          };
          if (change.expiresAt !== undefined)
            values.expires_at = change.expiresAt === null ? 'NULL' : sqlString(change.expiresAt);
          await writeVersionRow(t, version, stored.version);
          try {
            // One update = one commit: every chunk moves together.
            await t.chunks.update({ where: docPredicate(space, docId), valuesSql: values });
          } catch (error) {
            await undoVersionRow(t, version, stored.version);
            throw error;
          }
        },
        true,
      );
    },

    deleteDocument(space, docId) {
      return write(
        'deleteDocument',
        async (t) => {
          const { numDeletedRows } = await t.chunks.delete(docPredicate(space, docId));
          await deleteHistory(t, space, [docId]);
          return numDeletedRows;
        },
        true,
      );
    },

    getChunk(space, id) {
      return read('getChunk', async (t) => {
        const found = await rows(t.chunks, `space = ${sqlString(space)} AND id = ${sqlString(id)}`, 1);
        const [rec] = await toRecords(t, found);
        return rec ?? null;
      });
    },

    getDocument(space, docId) {
      return read('getDocument', async (t) => {
        const found = await rows(t.chunks, docPredicate(space, docId));
        const recs = await toRecords(t, found);
        return recs.sort((a, b) => a.chunkIndex - b.chunkIndex);
      });
    },

    getChunks(space, ids) {
      return read('getChunks', async (t) => {
        const unique = [...new Set(ids)];
        const found: Row[] = [];
        for (const batch of chunked(unique))
          found.push(...(await rows(t.chunks, `space = ${sqlString(space)} AND ${sqlIn('id', batch)}`)));
        const byId = new Map((await toRecords(t, found)).map((r) => [r.id, r]));
        return unique.flatMap((id) => {
          const rec = byId.get(id);
          return rec ? [rec] : [];
        });
      });
    },

    findDocIdByKey(space, scope, agentId, key) {
      return read('findDocIdByKey', async (t) => {
        const found = await rows(
          t.chunks,
          `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND key = ${sqlString(key)}`,
          1,
          ['doc_id'],
        );
        return found[0] ? String(found[0].doc_id) : null;
      });
    },

    findDocIdByHash(space, scope, agentId, contentHash) {
      return read('findDocIdByHash', async (t) => {
        const found = await t.chunks
          .query()
          .where(
            `space = ${sqlString(space)} AND scope = ${sqlString(scope)} AND agent_id = ${sqlString(agentId)} AND content_hash = ${sqlString(contentHash)}`,
          )
          .select(['doc_id'])
          .orderBy([
            { columnName: 'created_at', ascending: true },
            { columnName: 'id', ascending: true },
          ])
          .limit(1)
          .toArray();
        return found[0] ? String((found[0] as Row).doc_id) : null;
      });
    },

    keywordSearch(query: KeywordQuery): Promise<KeywordHit[]> {
      return read('keywordSearch', async (t) => {
        const text = matchText(query.terms);
        const limit = Math.floor(query.limit);
        if (!ftsEnabled || text === null || !(limit > 0)) return [];
        const found = (await t.chunks
          .query()
          .fullTextSearch(new lancedb.MatchQuery(text, FTS_COLUMN, { operator: lancedb.Operator.Or, fuzziness: 0 }))
          .where(filterPredicate(query.filter))
          .select(['id', '_score'])
          .limit(limit)
          .toArray()) as Row[];
        const hits = found.map((r) => ({ id: String(r.id), score: Number(r._score) }));
        // Best first, ties by id (stable across engines and runs).
        hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        return hits;
      });
    },

    vectorSearch(query: VectorQuery): Promise<VectorHit[]> {
      return read('vectorSearch', async (t) => {
        const limit = Math.floor(query.limit);
        const dims = query.vector.length;
        if (dims === 0 || !(limit > 0)) return [];
        const column = vectorColumn(dims);
        if (!(await vectorColumns(t)).includes(column)) return [];
        if (Date.now() - annCheckedAt > 5_000) await refreshIndexInfo(t);
        // Rows without a vector in this column are skipped by the search itself (their distance is null). Saying
        // `IS NOT NULL` here would make LanceDB read the whole vector column to prefilter: ten times slower.
        const where = filterPredicate(query.filter);
        const search = async (exact: boolean) => {
          let q = t.chunks
            .vectorSearch(query.vector)
            .column(column)
            .distanceType('cosine')
            .where(where)
            .select(['id', '_distance'])
            .limit(limit);
          if (exact) q = q.bypassVectorIndex();
          else q = q.nprobes(nprobes).refineFactor(refineFactor);
          return ((await q.toArray()) as Row[]).map((r) => ({
            id: String(r.id),
            similarity: clampSimilarity(1 - Number(r._distance)),
          }));
        };
        const indexed = annColumns.has(column);
        let hits = await search(!indexed);
        // A narrow filter can leave the probed partitions short of `limit` rows: then the filtered rows are few,
        // and an exact scan over them is both cheap and complete.
        if (indexed && hits.length < limit) hits = await search(true);
        hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        return hits;
      });
    },

    recordAccess(space, docId, at) {
      return write('recordAccess', async (t) => {
        // Counted in the access table (one small row per document), so that reads never rewrite chunk rows.
        const [current] = await rows(t.access, docPredicate(space, docId), 1, ['count', 'last_at']);
        const last = current && String(current.last_at) > at ? String(current.last_at) : at;
        await t.access
          .mergeInsert(['space', 'doc_id'])
          .whenMatchedUpdateAll()
          .whenNotMatchedInsertAll()
          .execute([{ space, doc_id: docId, count: (current ? Number(current.count) : 0) + 1, last_at: last }]);
      });
    },

    addRating(rating: Rating) {
      return write('addRating', async (t) => {
        const doc = await rows(t.chunks, docPredicate(rating.space, rating.docId), 1, ['id']);
        if (doc.length === 0) throw notFound(rating.space, rating.docId, 'memory to rate:');
        const taken = await t.ratings.countRows(
          `${docPredicate(rating.space, rating.docId)} AND task_id = ${sqlString(rating.taskId)}`,
        );
        if (taken > 0) {
          throw new MemError(
            'ALREADY_RATED',
            `Memory ${rating.docId} was already rated in task ${rating.taskId}; a memory counts once per task.`,
            { details: { docId: rating.docId, taskId: rating.taskId } },
          );
        }
        // One append: the rating and its effect on alpha/beta (computed from the ratings on read) land together.
        await t.ratings.add([ratingToRow(rating)]);
      });
    },

    listVersions(space, docId) {
      return read('listVersions', async (t) => {
        const current = await rows(t.chunks, docPredicate(space, docId), 1, ['version']);
        if (current.length === 0) return [];
        const docVersion = Number(current[0]!.version);
        const found = await rows(t.versions, `${docPredicate(space, docId)} AND version < ${docVersion}`);
        // One row per version number: the last written wins (an earlier one is a leftover of a failed attempt).
        const byVersion = new Map<number, Row>();
        for (const r of found) {
          const prev = byVersion.get(Number(r.version));
          if (!prev || Number(r.written_ms) >= Number(prev.written_ms)) byVersion.set(Number(r.version), r);
        }
        return [...byVersion.values()].map(rowToVersion).sort((a, b) => a.version - b.version);
      });
    },

    deleteExpired(now, space) {
      return write(
        'deleteExpired',
        async (t) => {
          const where = `expires_at IS NOT NULL AND expires_at <= ${sqlString(now)}${space === undefined ? '' : ` AND space = ${sqlString(space)}`}`;
          const doomed = await rows(t.chunks, where, undefined, ['space', 'doc_id']);
          if (doomed.length === 0) return 0;
          const { numDeletedRows } = await t.chunks.delete(where);
          const bySpace = new Map<string, Set<string>>();
          for (const r of doomed) {
            const set = bySpace.get(String(r.space)) ?? new Set<string>();
            set.add(String(r.doc_id));
            bySpace.set(String(r.space), set);
          }
          for (const [s, ids] of bySpace) await deleteHistory(t, s, [...ids]);
          return numDeletedRows;
        },
        true,
      );
    },

    scan(options: ScanOptions) {
      return read('scan', async (t) => {
        const limit = Math.floor(options.limit);
        if (!(limit > 0)) return [];
        const where: string[] = [];
        if (options.space !== undefined) where.push(`space = ${sqlString(options.space)}`);
        if (options.after !== undefined) {
          const c = sqlString(options.after.createdAt);
          where.push(`(created_at > ${c} OR (created_at = ${c} AND id > ${sqlString(options.after.id)}))`);
        }
        let q = t.chunks.query();
        if (where.length > 0) q = q.where(where.join(' AND '));
        const found = (await q
          .orderBy([
            { columnName: 'created_at', ascending: true },
            { columnName: 'id', ascending: true },
          ])
          .limit(limit)
          .toArray()) as Row[];
        return toRecords(t, found);
      });
    },

    updateEmbeddings(updates, info) {
      return write(
        'updateEmbeddings',
        async (t) => {
          if (updates.length > 0) {
            const columns = await ensureVectorColumns(
              t,
              updates.map((u) => u.embedding.length),
            );
            const byId = new Map(updates.map((u) => [u.id, u.embedding]));
            const data: Row[] = [];
            for (const batch of chunked([...byId.keys()])) {
              for (const row of await rows(t.chunks, sqlIn('id', batch))) {
                const rec = rowToRecord(row);
                rec.embedding = byId.get(rec.id) ?? rec.embedding;
                rec.embeddingModel = info.model;
                data.push(recordToRow(rec, columns, { ...baseOf(row), version: rec.version }));
              }
            }
            // One commit for the batch; every other vector column of these rows is cleared.
            if (data.length > 0) await t.chunks.mergeInsert(['space', 'id']).whenMatchedUpdateAll().execute(data);
          }
          await metaPut(t, { [META_MODEL]: info.model, [META_DIMENSION]: String(info.dimension) });
        },
        true,
      );
    },

    /** Documents and chunks of a space; `bySource` / `byScope` count documents. */
    stats(space): Promise<KnowledgeStats> {
      return read('stats', async (t) => {
        const chunks = await t.chunks.countRows(`space = ${sqlString(space)}`);
        const docs = await rows(t.chunks, `space = ${sqlString(space)} AND chunk_index = 0`, undefined, [
          'source',
          'scope',
        ]);
        const bySource: Record<string, number> = {};
        const byScope: Record<string, number> = {};
        for (const r of docs) {
          bySource[String(r.source)] = (bySource[String(r.source)] ?? 0) + 1;
          byScope[String(r.scope)] = (byScope[String(r.scope)] ?? 0) + 1;
        }
        return { documents: docs.length, chunks, bySource, byScope };
      });
    },

    getEmbeddingInfo() {
      return read('getEmbeddingInfo', async (t) => {
        const found = await rows(t.meta, sqlIn('key', [META_MODEL, META_DIMENSION]));
        const value = (key: string) => found.find((r) => r.key === key)?.value;
        const model = value(META_MODEL) === undefined ? null : String(value(META_MODEL));
        const dimension = Number(value(META_DIMENSION));
        if (model === null || !Number.isFinite(dimension) || dimension <= 0) return null;
        return { model, dimension } satisfies EmbeddingInfo;
      });
    },

    setEmbeddingInfo(info) {
      return write('setEmbeddingInfo', async (t) => {
        await metaPut(t, { [META_MODEL]: info.model, [META_DIMENSION]: String(info.dimension) });
      });
    },

    optimize(opts = {}) {
      return write('optimize', async (t) => {
        const report: LanceOptimizeReport = {
          compaction: {},
          prunedVersions: {},
          indexesCreated: [],
          droppedVectorColumns: [],
        };
        for (const column of await vectorColumns(t)) {
          if ((await t.chunks.countRows(`${column} IS NOT NULL`)) > 0) continue;
          if (annColumns.has(column)) await t.chunks.dropIndex(`${column}_idx`).catch(() => undefined);
          await t.chunks.dropColumns([column]);
          report.droppedVectorColumns.push(column);
        }
        if (report.droppedVectorColumns.length > 0) await refreshIndexInfo(t);
        if (await ensureFtsIndex(t)) report.indexesCreated.push(`${FTS_COLUMN}_idx`);
        const tablesToOptimize: [string, lancedb.Table][] = [
          [names.chunks, t.chunks],
          [names.versions, t.versions],
          [names.ratings, t.ratings],
          [names.meta, t.meta],
          [names.access, t.access],
        ];
        for (const [name, table] of tablesToOptimize) {
          const s = await table.optimize(opts.cleanupOlderThan ? { cleanupOlderThan: opts.cleanupOlderThan } : {});
          report.compaction[name] = {
            fragmentsRemoved: s.compaction.fragmentsRemoved,
            fragmentsAdded: s.compaction.fragmentsAdded,
          };
          report.prunedVersions[name] = s.prune.oldVersionsRemoved;
        }
        report.indexesCreated.push(...(await buildVectorIndexes(t)).map((c) => `${c}_idx`));
        await refreshIndexInfo(t);
        return report;
      });
    },

    indexState() {
      return read('indexState', async (t) => {
        await refreshIndexInfo(t);
        let fts: LanceIndexState['fts'] = null;
        const vector: LanceIndexState['vector'] = {};
        for (const index of await t.chunks.listIndices()) {
          const s = await t.chunks.indexStats(index.name);
          if (!s) continue;
          const column = index.columns[0] ?? '';
          if (column === FTS_COLUMN) fts = { indexedRows: s.numIndexedRows, unindexedRows: s.numUnindexedRows };
          else if (vectorDimension(column) !== null)
            vector[column] = {
              type: index.indexType,
              indexedRows: s.numIndexedRows,
              unindexedRows: s.numUnindexedRows,
            };
        }
        return { fts, vector };
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...pending]);
      const t = tables ?? (opening ? await opening.catch(() => null) : null);
      tables = null;
      opening = null;
      if (!t) return;
      try {
        for (const table of [t.chunks, t.versions, t.ratings, t.meta, t.access]) table.close();
        t.conn.close();
      } catch (error) {
        throw wrapStoreError(ADAPTER, error, 'close');
      }
    },
  };
  return store;
}
