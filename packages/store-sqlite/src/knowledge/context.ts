import { MemError } from '@mem/core';
import type { Database, Statement } from 'better-sqlite3';
import { ADAPTER, loadVectorExtension, openDatabase, toStoreError, withBusyRetry } from '../database.js';
import { checkIndexOptionNames } from '../index-options.js';
import { createKeywordIndex, ensureKeywordIndexSchema, type KeywordIndex } from '../keyword/index.js';
import { syncFts } from '../migrations/knowledge.js';
import { type MigrationResult, runMigrations, schemaVersion } from '../migrations.js';
import { ensureFilterIndex } from '../search-indexes.js';
import {
  createVectorIndex,
  resolveVectorIndexOptions,
  type VectorIndex,
  type VectorIndexOptions,
} from '../vector-index.js';
import { ensureVectorIndexSchema } from '../vector-schema.js';

/** Schema version the knowledge tables need. */
const KNOWLEDGE_SCHEMA = 8;
/** Default memory for the keyword index's decoded posting lists, per connection. */
const DEFAULT_KEYWORD_CACHE_MIB = 256;

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
  index?: {
    vector?: VectorIndexOptions;
    /**
     * `pruned` (default): the keyword arm reads per-term posting blocks kept in the file and scores them with
     * MaxScore, the same BM25 as FTS5's bm25(); `fts5`: FTS5 scores every matching row (the index is still kept up
     * to date, so that other connections can use it).
     */
    keyword?: {
      type?: 'pruned' | 'fts5';
      /**
       * Decoded posting lists kept in memory by the connection, in MiB (default 256; 0: none). Own writes drop the
       * terms they touch, another connection's commit drops all, so a search never reads a stale posting.
       */
      cacheMiB?: number;
    };
  };
}

/**
 * What every role of the SQLite knowledge store shares: the connection, its statement cache, the schema check done
 * once before the first call, the run and transaction wrappers that map driver errors, and the vector index.
 */
export interface SqliteKnowledgeContext {
  readonly db: Database;
  readonly path: string;
  /** True when sqlite-vec loaded. */
  readonly nativeVector: boolean;
  /** The approximate vector index, set up by the first call (null without sqlite-vec or with `type: 'none'`). */
  readonly vectorIndex: VectorIndex | null;
  /** True when the filter index of the keyword arm exists (set up by the first call). */
  readonly filterIndex: boolean;
  /** The pruned keyword index, set up by the first call (null when the file cannot take it, e.g. read-only). */
  readonly keywordIndex: KeywordIndex | null;
  /** True when the keyword arm may search with the pruned index (`index.keyword.type` is not 'fts5'). */
  readonly prunedKeyword: boolean;
  /** A prepared statement, prepared once per SQL text. */
  stmt(sql: string): Statement;
  /** Run a read or a single-statement write; map driver errors. */
  run<T>(what: string, fn: () => T): Promise<T>;
  /** Index in FTS5 the rows written since it last answered, before an FTS5 search (a write of its own when any). */
  catchUpFts(): void;
  /** Run `fn` in a BEGIN IMMEDIATE transaction (retried on SQLITE_BUSY); map driver errors. */
  write<T>(what: string, fn: () => T, mapError?: (error: unknown) => MemError | null): Promise<T>;
  /** True when the approximate vector index is trained. */
  indexTrained(): boolean;
  migrate(): Promise<MigrationResult>;
  close(): Promise<void>;
}

/** The kind of unique constraint a driver error broke, or null for any other error. */
export function constraintKind(error: unknown): 'key' | 'id' | 'rating' | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return null;
  const message = error instanceof Error ? error.message : '';
  if (message.includes('chunks.key')) return 'key';
  if (message.includes('chunks.id')) return 'id';
  if (message.includes('ratings.')) return 'rating';
  return null;
}

/** Open the file (and migrate it unless `autoMigrate: false`); the roles of the store run on what this returns. */
export function createSqliteContext(options: SqliteStoreOptions): SqliteKnowledgeContext {
  const { path } = options;
  const { busyTimeoutMs, cacheSizeKiB, mmapSizeBytes } = options;
  let vectorOptions: ReturnType<typeof resolveVectorIndexOptions>;
  const keywordType = options.index?.keyword?.type ?? 'pruned';
  const keywordCacheMiB = options.index?.keyword?.cacheMiB ?? DEFAULT_KEYWORD_CACHE_MIB;
  // Options are checked before the file is opened: a refused option creates nothing.
  try {
    checkIndexOptionNames(options.index);
    vectorOptions = resolveVectorIndexOptions(options.index?.vector);
    if (keywordType !== 'pruned' && keywordType !== 'fts5')
      throw new Error(`index.keyword.type must be 'pruned' or 'fts5' (got ${JSON.stringify(keywordType)})`);
    if (typeof keywordCacheMiB !== 'number' || !Number.isFinite(keywordCacheMiB) || keywordCacheMiB < 0)
      throw new Error(
        `index.keyword.cacheMiB must be a finite number of MiB >= 0 (got ${JSON.stringify(keywordCacheMiB)}); 0 turns the cache off`,
      );
  } catch (error) {
    throw new MemError('INVALID_INPUT', `${ADAPTER}: ${(error as Error).message}.`);
  }
  const db = openDatabase(path, { busyTimeoutMs, cacheSizeKiB, mmapSizeBytes });
  let nativeVector: boolean;
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
  let keywordIndex: KeywordIndex | null = null;

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
    if (keywordIndex === null) {
      try {
        withBusyRetry(() => ensureKeywordIndexSchema(db));
        keywordIndex = createKeywordIndex(db, stmt, { cacheBytes: Math.floor(keywordCacheMiB * 1024 * 1024) });
      } catch {
        // A read-only file: search keeps FTS5 alone.
        keywordIndex = null;
      }
    }
    if (nativeVector && vectorOptions.type === 'ivf' && vectorIndex === null) {
      withBusyRetry(() => ensureVectorIndexSchema(db));
      vectorIndex = createVectorIndex(db, stmt, vectorOptions);
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
        return db
          .transaction(() => {
            const out = fn();
            // The keyword index catches up with this write (and any logged by other programs) before it commits.
            keywordIndex?.flush();
            return out;
          })
          .immediate();
      } catch (error) {
        const mapped = mapError?.(error);
        if (mapped) throw mapped;
        throw error;
      }
    });
  }

  function catchUpFts(): void {
    if (!stmt('SELECT 1 FROM fts_pending LIMIT 1').get()) return;
    withBusyRetry(() => db.transaction(() => syncFts(db)).immediate());
  }

  function indexTrained(): boolean {
    try {
      ready();
    } catch {
      return false;
    }
    return vectorIndex?.trained() ?? false;
  }

  return {
    db,
    path,
    nativeVector,
    get vectorIndex() {
      return vectorIndex;
    },
    get filterIndex() {
      return filterIndex;
    },
    get keywordIndex() {
      return keywordIndex;
    },
    prunedKeyword: keywordType === 'pruned',
    stmt,
    run,
    catchUpFts,
    write,
    indexTrained,

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
}
