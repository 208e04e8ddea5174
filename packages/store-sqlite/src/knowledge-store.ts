import { type Eraser, type KnowledgeStore, knowledgeStoreOf } from '@mem/core/adapter';
import type { Database } from 'better-sqlite3';
import { sqliteEraser } from './erase.js';
import { createSqliteContext, type SqliteStoreOptions } from './knowledge/context.js';
import * as roles from './knowledge/roles.js';
import type { MigrationResult } from './migrations.js';

export type { SqliteStoreOptions } from './knowledge/context.js';

export interface SqliteKnowledgeStore extends KnowledgeStore {
  /** Apply pending schema migrations (idempotent; safe when several processes open the file at once). */
  migrate(): Promise<MigrationResult>;
  /** The raw better-sqlite3 connection (shared by the other SQLite ports of the same file). */
  readonly db: Database;
  /** True when the vector arm runs inside SQLite (sqlite-vec); false when it falls back to JavaScript. */
  readonly nativeVector: boolean;
  /** Erases deleted rows from the file's WAL (`forget`); undefined for an in-memory database. */
  readonly eraser: Eraser | undefined;
  /** True when the approximate vector index is trained and answers vector searches (false: exact scan). */
  vectorIndexTrained(): boolean;
  /** Lists and bytes this connection holds in the vector index's list cache (`index.vector.cacheMiB`). */
  vectorCacheStats(): { entries: number; bytes: number };
}

/**
 * A `KnowledgeStore` on one SQLite file (better-sqlite3): FTS5 for the keyword arm, sqlite-vec's exact cosine
 * for the vector arm (a JavaScript cosine over the same filtered rows when the extension cannot load).
 * The roles live in knowledge/ (writer, reader, searcher, counters, admin) on one shared context.
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteKnowledgeStore {
  const ctx = createSqliteContext(options);
  return {
    ...knowledgeStoreOf(ctx, roles),
    db: ctx.db,
    nativeVector: ctx.nativeVector,
    eraser: sqliteEraser(ctx.db),
    vectorIndexTrained: () => ctx.indexTrained(),
    vectorCacheStats: () => ctx.vectorIndex?.cacheStats() ?? { entries: 0, bytes: 0 },
    migrate: () => ctx.migrate(),
  };
}
