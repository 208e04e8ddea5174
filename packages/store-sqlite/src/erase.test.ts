import { statSync } from 'node:fs';
import { MemError } from '@mem/core';
import { tempDir } from '@mem/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { sqliteEraser, truncateWal } from './erase.js';
import { createSqliteStore } from './index.js';

const dirs: { remove: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});

/** A file with a row written through one connection and a second connection (another store instance) on it. */
function twoConnections(busyTimeoutMs = 10_000) {
  const dir = tempDir('sqlite-erase');
  dirs.push(dir);
  const path = dir.join('mem.db');
  const writer = openDatabase(path, { busyTimeoutMs });
  writer.exec('CREATE TABLE t (x TEXT)');
  writer.prepare('INSERT INTO t VALUES (?)').run('qzxerasemarker');
  const reader = openDatabase(path);
  return { path, writer, reader, walBytes: () => statSync(`${path}-wal`).size };
}

describe('sqlite eraser: the WAL checkpointed and truncated while other connections use the file', () => {
  it('waits for a reader of another connection, then truncates the WAL to zero bytes', async () => {
    const { writer, reader, walBytes } = twoConnections();
    expect(walBytes()).toBeGreaterThan(0);
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    const erased = truncateWal(writer);
    // The reader's snapshot blocks a TRUNCATE checkpoint; it ends a moment later, on the event loop the retry yields.
    setTimeout(() => reader.exec('COMMIT'), 30);
    await erased;
    expect(walBytes()).toBe(0);
    writer.close();
    reader.close();
  });

  it('gives up after busy_timeout with a retryable STORE_UNAVAILABLE while a reader stays', async () => {
    const { writer, reader } = twoConnections(200);
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    const error = await truncateWal(writer).catch((e: unknown) => e);
    expect(MemError.is(error) && error.code).toBe('STORE_UNAVAILABLE');
    expect((error as MemError).retryable).toBe(true);
    expect((error as MemError).message).toMatch(/retry the forget/);
    reader.exec('COMMIT');
    writer.close();
    reader.close();
  });

  it('one target per file, whichever store opened it; none for an in-memory database', () => {
    const dir = tempDir('sqlite-erase-target');
    dirs.push(dir);
    const a = createSqliteStore({ path: dir.join('mem.db') });
    const b = createSqliteStore({ path: dir.join('mem.db') });
    expect(a.eraser?.target).toBe(b.eraser?.target);
    expect(a.eraser?.target).toMatch(/^sqlite:.*mem\.db$/);
    const memory = openDatabase(':memory:');
    expect(sqliteEraser(memory)).toBeUndefined();
    memory.close();
    void a.close();
    void b.close();
  });
});
