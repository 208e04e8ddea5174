/**
 * The notebook port (docs/notebooks.md) over any SQL engine: one row per file in `notebook_files`, keyed by
 * (space, agent, user, topic, path), user and topic '' when absent (`checkName` never accepts an empty name).
 * Every write is one compare-and-set statement on the version (a content hash): a create is
 * `INSERT … ON CONFLICT DO NOTHING`, an update or a delete is conditional on `version = <expected>`. When it matches
 * nothing, the current version names the conflict. So no change is ever lost, on any number of connections.
 */
import { checkNotebookPath, checkNotebookScope, notebookVersion, utf8Bytes } from '../../domain/notebook.js';
import { MemError } from '../../errors.js';
import type {
  NotebookEntry,
  NotebookFile,
  NotebookScope,
  NotebookStore,
  NotebookStoreCapabilities,
} from '../../ports/notebook-store.js';
import { type SqlDialect, type SqlField, type SqlRunner, selectList } from './dialect.js';
import { type SqlProgram, type SqlValue, sqlAll, sqlGet, sqlRun } from './program.js';
import type { SqlRow } from './records.js';

/** What an engine adds to the shared notebook store. */
export interface SqlNotebookEngine {
  /**
   * How a write runs (a compare-and-set statement, then maybe a read of the current version): as one transaction
   * where the engine has a write lock (SQLite), or statement by statement where each compare-and-set statement is
   * atomic by itself (PostgreSQL).
   */
  readonly write: SqlRunner['run'];
  /** The time of a write as the engine stores it and reads it back. */
  storedTime(at: string): string;
  /** `column` starts with `prefix`, literally and case-sensitively; its parameters appended to `params`. */
  startsWith(column: string, prefix: string, params: SqlValue[]): string;
}

/** The notebook store without the engine's handle (`migrate`, `close`, …), which the engine adds. */
export type SqlNotebookStore = Omit<NotebookStore, 'close'>;

const CAPABILITIES: NotebookStoreCapabilities = { durable: true, crossProcess: true };

const field = (column: string, type: SqlField['type'] = 'text', as = column): SqlField => ({ column, as, type });
const ENTRY = [field('path'), field('size', 'int'), field('updated_at', 'time', 'updatedat')];
const FILE = [...ENTRY, field('content'), field('version')];

const toEntry = (row: SqlRow): NotebookEntry => ({
  path: row.path as string,
  size: Number(row.size),
  updatedAt: row.updatedat as string,
});

/** The key columns of a scope: user and topic are '' when absent. */
function keyOf(scope: NotebookScope): [string, string, string, string] {
  checkNotebookScope(scope);
  return [scope.space, scope.agent, scope.user ?? '', scope.topic ?? ''];
}

function conflict(d: SqlDialect, path: string, expected: string | null, actual: string | null): MemError {
  return new MemError(
    'CONFLICT',
    `${d.adapter}: ${path} changed since it was read (it is ${actual === null ? 'gone' : `at version ${actual}`}, the write expected ${expected === null ? 'no file' : `version ${expected}`}). Read it again and re-apply the change.`,
    { retryable: true, details: { path, expected, actual } },
  );
}

/**
 * The notebook port over a dialect, a runner and the engine's parts. `version` is `notebookVersion(content)`, stored
 * beside the content; `size` is its UTF-8 length; `updatedAt` is the `at` of the last write. `remove` without user
 * and topic removes every notebook of the agent (its per-user and per-topic ones too).
 */
export function sqlNotebookStore(d: SqlDialect, r: SqlRunner, engine: SqlNotebookEngine): SqlNotebookStore {
  const t = d.table('notebook_files');
  const inScope = (n: number) =>
    `space = ${d.param(n)} AND agent = ${d.param(n + 1)} AND user_id = ${d.param(n + 2)} AND topic = ${d.param(n + 3)}`;
  const entries = selectList(d, ENTRY);
  const read = `SELECT ${selectList(d, FILE)} FROM ${t} WHERE ${inScope(1)} AND path = ${d.param(5)}`;
  const version = `SELECT version FROM ${t} WHERE ${inScope(1)} AND path = ${d.param(5)}`;
  const create = `INSERT INTO ${t} (space, agent, user_id, topic, path, content, version, size, updated_at)
    VALUES (${d.param(1)}, ${d.param(2)}, ${d.param(3)}, ${d.param(4)}, ${d.param(5)}, ${d.param(6)}, ${d.param(7)},
      ${d.param(8, 'int')}, ${d.param(9, 'time')})
    ON CONFLICT (space, agent, user_id, topic, path) DO NOTHING`;
  const update = `UPDATE ${t} SET content = ${d.param(1)}, version = ${d.param(2)}, size = ${d.param(3, 'int')},
      updated_at = ${d.param(4, 'time')}
    WHERE ${inScope(5)} AND path = ${d.param(9)} AND version = ${d.param(10)}`;
  const remove = `DELETE FROM ${t} WHERE ${inScope(1)} AND path = ${d.param(5)}`;
  const removeAt = `${remove} AND version = ${d.param(6)}`;
  const removeAgent = `DELETE FROM ${t} WHERE space = ${d.param(1)} AND agent = ${d.param(2)}`;
  const removeScope = `DELETE FROM ${t} WHERE ${inScope(1)}`;

  function* currentVersion(key: readonly string[], path: string): SqlProgram<string | null> {
    return (yield* sqlGet<{ version: string }>(version, [...key, path]))?.version ?? null;
  }

  return {
    name: d.adapter,
    capabilities: CAPABILITIES,

    async read(scope, path): Promise<NotebookFile | null> {
      const key = keyOf(scope);
      checkNotebookPath(path);
      return r.run('reading a notebook file', function* () {
        const row = yield* sqlGet<SqlRow>(read, [...key, path]);
        if (row === undefined) return null;
        return { ...toEntry(row), content: row.content as string, version: row.version as string };
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
      const when = engine.storedTime(at);
      const next = notebookVersion(content);
      const size = utf8Bytes(content);
      return engine.write('writing a notebook file', function* () {
        const written =
          expectedVersion === null
            ? yield* sqlRun(create, [...key, path, content, next, size, when])
            : yield* sqlRun(update, [content, next, size, when, ...key, path, expectedVersion]);
        if (written === 0) throw conflict(d, path, expectedVersion, yield* currentVersion(key, path));
        return { path, size, updatedAt: when, version: next };
      });
    },

    async delete(scope, path, opts = {}) {
      const key = keyOf(scope);
      checkNotebookPath(path);
      const expected = opts.expectedVersion;
      if (expected !== undefined && typeof expected !== 'string')
        throw new MemError('INVALID_INPUT', 'expectedVersion must be a version string when given.');
      return engine.write('deleting a notebook file', function* () {
        if (expected === undefined) return (yield* sqlRun(remove, [...key, path])) > 0;
        if ((yield* sqlRun(removeAt, [...key, path, expected])) > 0) return true;
        const actual = yield* currentVersion(key, path);
        if (actual === null) return false;
        throw conflict(d, path, expected, actual);
      });
    },

    async list(scope, opts = {}): Promise<NotebookEntry[]> {
      const key = keyOf(scope);
      const prefix = opts.prefix ?? '';
      if (typeof prefix !== 'string') throw new MemError('INVALID_INPUT', 'A list prefix must be a string.');
      return r.run('listing notebook files', function* () {
        // No path holds NUL (checkNotebookPath), so no path starts with such a prefix.
        if (prefix.includes('\u0000')) return [];
        // Paths are ASCII, so the engines' byte order of `path` is the JavaScript order.
        const params: SqlValue[] = [...key];
        const where = `${inScope(1)} AND ${engine.startsWith('path', prefix, params)}`;
        const rows = yield* sqlAll<SqlRow>(`SELECT ${entries} FROM ${t} WHERE ${where} ORDER BY path`, params);
        return rows.map(toEntry);
      });
    },

    async remove(scope) {
      const key = keyOf(scope);
      const whole = scope.user === undefined && scope.topic === undefined;
      return engine.write('removing a notebook', () =>
        whole ? sqlRun(removeAgent, [key[0], key[1]]) : sqlRun(removeScope, key),
      );
    },
  };
}
