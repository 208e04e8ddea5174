import { createInMemoryStructuredStores } from '@mem/core';
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
} from './index.js';

/**
 * The in-memory adapters of @mem/core run every structured suite. A second bundle built over the first one's data
 * (`createInMemoryStructuredStores(first)`) stands in for another connection to the same database.
 */
function inMemory<K extends keyof StructuredStores>(port: K): PortFactory<StructuredStores[K]> {
  return async () => {
    const stores = createInMemoryStructuredStores();
    return {
      store: stores[port],
      cleanup: async () => {},
      openAnother: async () => createInMemoryStructuredStores(stores)[port],
    };
  };
}

describeMessageStore('in-memory', inMemory('messages'));
describeFactStore('in-memory', inMemory('facts'));
describeGoalStore('in-memory', inMemory('goals'));
describeSummaryStore('in-memory', inMemory('summaries'));
describeUserStore('in-memory', inMemory('users'));
describeSessionStateStore('in-memory', inMemory('sessionState'));
describePhaseStore('in-memory', inMemory('phases'));
describeToolEventStore('in-memory', inMemory('toolEvents'));
describeEpisodeStore('in-memory', inMemory('episodes'));
describeProcedureStore('in-memory', inMemory('procedures'));
describeGraphStore('in-memory', inMemory('graph'));
