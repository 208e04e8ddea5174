/**
 * The NotebookStore port (docs/notebooks.md) on PostgreSQL: one row per file in `notebook_files`, keyed by
 * (space, agent, user, topic, path). Every write is one compare-and-set statement on the version (a content hash):
 * a create is `INSERT … ON CONFLICT DO NOTHING`, an update is `UPDATE … WHERE version = <expected>`. Of two writers
 * with the same base version the second waits for the first's row lock, re-checks the version against the committed
 * row and matches nothing, so it gets CONFLICT: no change is ever lost, on any number of connections.
 */
import { MemError, type NotebookScope } from '@mem/core';
import {
  checkNotebookPath,
  checkNotebookScope,
  type NotebookEntry,
  type NotebookFile,
  type NotebookStore,
  type NotebookStoreCapabilities,
  notebookVersion,
  utf8Bytes,
} from '@mem/core/adapter';
import { ADAPTER, exec } from './connection.js';
import { notebookMigrations } from './migrations.js';
import { iso } from './queries.js';
import { handleOf, openRuntime, type PortRuntime, type PostgresHandle, type PostgresPortOptions } from './runtime.js';

/** A `NotebookStore` on PostgreSQL plus `migrate()`, `sql` and `schema`. */
export interface PostgresNotebookStore extends NotebookStore, PostgresHandle {}

const CAPABILITIES: NotebookStoreCapabilities = { durable: true, crossProcess: true };

/** The key columns of a scope: user and topic are '' when absent (`checkName` never accepts an empty name). */
function keyOf(scope: NotebookScope): [string, string, string, string] {
  checkNotebookScope(scope);
  return [scope.space, scope.agent, scope.user ?? '', scope.topic ?? ''];
}

const SCOPE = 'space = $1 AND agent = $2 AND user_id = $3 AND topic = $4';

function conflict(path: string, expected: string | null, actual: string | null): MemError {
  return new MemError(
    'CONFLICT',
    `${ADAPTER}: ${path} changed since it was read (it is ${actual === null ? 'gone' : `at version ${actual}`}, the write expected ${expected === null ? 'no file' : `version ${expected}`}). Read it again and re-apply the change.`,
    { retryable: true, details: { path, expected, actual } },
  );
}

/** Open a notebook store on its own connection (`url`) or a shared client (`sql`). Migrates unless told not to. */
export async function createPostgresNotebookStore(options: PostgresPortOptions): Promise<PostgresNotebookStore> {
  return notebookStoreOn(await openRuntime(options, [notebookMigrations], 'notebook store'));
}

/** The notebook port over a runtime (shared with the other ports of a bundle). */
export function notebookStoreOn(rt: PortRuntime): PostgresNotebookStore {
  const { sql, s } = rt;

  const currentVersion = async (key: readonly string[], path: string): Promise<string | null> => {
    const [row] = await exec<{ version: string }[]>(
      sql,
      `SELECT version FROM ${s}.notebook_files WHERE ${SCOPE} AND path = $5`,
      [...key, path],
    );
    return row?.version ?? null;
  };

  return {
    ...handleOf(rt),
    name: ADAPTER,
    capabilities: CAPABILITIES,

    async read(scope, path): Promise<NotebookFile | null> {
      const key = keyOf(scope);
      checkNotebookPath(path);
      return rt.run('reading a notebook file', async () => {
        const [row] = await exec<{ path: string; content: string; version: string; size: number; updatedat: string }[]>(
          sql,
          `SELECT path, content, version, size, ${iso('updated_at')} AS updatedat FROM ${s}.notebook_files
           WHERE ${SCOPE} AND path = $5`,
          [...key, path],
        );
        return row === undefined
          ? null
          : {
              path: row.path,
              content: row.content,
              version: row.version,
              size: Number(row.size),
              updatedAt: row.updatedat,
            };
      });
    },

    async write(scope, path, content, { expectedVersion, at }) {
      const key = keyOf(scope);
      checkNotebookPath(path);
      if (typeof content !== 'string') throw new MemError('INVALID_INPUT', 'Notebook content must be a string.');
      if (expectedVersion !== null && typeof expectedVersion !== 'string')
        throw new MemError('INVALID_INPUT', 'expectedVersion must be a version string, or null for a new file.');
      const ms = typeof at === 'string' ? Date.parse(at) : Number.NaN;
      if (Number.isNaN(ms))
        throw new MemError('INVALID_INPUT', `Invalid time "${String(at)}": use an ISO-8601 UTC time.`);
      const when = new Date(ms).toISOString();
      const version = notebookVersion(content);
      const size = utf8Bytes(content);
      return rt.run('writing a notebook file', async () => {
        const params = [...key, path, content, version, size, when];
        const rows =
          expectedVersion === null
            ? await exec(
                sql,
                `INSERT INTO ${s}.notebook_files (space, agent, user_id, topic, path, content, version, size, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::timestamptz)
                 ON CONFLICT (space, agent, user_id, topic, path) DO NOTHING RETURNING 1 AS one`,
                params,
              )
            : await exec(
                sql,
                `UPDATE ${s}.notebook_files SET content = $6, version = $7, size = $8, updated_at = $9::text::timestamptz
                 WHERE ${SCOPE} AND path = $5 AND version = $10 RETURNING 1 AS one`,
                [...params, expectedVersion],
              );
        if (rows.length === 0) throw conflict(path, expectedVersion, await currentVersion(key, path));
        return { path, size, updatedAt: when, version };
      });
    },

    async delete(scope, path, opts = {}) {
      const key = keyOf(scope);
      checkNotebookPath(path);
      const expected = opts.expectedVersion;
      if (expected !== undefined && typeof expected !== 'string')
        throw new MemError('INVALID_INPUT', 'expectedVersion must be a version string when given.');
      return rt.run('deleting a notebook file', async () => {
        const rows = await exec(
          sql,
          `DELETE FROM ${s}.notebook_files WHERE ${SCOPE} AND path = $5 AND ($6::text IS NULL OR version = $6)
           RETURNING 1 AS one`,
          [...key, path, expected ?? null],
        );
        if (rows.length > 0) return true;
        if (expected === undefined) return false;
        const actual = await currentVersion(key, path);
        if (actual === null) return false;
        throw conflict(path, expected, actual);
      });
    },

    async list(scope, opts = {}): Promise<NotebookEntry[]> {
      const key = keyOf(scope);
      const prefix = opts.prefix ?? '';
      if (typeof prefix !== 'string') throw new MemError('INVALID_INPUT', 'A list prefix must be a string.');
      return rt.run('listing notebook files', async () => {
        // No path holds NUL (checkNotebookPath), and PostgreSQL text cannot carry it.
        if (prefix.includes('\u0000')) return [];
        // Literal, case-sensitive prefix (starts_with has no wildcards); path is COLLATE "C": byte order, which is
        // the JavaScript order for the ASCII paths checkNotebookPath allows.
        const rows = await exec<{ path: string; size: number; updatedat: string }[]>(
          sql,
          `SELECT path, size, ${iso('updated_at')} AS updatedat FROM ${s}.notebook_files
           WHERE ${SCOPE} AND starts_with(path, $5) ORDER BY path`,
          [...key, prefix],
        );
        return rows.map((r) => ({ path: r.path, size: Number(r.size), updatedAt: r.updatedat }));
      });
    },

    async remove(scope) {
      const key = keyOf(scope);
      const whole = scope.user === undefined && scope.topic === undefined;
      return rt.run('removing a notebook', async () => {
        const rows = whole
          ? await exec(sql, `DELETE FROM ${s}.notebook_files WHERE space = $1 AND agent = $2 RETURNING 1 AS one`, [
              key[0],
              key[1],
            ])
          : await exec(sql, `DELETE FROM ${s}.notebook_files WHERE ${SCOPE} RETURNING 1 AS one`, key);
        return rows.length;
      });
    },
  };
}
