import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKnowledgeCounterRaces, describeKnowledgeStore, type KnowledgeStoreFactory } from '@mem/testkit';
import { createSqliteStore } from './index.js';

const factory: KnowledgeStoreFactory = async () => {
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
};

describeKnowledgeStore('sqlite', factory);
// Two connections on one file, as two processes would have: a rating or a read that lands while an edit is under
// way must survive the edit (a lost update the eight-process soak found).
describeKnowledgeCounterRaces('sqlite', factory);
