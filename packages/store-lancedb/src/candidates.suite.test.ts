import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEpisodeStore, describeProcedureStore, type PortFactory } from '@mem/testkit';
import { createLanceEpisodeStore, createLanceProcedureStore, type LanceStoreOptions } from './index.js';

/** A fresh folder per test; `openAnother` is a second connection on it, closed by `cleanup` too. */
function fixture<S extends { close(): Promise<void> }>(open: (options: LanceStoreOptions) => S): PortFactory<S> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-candidates-'));
    const opened: S[] = [];
    const connect = () => {
      const store = open({ uri: dir });
      opened.push(store);
      return store;
    };
    return {
      store: connect(),
      openAnother: async () => connect(),
      cleanup: async () => {
        for (const store of opened) await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

describeEpisodeStore('lancedb', fixture(createLanceEpisodeStore), { timeoutMs: 120_000 });
describeProcedureStore('lancedb', fixture(createLanceProcedureStore), { timeoutMs: 120_000 });
