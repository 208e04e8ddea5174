import { describeGraphStore, tempFixture } from '@mem/testkit';
import { createLanceGraphStore } from './index.js';

// A fresh folder per test; `openAnother` is a second connection on it, closed by `cleanup` too.
describeGraphStore(
  'lancedb',
  async () => {
    const f = tempFixture('lancedb-graph', (dir) => createLanceGraphStore({ uri: dir }));
    const unreachable = async () => {
      const closed = await f.openAnother();
      await closed.close();
      return closed;
    };
    return { ...f, unreachable };
  },
  { timeoutMs: 120_000 },
);
