/**
 * Erasing deleted rows from the files of a SQLite database (`forget`, docs/safety.md). `PRAGMA secure_delete` and
 * FTS5's `secure-delete` (migration 4) overwrite deleted content in the pages that held it, but in WAL mode those
 * pages are written to the WAL, and the WAL keeps the frames written before them (the original inserts) until a
 * checkpoint resets it. A `wal_checkpoint(TRUNCATE)` copies the latest page versions into the database file and
 * truncates the WAL to zero bytes, so no older copy of a page is left in either file.
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemError } from '@mem/core';
import type { Eraser } from '@mem/core/adapter';
import type { Database } from 'better-sqlite3';
import { ADAPTER, isBusyError, toStoreError } from './database.js';

/** The target of a file's eraser: one per database file, whichever connection (or store instance) opened it. */
export function sqliteTarget(db: Database): string {
  return `sqlite:${resolve(db.name)}`;
}

/**
 * One `wal_checkpoint(TRUNCATE)` attempt that never waits inside SQLite (busy_timeout 0 meanwhile: its busy handler
 * sleeps synchronously, which would freeze a connection of this process that holds a lock across an `await`).
 * True when the WAL was checkpointed and truncated; false when a reader or writer (of any connection) was in the way.
 */
function tryTruncate(db: Database): boolean {
  if (db.inTransaction) return false;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
    return row !== undefined && row.busy === 0;
  } catch (error) {
    if (isBusyError(error)) return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * Checkpoint the WAL of `db`'s file into the database file and truncate it to zero bytes. Other connections to the
 * file (other store instances, other processes) that are reading or writing make a TRUNCATE checkpoint report busy:
 * it is retried after a short asynchronous sleep (1, 2, 4 … 50 ms, jittered) until it succeeds or the connection's
 * `busy_timeout` has passed, then fails with STORE_UNAVAILABLE (retryable). A database not in WAL mode has nothing to do.
 */
export async function truncateWal(db: Database): Promise<void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    if (!db.open)
      throw new MemError('STORE_UNAVAILABLE', `${ADAPTER}: the store for ${db.name} is closed; create a new one.`);
    try {
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') return;
      if (tryTruncate(db)) return;
    } catch (error) {
      throw toStoreError(error, 'checkpointing the WAL', db.name);
    }
    const limit = db.pragma('busy_timeout', { simple: true }) as number;
    const waited = Date.now() - started;
    if (waited >= limit) {
      throw new MemError(
        'STORE_UNAVAILABLE',
        `${ADAPTER}: erasing deleted rows from the WAL of ${db.name} waited ${waited} ms for readers and writers of other connections to finish. The rows are deleted; retry the forget to erase them from the WAL, or open the store with a larger busyTimeoutMs.`,
        { retryable: true, details: { path: db.name, waitedMs: waited } },
      );
    }
    const base = Math.min(2 ** attempt, 50);
    await sleep(Math.min(base / 2 + Math.random() * base, Math.max(1, limit - waited)));
  }
}

/**
 * The eraser of a SQLite file (`Eraser`, run by `forget`): deleted content is already overwritten in its pages
 * (`secure_delete`, FTS5 `secure-delete`); this empties the WAL, where the earlier versions of those pages were.
 * Undefined for an in-memory database, which keeps nothing at rest.
 */
export function sqliteEraser(db: Database): Eraser | undefined {
  if (db.memory) return undefined;
  return {
    target: sqliteTarget(db),
    async eraseDeleted() {
      await truncateWal(db);
      return [];
    },
  };
}
