import { describeEpisodeStore, describeProcedureStore, type PortFactory, tempFixture } from '@mem/testkit';
import { createLanceEpisodeStore, createLanceProcedureStore, type LanceStoreOptions } from './index.js';

/** A fresh folder per test; `openAnother` is a second connection on it, closed by `cleanup` too. */
function fixture<S extends { close(): Promise<void> }>(open: (options: LanceStoreOptions) => S): PortFactory<S> {
  return async () => {
    const f = tempFixture('lancedb-candidates', (dir) => open({ uri: dir }));
    const unreachable = async () => {
      const closed = await f.openAnother();
      await closed.close();
      return closed;
    };
    return { ...f, unreachable };
  };
}

describeEpisodeStore('lancedb', fixture(createLanceEpisodeStore), { timeoutMs: 120_000 });
describeProcedureStore('lancedb', fixture(createLanceProcedureStore), { timeoutMs: 120_000 });
