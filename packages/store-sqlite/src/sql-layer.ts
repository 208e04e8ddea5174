/**
 * SQLite's part of the shared SQL layer of @mem/core/adapter: its dialect (`?` placeholders, JSON text for lists and
 * objects, ISO text for times) and a runner that drives programs synchronously inside a lease's busy retry and
 * BEGIN IMMEDIATE transactions.
 */
import {
  runSqlProgram,
  type SqlDeleteSessions,
  type SqlDialect,
  type SqlExecutor,
  type SqlRunner,
  sqlRun,
} from '@mem/core/adapter';
import { isUniqueViolation, type SqliteLease } from './connection.js';
import { ADAPTER } from './database.js';
import { deleteSessionsSql } from './structured/shared.js';

export const sqliteDialect: SqlDialect = {
  adapter: ADAPTER,
  table: (name) => name,
  param: () => '?',
  read: (column) => column,
  list: (values) => JSON.stringify(values),
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  same: (column) => `${column} IS ?`,
  count: 'count(*)',
  limit: (n) => (n === Number.POSITIVE_INFINITY ? -1 : n),
  isDuplicate: (error, table) => isUniqueViolation(error, `${table}.`),
};

/** Programs run on the lease's connection, each statement prepared once per connection. */
export function sqliteRunner(c: SqliteLease): SqlRunner {
  const exec: SqlExecutor = {
    all: (sql, params) => c.stmt(sql).all(...(params as unknown[])),
    get: (sql, params) => c.stmt(sql).get(...(params as unknown[])),
    run: (sql, params) => c.stmt(sql).run(...(params as unknown[])).changes,
  };
  return {
    run: (what, program, onError) => c.run(what, () => runSqlProgram(program(), exec), onError),
    transaction: (what, program, onError) => c.write(what, () => runSqlProgram(program(), exec), onError),
  };
}

/** Deletes by session prefix with `substr` (literal and case-sensitive, unlike SQLite's LIKE). */
export const sqliteDeleteSessions: SqlDeleteSessions = (table, space, prefix) =>
  sqlRun(deleteSessionsSql(table), [space, prefix, prefix]);
