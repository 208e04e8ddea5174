/**
 * The NotebookStore port (docs/notebooks.md) on PostgreSQL: one row per file in `notebook_files`, keyed by
 * (space, agent, user, topic, path). Every write is one compare-and-set statement on the version (a content hash):
 * a create is `INSERT … ON CONFLICT DO NOTHING`, an update is `UPDATE … WHERE version = <expected>`. Of two writers
 * with the same base version the second waits for the first's row lock, re-checks the version against the committed
 * row and matches nothing, so it gets CONFLICT: no change is ever lost, on any number of connections. The statements
 * are the shared ones of @mem/core/adapter, each write run on its own (no transaction).
 */
import { type NotebookStore, sqlNotebookStore } from '@mem/core/adapter';
import { notebookMigrations } from './migrations.js';
import { handleOf, openRuntime, type PortRuntime, type PostgresHandle, type PostgresPortOptions } from './runtime.js';
import { postgresDialect, postgresRunner, postgresStartsWith } from './sql-layer.js';

/** A `NotebookStore` on PostgreSQL plus `migrate()`, `sql` and `schema`. */
export interface PostgresNotebookStore extends NotebookStore, PostgresHandle {}

/** Open a notebook store on its own connection (`url`) or a shared client (`sql`). Migrates unless told not to. */
export async function createPostgresNotebookStore(options: PostgresPortOptions): Promise<PostgresNotebookStore> {
  return notebookStoreOn(await openRuntime(options, [notebookMigrations], 'notebook store'));
}

/**
 * The notebook port over a runtime (shared with the other ports of a bundle). Times are stored as timestamptz and
 * read back as ISO-8601 UTC with milliseconds, so a write's `updatedAt` is its time in that form. `path` is
 * COLLATE "C": byte order, which is the JavaScript order for the ASCII paths checkNotebookPath allows.
 */
export function notebookStoreOn(rt: PortRuntime): PostgresNotebookStore {
  const r = postgresRunner(rt);
  return {
    ...handleOf(rt),
    ...sqlNotebookStore(postgresDialect(rt), r, {
      write: r.run,
      storedTime: (at) => new Date(Date.parse(at)).toISOString(),
      startsWith: postgresStartsWith,
    }),
  };
}
