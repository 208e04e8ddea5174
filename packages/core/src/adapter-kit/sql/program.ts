/**
 * SQL programs: store logic written once as a generator that yields statements, run by a synchronous driver
 * (better-sqlite3, inside its own transaction and busy retry) or an asynchronous one (postgres.js). No driver here.
 */

/** A value a SQL parameter may hold (what both drivers bind). */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array | readonly string[];

/** One statement: `all` rows, the first row (`get`), or `run` (the number of rows it changed). */
export interface SqlStatement {
  readonly op: 'all' | 'get' | 'run';
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/** Store logic as a generator: it yields statements and receives their results. */
export type SqlProgram<T> = Generator<SqlStatement, T, unknown>;

/** A synchronous driver: runs one statement and returns its result. */
export interface SqlExecutor {
  all(sql: string, params: readonly SqlValue[]): unknown[];
  get(sql: string, params: readonly SqlValue[]): unknown;
  run(sql: string, params: readonly SqlValue[]): number;
}

/** An asynchronous driver: the same three calls, as promises. */
export interface AsyncSqlExecutor {
  all(sql: string, params: readonly SqlValue[]): Promise<unknown[]>;
  get(sql: string, params: readonly SqlValue[]): Promise<unknown>;
  run(sql: string, params: readonly SqlValue[]): Promise<number>;
}

/** Every row of a statement. */
export function* sqlAll<R>(sql: string, params: readonly SqlValue[]): SqlProgram<R[]> {
  return (yield { op: 'all', sql, params }) as R[];
}

/** The first row of a statement, or undefined. */
export function* sqlGet<R>(sql: string, params: readonly SqlValue[]): SqlProgram<R | undefined> {
  return (yield { op: 'get', sql, params }) as R | undefined;
}

/** Run a statement; returns how many rows it changed. */
export function* sqlRun(sql: string, params: readonly SqlValue[]): SqlProgram<number> {
  return (yield { op: 'run', sql, params }) as number;
}

/** Run a program to its end on a synchronous driver (no promise, no extra turn of the event loop). */
export function runSqlProgram<T>(program: SqlProgram<T>, exec: SqlExecutor): T {
  let step = program.next();
  while (!step.done) {
    const { op, sql, params } = step.value;
    let result: unknown;
    try {
      result = exec[op](sql, params);
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}

/** Run a program to its end on an asynchronous driver, one statement after the other. */
export async function runSqlProgramAsync<T>(program: SqlProgram<T>, exec: AsyncSqlExecutor): Promise<T> {
  let step = program.next();
  while (!step.done) {
    const { op, sql, params } = step.value;
    let result: unknown;
    try {
      result = await exec[op](sql, params);
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}
