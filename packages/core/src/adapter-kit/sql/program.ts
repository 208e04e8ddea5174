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
  return finish(inline(program, exec));
}

/** Run a program to its end on an asynchronous driver, one statement after the other. */
export function runSqlProgramAsync<T>(program: SqlProgram<T>, exec: AsyncSqlExecutor): Promise<T> {
  return runSqlPausingProgramAsync(program, exec);
}

/** A point of a program where its driver lets caller code run between statements (a store's step hook, in tests). */
export interface SqlPause {
  readonly op: 'pause';
  readonly name: string;
}

/** A program that may pause: it yields statements and `SqlPause`s. */
export type SqlPausingProgram<T> = Generator<SqlStatement | SqlPause, T, unknown>;

/** A program step: pause here, as `name`. */
export function* sqlPause(name: string): SqlPausingProgram<void> {
  yield { op: 'pause', name };
}

/** The program on a synchronous driver, statements run inline: what is left to yield are its pauses. */
function* inline<T>(program: SqlPausingProgram<T>, exec: SqlExecutor): Generator<string, T, void> {
  let step = program.next();
  while (!step.done) {
    const s = step.value;
    let result: unknown;
    try {
      if (s.op === 'pause') yield s.name;
      else result = exec[s.op](s.sql, s.params);
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}

/** The end of the pauses of `steps`, each passed over. */
function finish<T>(steps: Generator<string, T, void>): T {
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/**
 * Run a pausing program on a synchronous driver. Without `onPause` it runs to its end at once, pauses passed over
 * (no promise). With it, the statements up to the first pause run at once, then `onPause(name)` is awaited at each
 * pause (what it throws is thrown into the program), and the result is a promise.
 */
export function runSqlPausingProgram<T>(
  program: SqlPausingProgram<T>,
  exec: SqlExecutor,
  onPause?: (name: string) => void | Promise<void>,
): T | Promise<T> {
  const steps = inline(program, exec);
  if (onPause === undefined) return finish(steps);
  return (async () => {
    for (let r = steps.next(); ; ) {
      if (r.done) return r.value;
      try {
        await onPause(r.value);
      } catch (error) {
        r = steps.throw(error);
        continue;
      }
      r = steps.next();
    }
  })();
}

/** Run a pausing program on an asynchronous driver; `onPause(name)` is awaited at each pause (none: passed over). */
export async function runSqlPausingProgramAsync<T>(
  program: SqlPausingProgram<T>,
  exec: AsyncSqlExecutor,
  onPause?: (name: string) => void | Promise<void>,
): Promise<T> {
  let step = program.next();
  while (!step.done) {
    const s = step.value;
    let result: unknown;
    try {
      if (s.op === 'pause') await onPause?.(s.name);
      else result = await exec[s.op](s.sql, s.params);
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}
