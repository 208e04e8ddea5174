import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKnowledgeStore } from '@mem/testkit';
import { createSqliteStore } from './index.js';

describeKnowledgeStore('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-suite-'));
  const path = join(dir, 'mem.db');
  const store = createSqliteStore({ path });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
    openAnother: async () => createSqliteStore({ path }),
  };
});
