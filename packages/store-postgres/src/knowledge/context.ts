import { MemError } from '@mem/core';
import { ADAPTER, type ClientOptions, exec, type Sql, type TransactionSql, toStoreError } from '../connection.js';
import { knowledgeMigrations, type MigrationResult, runMigrations } from '../migrations.js';
import type { QueryContext } from '../queries.js';
import { createRuntime, openConnection } from '../runtime.js';

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
 * What every role of the PostgreSQL knowledge store shares: the client, the schema (quoted as `s`), the check of the
 * schema version and of pgvector done once before the first call, the run wrapper that maps driver errors, the
 * document lock, and the HNSW settings.
 */
export interface PgKnowledgeContext {
  readonly sql: Sql;
  /** The schema holding the tables, unquoted. */
  readonly schemaName: string;
  /** The schema, quoted for SQL text. */
  readonly s: string;
  /** Where the client points (for messages; no password). */
  readonly target: string;
  readonly hnswM: number;
  readonly hnswEfConstruction: number;
  readonly hnswEfSearch: number;
  /** True when pgvector has `hnsw.iterative_scan` (0.8+); known after the first call. */
  readonly iterativeScan: boolean;
  /** The quoted schema of the pgvector extension; known after the first call. */
  v(): string;
  /** The schemas the query builders of queries.ts need. */
  queryContext(): QueryContext;
  /** Check once (until it succeeds) that the schema is migrated and pgvector is there, then run `fn`; map errors. */
  run<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** Serialise writers of one document (replace, move, delete) for the rest of the transaction. */
  lockDocument(tx: TransactionSql, space: string, docId: string): Promise<void>;
  migrate(): Promise<MigrationResult>;
  /** Connect (and migrate unless `autoMigrate: false`); closes an owned client and throws when that fails. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The shared part of the store, on the package's connection and port runtime; `open()` makes the first round trip. */
export function createPgContext(options: PostgresStoreOptions): PgKnowledgeContext {
  const hnswM = positiveInteger('hnsw.m', options.hnsw?.m, 16, 100);
  const hnswEfConstruction = positiveInteger('hnsw.efConstruction', options.hnsw?.efConstruction, 64, 1000);
  const hnswEfSearch = positiveInteger('hnsw.efSearch', options.hnsw?.efSearch, 100, 1000);
  const conn = openConnection(options);
  const rt = createRuntime(conn, [knowledgeMigrations], 'store', conn.owned);
  const { sql, schema: schemaName, s, target } = conn;
  const queryContext = (): QueryContext => ({ schema: s, vectorSchema: rt.vectorSchema() });

  return {
    sql,
    schemaName,
    s,
    target,
    hnswM,
    hnswEfConstruction,
    hnswEfSearch,
    // hnsw.iterative_scan (pgvector 0.8+) keeps scanning the graph until enough rows pass the filters.
    get iterativeScan() {
      return versionAtLeast(rt.vectorVersion(), 0, 8);
    },
    v: () => rt.vectorSchema(),
    queryContext,
    run: (what, fn) => rt.run(what, fn),

    /** Serialise writers of one document (replace, move, delete) for the rest of the transaction. */
    async lockDocument(tx: TransactionSql, space: string, docId: string): Promise<void> {
      const lockKey = `${schemaName}|${space.length}|${space}|${docId}`;
      await exec(tx, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
    },

    migrate: () => rt.migrate(),

    async open() {
      try {
        // Fail fast on a wrong URL, a server that is down or a missing extension: one round trip.
        await exec(sql, 'SELECT 1');
        if (options.autoMigrate ?? true) {
          await runMigrations(sql, { schema: schemaName, ports: [knowledgeMigrations], target });
          await rt.ready();
        }
      } catch (error) {
        await rt.close().catch(() => undefined);
        throw toStoreError(error, 'opening the store', target);
      }
    },

    close: () => rt.close(),
  };
}
