import {
  InMemoryEpisodeStore,
  InMemoryFactStore,
  InMemoryGoalStore,
  InMemoryMessageStore,
  InMemoryPhaseStore,
  InMemoryProcedureStore,
  InMemorySessionStateStore,
  InMemorySummaryStore,
  InMemoryToolEventStore,
  InMemoryUserStore,
} from '@mem/core';
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
} from './index.js';

/**
 * The in-memory adapters of @mem/core run every structured suite. A second instance built over the first one's
 * data (`new X(store)`) stands in for another connection to the same database.
 */
function inMemory<S>(make: (shareWith?: S) => S): PortFactory<S> {
  return async () => {
    const store = make();
    return { store, cleanup: async () => {}, openAnother: async () => make(store) };
  };
}

describeMessageStore(
  'in-memory',
  inMemory((s?: InMemoryMessageStore) => new InMemoryMessageStore(s)),
);
describeFactStore(
  'in-memory',
  inMemory((s?: InMemoryFactStore) => new InMemoryFactStore(s)),
);
describeGoalStore(
  'in-memory',
  inMemory((s?: InMemoryGoalStore) => new InMemoryGoalStore(s)),
);
describeSummaryStore(
  'in-memory',
  inMemory((s?: InMemorySummaryStore) => new InMemorySummaryStore(s)),
);
describeUserStore(
  'in-memory',
  inMemory((s?: InMemoryUserStore) => new InMemoryUserStore(s)),
);
describeSessionStateStore(
  'in-memory',
  inMemory((s?: InMemorySessionStateStore) => new InMemorySessionStateStore(s)),
);
describePhaseStore(
  'in-memory',
  inMemory((s?: InMemoryPhaseStore) => new InMemoryPhaseStore(s)),
);
describeToolEventStore(
  'in-memory',
  inMemory((s?: InMemoryToolEventStore) => new InMemoryToolEventStore(s)),
);
describeEpisodeStore(
  'in-memory',
  inMemory((s?: InMemoryEpisodeStore) => new InMemoryEpisodeStore(s)),
);
describeProcedureStore(
  'in-memory',
  inMemory((s?: InMemoryProcedureStore) => new InMemoryProcedureStore(s)),
);
