/**
 * The NotebookStore port (docs/notebooks.md) on SQLite: one row per file in `notebook_files` (migration 3), keyed by
 * (space, agent, user, topic, path). The statements are the shared ones of @mem/core/adapter; every write is one
 * `BEGIN IMMEDIATE` transaction (write-lock.ts), so two writers on any number of connections or processes never lose
 * each other's change.
 */
import { type NotebookStore, sqlNotebookStore } from '@mem/core/adapter';
import { acquireConnection, type SqliteHandle, type SqliteOpenOptions } from './connection.js';
import { CONVERSATION_SCHEMA_VERSION } from './migrations.js';
import { sqliteDialect, sqliteGatedRunner, sqliteStartsWith } from './sql-layer.js';
import { ensureFullSync } from './write-lock.js';

/** A `NotebookStore` on SQLite plus the connection handle (`db`, `nativeVector`, `migrate()`, `close()`). */
export interface SqliteNotebookStore extends NotebookStore, SqliteHandle {}

/**
 * NotebookStore on the shared SQLite file. `version` is `notebookVersion(content)`, stored beside the content; `size`
 * is its UTF-8 length; `updatedAt` is the `at` of the last write, as given. `remove` without user and topic removes
 * every notebook of the agent (its per-user and per-topic ones too).
 */
export function createSqliteNotebookStore(options: SqliteOpenOptions): SqliteNotebookStore {
  const c = acquireConnection(options, CONVERSATION_SCHEMA_VERSION);
  ensureFullSync(c.db);
  const r = sqliteGatedRunner(c);
  return {
    ...sqlNotebookStore(sqliteDialect, r, {
      write: r.transaction,
      storedTime: (at) => at,
      startsWith: sqliteStartsWith,
    }),
    ...c.handle(),
  };
}
