/**
 * What a SQL engine tells the shared store logic: how it writes placeholders, casts, times, JSON and lists, and how
 * it runs a program (readiness, error mapping, transactions). Each SQL store package implements these two.
 */
import type { MemError } from '../../errors.js';
import type { SqlProgram, SqlValue } from './program.js';

/** How a value is stored: the dialect picks the column type, the cast of a parameter and the read-back form. */
export type SqlType = 'text' | 'int' | 'time' | 'json' | 'list';

/**
 * A SQL engine as the shared store logic sees it. Parameters are numbered from 1 and each appears once, in order
 * (engines with `?` placeholders bind by position).
 */
export interface SqlDialect {
  /** The adapter name that starts every message (`sqlite`, `postgres`). */
  readonly adapter: string;
  /** A table's name in SQL text (schema-qualified where the engine has schemas). */
  table(name: string): string;
  /** The placeholder of parameter `n`, cast to `type` where the engine needs it. */
  param(n: number, type?: SqlType): string;
  /** A column read back in its portable form: ISO-8601 UTC text for times, JSON text for json and lists. */
  read(column: string, type: SqlType): string;
  /** A list of strings as a parameter value (JSON text, or an array). */
  list(values: readonly string[]): SqlValue;
  /** `column` is one of the strings of list parameter `n`. */
  inList(column: string, n: number): string;
  /**
   * The clause after a table's alias that makes a read use `index` (`INDEXED BY` on SQLite, whose planner without
   * statistics prefers the primary key's space prefix to a secondary index under a list parameter), or nothing.
   */
  via(index: string): string;
  /** `column` starts with the prefix of parameter `n`, whose value is `prefixValue(prefix)`; uses an index on it. */
  startsWith(column: string, n: number): string;
  /** The parameter value of `startsWith` for a prefix of letters, digits, spaces, `+` and `#` (resolution keys). */
  prefixValue(prefix: string): SqlValue;
  /** `column` equals parameter `n`, NULL matching NULL. */
  same(column: string, n: number): string;
  /** `count(*)`, read back as a number. */
  readonly count: string;
  /** The LIMIT parameter for a positive count, or for Infinity (no limit). */
  limit(n: number): SqlValue;
  /** Is `error` a unique violation of the record id of `table`? */
  isDuplicate(error: unknown, table: string): boolean;
}

/** Turns a driver error into a MemError of the store (CONFLICT for a taken id, …), or null to leave it. */
export type SqlErrorMap = (error: unknown) => MemError | null;

/**
 * How a store runs its programs. Both check that the store is open and migrated and map driver errors to MemError
 * (`what` names the operation in messages); the engine retries what it must (e.g. SQLite on a busy file).
 */
export interface SqlRunner {
  /** A read or a single-statement write. */
  run<T>(what: string, program: () => SqlProgram<T>, onError?: SqlErrorMap): Promise<T>;
  /** Several statements as one transaction (taking the write lock first where the engine has one). */
  transaction<T>(what: string, program: () => SqlProgram<T>, onError?: SqlErrorMap): Promise<T>;
}

/** A column of a record table: its name, the alias it is read as (lower case) and how it is stored. */
export interface SqlField {
  readonly column: string;
  readonly as: string;
  readonly type: SqlType;
}

/** The select list of `fields` (`<read form> AS <alias>`), columns qualified by `alias` when given. */
export function selectList(d: Pick<SqlDialect, 'read'>, fields: readonly SqlField[], alias?: string): string {
  const at = alias === undefined ? '' : `${alias}.`;
  return fields.map((f) => `${d.read(at + f.column, f.type)} AS ${f.as}`).join(', ');
}

/** A wanted row count: Infinity for undefined or +Infinity, 0 when nothing is wanted (0, negative, NaN), else the integer part. */
export function sqlRowCount(limit: number | undefined): number {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  const n = Math.floor(limit);
  return n > 0 ? n : 0;
}
