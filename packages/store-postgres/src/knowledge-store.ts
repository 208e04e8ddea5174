import { type Eraser, type KnowledgeStore, knowledgeStoreOf } from '@mem/core/adapter';
import type { Sql } from './connection.js';
import { postgresEraser } from './erase.js';
import { createPgContext, type PostgresStoreOptions } from './knowledge/context.js';
import * as roles from './knowledge/roles.js';
import type { MigrationResult } from './migrations.js';

export type { HnswOptions, PostgresStoreOptions } from './knowledge/context.js';

export interface PostgresKnowledgeStore extends KnowledgeStore {
  /** Apply pending migrations of the knowledge port (idempotent; safe when several processes start at once). */
  migrate(): Promise<MigrationResult>;
  /** The postgres.js client (share it with the other PostgreSQL ports of the same database). */
  readonly sql: Sql;
  /** The schema holding the tables (unquoted). */
  readonly schema: string;
  /** Erases deleted rows from the server's files (`forget`; see `PostgresHandle.eraser`). */
  readonly eraser: Eraser;
  /** Closes the client only when the store created it from `url`. */
  close(): Promise<void>;
}

/**
 * A `KnowledgeStore` on PostgreSQL through postgres.js: a generated `tsvector` (english) with a GIN index for the
 * keyword arm, pgvector with an HNSW cosine index per embedding dimension for the vector arm.
 * Connects (and, unless `autoMigrate: false`, migrates) before it resolves, so a wrong URL, a server that is down
 * or a missing pgvector extension fail here with `STORE_UNAVAILABLE`.
 * The roles live in knowledge/ (writer, reader, searcher, counters, admin) on one shared context.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresKnowledgeStore> {
  const pg = createPgContext(options);
  const store: PostgresKnowledgeStore = {
    ...knowledgeStoreOf(pg, roles),
    sql: pg.sql,
    schema: pg.schemaName,
    eraser: postgresEraser(pg.sql, pg.schemaName, pg.target),
    migrate: () => pg.migrate(),
  };
  await pg.open();
  return store;
}
