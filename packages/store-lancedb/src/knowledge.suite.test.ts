import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKnowledgeStore } from '@mem/testkit';
import { createLanceStore } from './index.js';

describeKnowledgeStore(
  'lancedb',
  async () => {
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
  },
  { timeoutMs: 180_000 },
);
