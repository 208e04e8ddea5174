// The knowledge conformance suite again, with the approximate vector index trained from the first vector on and
// probing every list: every search goes through the index path (pending rows, int8 candidates, exact re-rank,
// filters, fallback) and must behave exactly as the port says.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKnowledgeStore } from '@mem/testkit';
import { createSqliteStore } from './index.js';

const index = { vector: { type: 'ivf' as const, minRows: 1, lists: 4, nprobe: 4 } };

describeKnowledgeStore('sqlite (ivf index)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-ivf-suite-'));
  const path = join(dir, 'mem.db');
  const store = createSqliteStore({ path, index });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
    openAnother: async () => createSqliteStore({ path, index }),
  };
});
