/**
 * The NotebookStore port (docs/notebooks.md) on SQLite: one row per file in `notebook_files` (migration 3), keyed by
 * (space, agent, user, topic, path). Writes are compare-and-set on the content hash inside one `BEGIN IMMEDIATE`
 * transaction, so two writers on any number of connections or processes never lose each other's change.
 */
import { MemError, type NotebookScope } from '@mem/core';
import {
  checkNotebookPath,
  checkNotebookScope,
  type NotebookEntry,
  type NotebookFile,
  type NotebookStore,
  notebookVersion,
  utf8Bytes,
} from '@mem/core/adapter';
import { acquireConnection, type SqliteHandle, type SqliteOpenOptions } from './connection.js';
import { ADAPTER } from './database.js';
import { CONVERSATION_SCHEMA_VERSION } from './migrations.js';
import { ensureFullSync, readSnapshot, writeTransaction } from './write-lock.js';

/** A `NotebookStore` on SQLite plus the connection handle (`db`, `nativeVector`, `migrate()`, `close()`). */
export interface SqliteNotebookStore extends NotebookStore, SqliteHandle {}

interface FileRow {
  path: string;
  content: string;
  version: string;
  size: number;
  updated_at: string;
}

/** The key columns of a scope: user and topic are '' when absent (`checkName` never accepts an empty name). */
function keyOf(scope: NotebookScope): [string, string, string, string] {
  checkNotebookScope(scope);
  return [scope.space, scope.agent, scope.user ?? '', scope.topic ?? ''];
}

const SCOPE_WHERE = 'space = ? AND agent = ? AND user_id = ? AND topic = ?';

/**
 * NotebookStore on the shared SQLite file. `version` is `notebookVersion(content)`, stored beside the content; `size`
 * is its UTF-8 length; `updatedAt` is the `at` of the last write. `remove` without user and topic removes every
 * notebook of the agent (its per-user and per-topic ones too).
 */
export function createSqliteNotebookStore(options: SqliteOpenOptions): SqliteNotebookStore {
  const c = acquireConnection(options, CONVERSATION_SCHEMA_VERSION);
  ensureFullSync(c.db);

  const readRow = (key: readonly string[], path: string) =>
    c
      .stmt(`SELECT path, content, version, size, updated_at FROM notebook_files WHERE ${SCOPE_WHERE} AND path = ?`)
      .get(...key, path) as FileRow | undefined;

  const conflict = (path: string, expected: string | null, actual: string | null) =>
    new MemError(
      'CONFLICT',
      `${ADAPTER}: ${path} changed since it was read (it is ${actual === null ? 'gone' : `at version ${actual}`}, the write expected ${expected === null ? 'no file' : `version ${expected}`}). Read it again and re-apply the change.`,
      { retryable: true, details: { path, expected, actual } },
    );

  const handle = c.handle();
  return {
    name: ADAPTER,
    capabilities: { durable: true, crossProcess: true },
    db: handle.db,
    nativeVector: handle.nativeVector,
    eraser: handle.eraser,
    migrate: handle.migrate,
    close: handle.close,

    async read(scope, path): Promise<NotebookFile | null> {
      const key = keyOf(scope);
      checkNotebookPath(path);
      return readSnapshot(c, 'reading a notebook file', () => {
        const row = readRow(key, path);
        return row === undefined
          ? null
          : { path: row.path, content: row.content, version: row.version, size: row.size, updatedAt: row.updated_at };
      });
    },

    async write(scope, path, content, { expectedVersion, at }) {
      const key = keyOf(scope);
      checkNotebookPath(path);
      if (typeof content !== 'string') throw new MemError('INVALID_INPUT', 'Notebook content must be a string.');
      if (expectedVersion !== null && typeof expectedVersion !== 'string')
        throw new MemError('INVALID_INPUT', 'expectedVersion must be a version string, or null for a new file.');
      if (typeof at !== 'string' || Number.isNaN(Date.parse(at)))
        throw new MemError('INVALID_INPUT', `Invalid time "${String(at)}": use an ISO-8601 UTC time.`);
      const version = notebookVersion(content);
      const size = utf8Bytes(content);
      return writeTransaction(c, 'writing a notebook file', () => {
        const current = c
          .stmt(`SELECT version FROM notebook_files WHERE ${SCOPE_WHERE} AND path = ?`)
          .get(...key, path) as { version: string } | undefined;
        const actual = current?.version ?? null;
        if (actual !== expectedVersion) throw conflict(path, expectedVersion, actual);
        c.stmt(
          `INSERT INTO notebook_files (space, agent, user_id, topic, path, content, version, size, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (space, agent, user_id, topic, path) DO UPDATE SET
             content = excluded.content, version = excluded.version, size = excluded.size,
             updated_at = excluded.updated_at`,
        ).run(...key, path, content, version, size, at);
        return { path, size, updatedAt: at, version };
      });
    },

    async delete(scope, path, opts = {}) {
      const key = keyOf(scope);
      checkNotebookPath(path);
      const expected = opts.expectedVersion;
      if (expected !== undefined && typeof expected !== 'string')
        throw new MemError('INVALID_INPUT', 'expectedVersion must be a version string when given.');
      return writeTransaction(c, 'deleting a notebook file', () => {
        const current = c
          .stmt(`SELECT rid, version FROM notebook_files WHERE ${SCOPE_WHERE} AND path = ?`)
          .get(...key, path) as { rid: number; version: string } | undefined;
        if (current === undefined) return false;
        if (expected !== undefined && current.version !== expected) throw conflict(path, expected, current.version);
        c.stmt('DELETE FROM notebook_files WHERE rid = ?').run(current.rid);
        return true;
      });
    },

    async list(scope, opts = {}): Promise<NotebookEntry[]> {
      const key = keyOf(scope);
      const prefix = opts.prefix ?? '';
      if (typeof prefix !== 'string') throw new MemError('INVALID_INPUT', 'A list prefix must be a string.');
      return readSnapshot(c, 'listing notebook files', () => {
        // A literal, case-sensitive prefix (no LIKE / GLOB patterns); paths are ASCII, so SQLite's byte order of
        // `path` is the JavaScript order.
        const rows = c
          .stmt(
            `SELECT path, size, updated_at FROM notebook_files
             WHERE ${SCOPE_WHERE} AND substr(path, 1, length(?)) = ? ORDER BY path`,
          )
          .all(...key, prefix, prefix) as Pick<FileRow, 'path' | 'size' | 'updated_at'>[];
        return rows.map((r) => ({ path: r.path, size: r.size, updatedAt: r.updated_at }));
      });
    },

    async remove(scope) {
      const key = keyOf(scope);
      const whole = scope.user === undefined && scope.topic === undefined;
      return writeTransaction(c, 'removing a notebook', () =>
        whole
          ? c.stmt('DELETE FROM notebook_files WHERE space = ? AND agent = ?').run(key[0], key[1]).changes
          : c.stmt(`DELETE FROM notebook_files WHERE ${SCOPE_WHERE}`).run(...key).changes,
      );
    },
  };
}
