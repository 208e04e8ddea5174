/**
 * PostgreSQL's part of the shared SQL layer of @mem/core/adapter: its dialect (`$n` placeholders with casts, jsonb and
 * text[] sent and read as text, timestamptz read as ISO-8601 UTC) and a runner that drives programs over postgres.js,
 * a transaction being `sql.begin`.
 */
import {
  type AsyncSqlExecutor,
  runSqlProgramAsync,
  type SqlDeleteSessions,
  type SqlDialect,
  type SqlErrorMap,
  type SqlRunner,
  sqlRun,
} from '@mem/core/adapter';
import { ADAPTER, exec, type Sql, type SqlParams, type TransactionSql } from './connection.js';
import { iso } from './queries.js';
import { isUniqueViolation, type PortRuntime } from './runtime.js';
import { topicIs } from './structured/shared.js';

const CASTS = { time: '::text::timestamptz', json: '::text::jsonb', list: '::text[]' } as const;

/** The unique constraint of each table's record id: the primary key, but for users (keyed by external id). */
const idConstraint = (table: string) => (table === 'users' ? 'users_id' : `${table}_pkey`);

/** The dialect of one runtime (its schema qualifies every table). */
export function postgresDialect(rt: PortRuntime): SqlDialect {
  return {
    adapter: ADAPTER,
    table: (name) => `${rt.s}.${name}`,
    param: (n, type) => `$${n}${type === 'time' || type === 'json' || type === 'list' ? CASTS[type] : ''}`,
    read: (column, type) =>
      type === 'time'
        ? iso(column)
        : type === 'json'
          ? `${column}::text`
          : type === 'list'
            ? `array_to_json(${column})::text`
            : column,
    list: (values) => values,
    inList: (column, n) => `${column} = ANY($${n}::text[])`,
    same: (column, n) => topicIs(`$${n}`, column),
    count: 'count(*)::int',
    limit: (n) => (n === Number.POSITIVE_INFINITY ? null : n),
    isDuplicate: (error, table) => isUniqueViolation(error, idConstraint(table)),
  };
}

function executorOn(db: Sql | TransactionSql): AsyncSqlExecutor {
  return {
    all: (text, params) => exec(db, text, params as SqlParams),
    get: async (text, params) => (await exec(db, text, params as SqlParams))[0],
    run: async (text, params) => (await exec(db, text, params as SqlParams)).count,
  };
}

async function mapped<T>(work: Promise<T>, onError: SqlErrorMap | undefined): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw onError?.(error) ?? error;
  }
}

/** Programs run on the runtime's pool (one statement after the other), a transaction on one connection. */
export function postgresRunner(rt: PortRuntime): SqlRunner {
  const pool = executorOn(rt.sql);
  return {
    run: (what, program, onError) => rt.run(what, () => mapped(runSqlProgramAsync(program(), pool), onError)),
    transaction: (what, program, onError) =>
      rt.run(what, () =>
        mapped(rt.sql.begin((tx) => runSqlProgramAsync(program(), executorOn(tx))) as Promise<never>, onError),
      ),
  };
}

/** Deletes by session prefix with `starts_with` (literal: `%`, `_` and `\` are no wildcards, unlike in LIKE). */
export const postgresDeleteSessions =
  (rt: PortRuntime): SqlDeleteSessions =>
  (table, space, prefix) =>
    sqlRun(`DELETE FROM ${rt.s}.${table} WHERE space = $1 AND starts_with(session_id, $2)`, [space, prefix]);
