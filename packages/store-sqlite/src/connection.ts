/**
 * One better-sqlite3 connection shared by several ports of the same file, with a reference count: each factory
 * takes a lease, `close()` gives it back, and the connection closes when the last lease of a connection this
 * package opened goes. A connection handed in by the caller (`{ db }`) is never closed here: its owner closes it.
 */
import { MemError } from '@mem/core';
import type { Eraser } from '@mem/core/adapter';
import type { Database, Statement } from 'better-sqlite3';
import {
  ADAPTER,
  loadVectorExtension,
  type OpenDatabaseOptions,
  openDatabase,
  toStoreError,
  withBusyRetry,
} from './database.js';
import { sqliteEraser } from './erase.js';
import { type MigrationResult, runMigrations } from './migrations.js';

/** Where the ports live: a database file (opened here) or an open better-sqlite3 connection (shared, not owned). */
export type SqliteSource = { path: string; db?: undefined } | { db: Database; path?: undefined };

export interface SqliteConnectionOptions extends OpenDatabaseOptions {
  /** Apply pending schema migrations on open. Default true; when false call `migrate()` yourself. */
  autoMigrate?: boolean;
  /**
   * Use sqlite-vec for the vector arms. Default true (loaded into the connection when missing); false, or a failed
   * load, computes the same exact cosine in JavaScript over the same rows.
   */
  vectorExtension?: boolean;
}

/** What every SQLite factory of this package takes: `{ path }` or `{ db }`, plus connection options. */
export type SqliteOpenOptions = SqliteSource & SqliteConnectionOptions;

/** What a SQLite store hands back beside its ports. */
export interface SqliteHandle {
  /** The raw better-sqlite3 connection (shareable with other ports of the same file through `{ db }`). */
  readonly db: Database;
  /** True when the vector arms run inside SQLite (sqlite-vec); false when they fall back to JavaScript. */
  readonly nativeVector: boolean;
  /**
   * Erases deleted rows from the file's WAL (`forget`): one target per file, whichever store opened it; undefined for
   * an in-memory database.
   */
  readonly eraser?: Eraser | undefined;
  /** Apply pending schema migrations (idempotent; safe when several processes open the file at once). */
  migrate(): Promise<MigrationResult>;
  /**
   * Give this store's lease on the connection back. The connection closes with its last lease when this package
   * opened it (`{ path }`); a connection passed as `{ db }` stays open. Calling it twice is harmless.
   */
  close(): Promise<void>;
}

interface SharedConnection {
  readonly db: Database;
  readonly owned: boolean;
  refs: number;
  readonly statements: Map<string, Statement>;
  vector: boolean | undefined;
  readonly migrated: Set<number>;
  readonly eraser: Eraser | undefined;
}

const connections = new WeakMap<Database, SharedConnection>();

function hasVectorFunctions(db: Database): boolean {
  try {
    db.prepare('SELECT vec_version()').get();
    return true;
  } catch {
    return false;
  }
}

function hasMigration(db: Database, version: number): boolean {
  const table = db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!table) return false;
  return db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(version) !== undefined;
}

/** Is this a SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY error (optionally naming `index` or `table.column`)? */
export function isUniqueViolation(error: unknown, mentions?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
  return mentions === undefined || (error instanceof Error && error.message.includes(mentions));
}

/**
 * A rows count for SQL `LIMIT`: null when nothing is wanted (0, negative, NaN); -1 (no limit) for +Infinity;
 * else the integer part.
 */
export function sqlLimit(limit: number | undefined): number | null {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return -1;
  const n = Math.floor(limit);
  return n > 0 ? n : null;
}

/** A lease on a shared connection, with the helpers every port of this package uses. */
export class SqliteLease {
  readonly db: Database;
  readonly label: string;
  readonly nativeVector: boolean;
  private readonly shared: SharedConnection;
  private readonly schemaVersion: number;
  private closed = false;
  private schemaChecked = false;

  constructor(shared: SharedConnection, schemaVersion: number, nativeVector: boolean) {
    this.shared = shared;
    this.db = shared.db;
    this.label = shared.db.name;
    this.schemaVersion = schemaVersion;
    this.nativeVector = nativeVector;
  }

  /** A prepared statement, cached per connection. */
  stmt(sql: string): Statement {
    let s = this.shared.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.shared.statements.set(sql, s);
    }
    return s;
  }

  private ready(): void {
    if (this.closed || !this.db.open)
      throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${this.label} is closed; create a new one.`);
    if (this.schemaChecked) return;
    if (!this.shared.migrated.has(this.schemaVersion)) {
      if (!hasMigration(this.db, this.schemaVersion)) {
        throw new MemError(
          'STORE_UNAVAILABLE',
          `${ADAPTER}: ${this.label} lacks schema step ${this.schemaVersion}, which these stores need. Call migrate() (or open it with autoMigrate: true).`,
        );
      }
      this.shared.migrated.add(this.schemaVersion);
    }
    this.schemaChecked = true;
  }

  /**
   * Run a read or a single-statement write (retried on SQLITE_BUSY). `mapError` may turn a driver error into a
   * MemError; anything else becomes STORE_UNAVAILABLE prefixed `sqlite:`.
   */
  run<T>(what: string, fn: () => T, mapError?: (error: unknown) => MemError | null): Promise<T> {
    try {
      this.ready();
      return Promise.resolve(
        withBusyRetry(() => {
          try {
            return fn();
          } catch (error) {
            const mapped = mapError?.(error);
            throw mapped ?? error;
          }
        }),
      );
    } catch (error) {
      return Promise.reject(toStoreError(error, what, this.label));
    }
  }

  /** Run `fn` in one BEGIN IMMEDIATE transaction (the whole transaction retried on SQLITE_BUSY). */
  write<T>(what: string, fn: () => T, mapError?: (error: unknown) => MemError | null): Promise<T> {
    return this.run(what, () => this.db.transaction(fn).immediate(), mapError);
  }

  migrate(): Promise<MigrationResult> {
    try {
      if (this.closed || !this.db.open)
        throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${this.label} is closed; create a new one.`);
      const result = runMigrations(this.db);
      this.schemaChecked = false;
      return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(toStoreError(error, `migrating ${this.label}`, this.label));
    }
  }

  /** Give the lease back; closes the connection with its last lease when this package opened it. */
  release(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    const shared = this.shared;
    shared.refs -= 1;
    if (shared.refs > 0) return Promise.resolve();
    connections.delete(shared.db);
    shared.statements.clear();
    if (!shared.owned || !shared.db.open) return Promise.resolve();
    try {
      shared.db.close();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(toStoreError(error, 'close', this.label));
    }
  }

  /** The `SqliteHandle` members every factory exposes, bound to this lease. */
  handle(): SqliteHandle {
    return {
      db: this.db,
      nativeVector: this.nativeVector,
      eraser: this.shared.eraser,
      migrate: () => this.migrate(),
      close: () => this.release(),
    };
  }
}

/**
 * Take a lease on the connection `options` names: a new connection for `{ path }` (owned, closed with its last
 * lease), or the caller's `{ db }` (counted, never closed here). Loads sqlite-vec when wanted and runs the
 * migrations unless `autoMigrate` is false. `schemaVersion` is the migration step the caller's tables come from.
 */
export function acquireConnection(options: SqliteOpenOptions, schemaVersion: number): SqliteLease {
  let db: Database;
  let owned: boolean;
  if (options.db !== undefined) {
    db = options.db;
    owned = false;
    if (!db.open)
      throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the connection to ${db.name} is closed; open a new one.`);
  } else if (typeof options.path === 'string') {
    const { busyTimeoutMs, cacheSizeKiB, mmapSizeBytes } = options;
    db = openDatabase(options.path, { busyTimeoutMs, cacheSizeKiB, mmapSizeBytes });
    owned = true;
  } else {
    throw new MemError('INVALID_INPUT', `${ADAPTER}: pass { path } (a database file) or { db } (an open connection).`);
  }
  let shared = connections.get(db);
  if (shared === undefined) {
    shared = {
      db,
      owned,
      refs: 0,
      statements: new Map(),
      vector: undefined,
      migrated: new Set(),
      eraser: sqliteEraser(db),
    };
    connections.set(db, shared);
  }
  shared.refs += 1;
  let nativeVector = false;
  const lease = (): SqliteLease => new SqliteLease(shared, schemaVersion, nativeVector);
  try {
    if (options.vectorExtension !== false) {
      shared.vector ??= hasVectorFunctions(db) || loadVectorExtension(db);
      nativeVector = shared.vector;
    }
    if (options.autoMigrate ?? true) runMigrations(db);
  } catch (error) {
    void lease().release();
    throw toStoreError(error, `migrating ${db.name}`, db.name);
  }
  return lease();
}
