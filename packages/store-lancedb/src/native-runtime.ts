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
 * a value the user set is kept. Returns the thread count LanceDB will use, and whether it came from the user.
 *
 * It only takes effect before LanceDB's first compute task in the process (it reads the variable once), so it runs
 * when a store is created, before the store's first LanceDB call. Throws `INVALID_INPUT` for a value LanceDB could
 * not read (it would abort the whole process on it).
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
      `${CPU_THREADS_VAR} must be a whole number of at least 1 (got ${JSON.stringify(current)}); LanceDB would abort the process on it. Unset it to let @mem/store-lancedb choose (${defaultCpuThreads(cores)} here), or set a number such as ${CPU_THREADS_VAR}=${MIN_CPU_THREADS}.`,
      { details: { field: CPU_THREADS_VAR } },
    );
  }
  return { threads: Number(current), fromUser: true };
}
