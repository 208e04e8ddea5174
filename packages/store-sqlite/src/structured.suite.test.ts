import { join } from 'node:path';
import type { StructuredStores } from '@mem/core/adapter';
import {
  describeEpisodeStore,
  describeFactStore,
  describeGoalStore,
  describeGraphStore,
  describeMessageStore,
  describePhaseStore,
  describeProcedureStore,
  describeSessionStateStore,
  describeSummaryStore,
  describeToolEventStore,
  describeUserStore,
  type PortFactory,
  tempFixture,
} from '@mem/testkit';
import { createSqliteStructuredStores } from './index.js';

/**
 * Every structured suite on a fresh temp file. `openAnother` opens a second, independent connection to the same
 * file (another bundle), so the two-writer tests really use two connections; `cleanup` closes them all.
 */
function sqlite<K extends keyof StructuredStores>(port: K): PortFactory<StructuredStores[K]> {
  return async () => {
    const bundles = tempFixture('sqlite-structured', (dir) =>
      createSqliteStructuredStores({ path: join(dir, 'mem.db') }),
    );
    return {
      store: bundles.store[port],
      openAnother: async () => (await bundles.openAnother())[port],
      unreachable: async () => {
        const closed = await bundles.openAnother();
        await closed.close();
        return closed[port];
      },
      cleanup: bundles.cleanup,
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
describeGraphStore('sqlite', sqlite('graph'));
