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
  type SqlValue,
  sqlRun,
} from '@mem/core/adapter';
import { ADAPTER, exec, type Sql, type SqlParams, type TransactionSql } from './connection.js';
import { iso } from './queries.js';
import { isUniqueViolation, type PortRuntime } from './runtime.js';

/**
 * `topic` matches a nullable parameter (null = the global scope). The same two expressions as the unique indexes of
 * facts and goals, so those indexes serve the lookups.
 */
const topicIs = (param: string, column: string) =>
  `(${column} IS NULL) = (${param}::text IS NULL) AND coalesce(${column}, '') = coalesce(${param}::text, '')`;

const CASTS = { time: '::text::timestamptz', json: '::text::jsonb', list: '::text[]' } as const;

/** The unique constraint of each table's record id: the primary key, but for users (keyed by external id). */
const idConstraint = (table: string) => (table === 'users' ? 'users_id' : `${table}_pkey`);

/** A column read back in its portable form: ISO-8601 UTC text for timestamptz, text for jsonb and text[]. */
export const postgresRead: SqlDialect['read'] = (column, type) =>
  type === 'time'
    ? iso(column)
    : type === 'json'
      ? `${column}::text`
      : type === 'list'
        ? `array_to_json(${column})::text`
        : column;

/** The dialect of one runtime (its schema qualifies every table). */
export function postgresDialect(rt: PortRuntime): SqlDialect {
  return {
    adapter: ADAPTER,
    table: (name) => `${rt.s}.${name}`,
    param: (n, type) => `$${n}${type === 'time' || type === 'json' || type === 'list' ? CASTS[type] : ''}`,
    read: postgresRead,
    list: (values) => values,
    inList: (column, n) => `${column} = ANY($${n}::text[])`,
    via: () => '',
    // LIKE on a COLLATE "C" column reads its btree as a range.
    startsWith: (column, n) => `${column} LIKE $${n}`,
    prefixValue: (prefix) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`,
    same: (column, n) => topicIs(`$${n}`, column),
    count: 'count(*)::int',
    limit: (n) => (n === Number.POSITIVE_INFINITY ? null : n),
    isDuplicate: (error, table) => isUniqueViolation(error, idConstraint(table)),
  };
}

/** Statements on the pool, or on one transaction (or savepoint) of it. */
export function postgresExecutor(db: Sql | TransactionSql): AsyncSqlExecutor {
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
  const pool = postgresExecutor(rt.sql);
  return {
    run: (what, program, onError) => rt.run(what, () => mapped(runSqlProgramAsync(program(), pool), onError)),
    transaction: (what, program, onError) =>
      rt.run(what, () =>
        mapped(rt.sql.begin((tx) => runSqlProgramAsync(program(), postgresExecutor(tx))) as Promise<never>, onError),
      ),
  };
}

/**
 * `column` starts with `prefix`, compared with `starts_with` (literal: `%`, `_` and `\` are no wildcards, unlike in
 * LIKE); its parameter is appended to `params`.
 */
export function postgresStartsWith(column: string, prefix: string, params: SqlValue[]): string {
  params.push(prefix);
  return `starts_with(${column}, $${params.length})`;
}

/** Deletes by session prefix (`postgresStartsWith`). */
export const postgresDeleteSessions =
  (rt: PortRuntime): SqlDeleteSessions =>
  (table, space, prefix) => {
    const params: SqlValue[] = [space];
    return sqlRun(
      `DELETE FROM ${rt.s}.${table} WHERE space = $1 AND ${postgresStartsWith('session_id', prefix, params)}`,
      params,
    );
  };
