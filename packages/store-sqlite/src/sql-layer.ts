/**
 * SQLite's part of the shared SQL layer of @mem/core/adapter: its dialect (`?` placeholders, JSON text for lists and
 * objects, ISO text for times) and runners that drive programs synchronously: inside a lease's busy retry and
 * BEGIN IMMEDIATE transactions, or (transcripts and notebooks) through write-lock.ts's gate.
 */
import {
  runSqlProgram,
  type SqlDeleteSessions,
  type SqlDialect,
  type SqlErrorMap,
  type SqlExecutor,
  type SqlProgram,
  type SqlRunner,
  type SqlValue,
  sqlRun,
} from '@mem/core/adapter';
import { isUniqueViolation, type SqliteLease } from './connection.js';
import { ADAPTER } from './database.js';
import { readSnapshot, writeTransaction } from './write-lock.js';

export const sqliteDialect: SqlDialect = {
  adapter: ADAPTER,
  table: (name) => name,
  param: () => '?',
  read: (column) => column,
  list: (values) => JSON.stringify(values),
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  // GLOB is case-sensitive, so it reads the BINARY index as a range; a key has no GLOB metacharacter to escape.
  startsWith: (column) => `${column} GLOB ?`,
  prefixValue: (prefix) => `${prefix.replace(/[*?[\]]/g, '[$&]')}*`,
  via: (index) => ` INDEXED BY ${index}`,
  same: (column) => `${column} IS ?`,
  count: 'count(*)',
  limit: (n) => (n === Number.POSITIVE_INFINITY ? -1 : n),
  isDuplicate: (error, table) => isUniqueViolation(error, `${table}.`),
};

/** Statements on the lease's connection, each prepared once per connection. */
export function sqliteExecutor(c: SqliteLease): SqlExecutor {
  return {
    all: (sql, params) => c.stmt(sql).all(...(params as unknown[])),
    get: (sql, params) => c.stmt(sql).get(...(params as unknown[])),
    run: (sql, params) => c.stmt(sql).run(...(params as unknown[])).changes,
  };
}

/** Programs run on the lease's connection: `c.run`, and `c.write` (BEGIN IMMEDIATE) for a transaction. */
export function sqliteRunner(c: SqliteLease): SqlRunner {
  const exec = sqliteExecutor(c);
  return {
    run: (what, program, onError) => c.run(what, () => runSqlProgram(program(), exec), onError),
    transaction: (what, program, onError) => c.write(what, () => runSqlProgram(program(), exec), onError),
  };
}

/**
 * Programs of the transcript and notebook stores, which share write-lock.ts's gate per connection: a read on one
 * snapshot (`readSnapshot`), a transaction as `writeTransaction` (which a `withLock` body may hold across `await`).
 */
export function sqliteGatedRunner(c: SqliteLease): SqlRunner {
  const exec = sqliteExecutor(c);
  const body =
    <T>(program: () => SqlProgram<T>, onError: SqlErrorMap | undefined) =>
    (): T => {
      try {
        return runSqlProgram(program(), exec);
      } catch (error) {
        throw onError?.(error) ?? error;
      }
    };
  return {
    run: (what, program, onError) => readSnapshot(c, what, body(program, onError)),
    transaction: (what, program, onError) => writeTransaction(c, what, body(program, onError)),
  };
}

/**
 * `column` starts with `prefix`, compared with `substr`, not `LIKE`: `%`, `_` and `\` stay literal and the comparison
 * is case-sensitive (SQLite's `LIKE` is not); NULL never matches. Its parameters are appended to `params`.
 */
export function sqliteStartsWith(column: string, prefix: string, params: SqlValue[]): string {
  params.push(prefix, prefix);
  return `substr(${column}, 1, length(?)) = ?`;
}

/** Deletes by session prefix (`sqliteStartsWith`). */
export const sqliteDeleteSessions: SqlDeleteSessions = (table, space, prefix) => {
  const params: SqlValue[] = [space];
  return sqlRun(`DELETE FROM ${table} WHERE space = ? AND ${sqliteStartsWith('session_id', prefix, params)}`, params);
};
