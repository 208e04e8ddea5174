import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKnowledgeCounterRaces, describeKnowledgeStore, type KnowledgeStoreFactory } from '@mem/testkit';
import { createLanceStore } from './index.js';

const factory: KnowledgeStoreFactory = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-suite-'));
  const store = createLanceStore({ uri: dir });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
    openAnother: async () => createLanceStore({ uri: dir }),
  };
};

describeKnowledgeStore('lancedb', factory, { timeoutMs: 180_000 });
// Two connections on one folder: a rating or a read landing while an edit is under way must survive the edit.
describeKnowledgeCounterRaces('lancedb', factory);
