import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '@mem/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-sqlite-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('MEM_SQLITE_INDEX (the SQLite store index options, as JSON)', () => {
  it('reaches the store: a vector index trained at 3 memories instead of 20,000', async () => {
    const db = join(dir, 'tuned', 'mem.db');
    const env = {
      MEM_DB: db,
      MEM_WORKSPACE_DIR: dir,
      MEM_EMBEDDER: 'hashing',
      MEM_SQLITE_INDEX: '{"vector":{"minRows":3,"lists":2},"keyword":{"cacheMiB":8}}',
    };
    for (const text of ['deploys go out on tuesdays', 'rollback plans live in the runbook', 'the cafe opens at nine']) {
      expect((await runCli(['store', text], dir, env)).code).toBe(0);
    }
    const found = await runCli(['search', 'rollback runbook', '--json'], dir, env);
    expect(found.code).toBe(0);
    const store = createSqliteStore({ path: db });
    try {
      expect(store.vectorIndexTrained()).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('refuses JSON that is not JSON, an unknown option or a bad value (exit 1, INVALID_INPUT), creating nothing', async () => {
    const db = join(dir, 'refused', 'mem.db');
    const env = { MEM_DB: db, MEM_WORKSPACE_DIR: dir, MEM_EMBEDDER: 'none' };
    const cases: [string, RegExp][] = [
      ['{vector:1}', /INVALID_INPUT: sqlite: MEM_SQLITE_INDEX is not JSON/],
      ['{"vector":{"nprob":48}}', /unknown option index\.vector\.nprob \(index\.vector takes type, minRows, lists/],
      ['{"vector":{"nprobe":0}}', /index\.vector\.nprobe must be a positive integer/],
    ];
    for (const [value, message] of cases) {
      const r = await runCli(['store', 'a memory'], dir, { ...env, MEM_SQLITE_INDEX: value });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(existsSync(join(dir, 'refused'))).toBe(false);
    }
  });
});
