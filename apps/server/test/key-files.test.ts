import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../src/keys.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-key-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the keys file', () => {
  it('is created 0600 with its WAL and SHM, in a new folder 0700, even with umask 0', async () => {
    const path = join(dir, 'new-folder', 'mem.db.keys.db');
    const before = process.umask(0);
    let keys: KeyStore;
    try {
      keys = KeyStore.open(path);
      await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' });
    } finally {
      process.umask(before);
    }
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect([mode(join(dir, 'new-folder')), mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual([
      '700',
      '600',
      '600',
      '600',
    ]);
    keys.close();
  });
});
