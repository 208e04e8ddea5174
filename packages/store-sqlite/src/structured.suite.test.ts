import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructuredStores } from '@mem/core/adapter';
import {
  describeEpisodeStore,
  describeFactStore,
  describeGoalStore,
  describeMessageStore,
  describePhaseStore,
  describeProcedureStore,
  describeSessionStateStore,
  describeSummaryStore,
  describeToolEventStore,
  describeUserStore,
  type PortFactory,
} from '@mem/testkit';
import { createSqliteStructuredStores, type SqliteStructuredStores } from './index.js';

/**
 * Every structured suite on a fresh temp file. `openAnother` opens a second, independent connection to the same
 * file (another bundle), so the two-writer tests really use two connections; `cleanup` closes them all.
 */
function sqlite<K extends keyof StructuredStores>(port: K): PortFactory<StructuredStores[K]> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-structured-'));
    const path = join(dir, 'mem.db');
    const opened: SqliteStructuredStores[] = [];
    const open = (): StructuredStores[K] => {
      const bundle = createSqliteStructuredStores({ path });
      opened.push(bundle);
      return bundle[port];
    };
    return {
      store: open(),
      openAnother: async () => open(),
      cleanup: async () => {
        for (const bundle of opened.splice(0)) await bundle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

describeMessageStore('sqlite', sqlite('messages'));
describeFactStore('sqlite', sqlite('facts'));
describeGoalStore('sqlite', sqlite('goals'));
describeSummaryStore('sqlite', sqlite('summaries'));
describeUserStore('sqlite', sqlite('users'));
describeSessionStateStore('sqlite', sqlite('sessionState'));
describePhaseStore('sqlite', sqlite('phases'));
describeToolEventStore('sqlite', sqlite('toolEvents'));
describeEpisodeStore('sqlite', sqlite('episodes'));
describeProcedureStore('sqlite', sqlite('procedures'));
