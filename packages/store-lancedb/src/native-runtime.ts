import { availableParallelism } from 'node:os';
import { MemError } from '@mem/core';

/**
 * The environment variable LanceDB's native code reads, once per process (on its first compute task), for the size
 * of its compute pool: the threads that run its CPU-heavy work (decoding, index builds and updates).
 */
export const CPU_THREADS_VAR = 'LANCE_CPU_THREADS';

/**
 * The fewest compute threads this package gives LanceDB when `LANCE_CPU_THREADS` is not set. Left to itself,
 * LanceDB 0.31 uses the cores minus two it keeps for I/O, and at least one: ONE thread on a machine of up to three
 * cores. Its full-text index writer produces posting-list batches in a compute task that blocks its thread on a queue
 * of one batch, while the file writer needs a compute thread to encode a page before it takes the next batch: with a
 * single thread neither moves again, and every later LanceDB compute task of the process queues behind them (the
 * batch-ingest stall: a load stopped inside `Table.optimize()` at ~151,000 memories; with 4 threads 300,000 went
 * through). Two threads are enough for one such writer; 4 leave room for a few at once (stores on several folders).
 */
export const MIN_CPU_THREADS = 4;

/** LanceDB's compute threads when the variable is unset: its own default (cores − 2), but at least `MIN_CPU_THREADS`. */
export function defaultCpuThreads(cores: number): number {
  return Math.max(MIN_CPU_THREADS, Math.floor(cores) - 2);
}

/**
 * Make sure LanceDB's compute pool will have room for its blocking tasks: when `LANCE_CPU_THREADS` is unset (or
 * empty), set it to `defaultCpuThreads(cores)` in `env` (the process environment, which the native code reads);
 * a value already set is kept. Returns the thread count LanceDB will use, and whether the value was already there
 * (`fromUser`: set by the user, or by an earlier store of the process).
 *
 * It only takes effect before LanceDB's first compute task in the process (it reads the variable once), so it runs
 * when a store is created, before the store's first LanceDB call. Throws `INVALID_INPUT` for a value LanceDB could
 * not read (LanceDB panics on it: its calls fail with `Panic in async function`).
 */
export function ensureCpuThreads(
  env: NodeJS.ProcessEnv = process.env,
  cores: number = availableParallelism(),
): { threads: number; fromUser: boolean } {
  const current = env[CPU_THREADS_VAR];
  if (current === undefined || current.trim() === '') {
    const threads = defaultCpuThreads(cores);
    env[CPU_THREADS_VAR] = String(threads);
    return { threads, fromUser: false };
  }
  if (!/^\d+$/.test(current) || Number(current) < 1) {
    throw new MemError(
      'INVALID_INPUT',
      `${CPU_THREADS_VAR} must be a whole number of at least 1 (got ${JSON.stringify(current)}); LanceDB panics reading it (its calls fail with "Panic in async function"). Unset it to let @mem/store-lancedb choose (${defaultCpuThreads(cores)} here), or set a number such as ${CPU_THREADS_VAR}=${MIN_CPU_THREADS}.`,
      { details: { field: CPU_THREADS_VAR } },
    );
  }
  return { threads: Number(current), fromUser: true };
}

/**
 * What a store warns about (once per process) after `ensureCpuThreads`, or null: a value the user set that leaves
 * LanceDB fewer than `MIN_CPU_THREADS` threads, or a store created in a worker thread, whose `process.env` is a copy
 * the native code never reads — there the variable set by the store does not reach LanceDB.
 */
export function cpuThreadsWarning(result: { threads: number; fromUser: boolean }, mainThread: boolean): string | null {
  if (result.fromUser && result.threads < MIN_CPU_THREADS) {
    return `${CPU_THREADS_VAR}=${result.threads} gives LanceDB fewer than ${MIN_CPU_THREADS} compute threads; with 1, its full-text index writer can wedge the process inside optimize() (the batch-ingest stall). Unset it to let the store choose.`;
  }
  if (!result.fromUser && !mainThread) {
    return `the store was created in a worker thread, whose ${CPU_THREADS_VAR} LanceDB does not see; on a machine of up to 3 cores LanceDB may then run with one compute thread and wedge inside optimize(). Set ${CPU_THREADS_VAR}=${result.threads} in the environment of the process before it starts the worker.`;
  }
  return null;
}
