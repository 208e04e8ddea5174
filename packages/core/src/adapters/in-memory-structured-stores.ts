import type { StructuredStores } from '../ports/structured-stores.js';
import { InMemoryEpisodeStore, InMemoryProcedureStore } from './in-memory-candidates.js';
import {
  InMemoryFactStore,
  InMemoryGoalStore,
  InMemoryMessageStore,
  InMemoryPhaseStore,
  InMemorySessionStateStore,
  InMemorySummaryStore,
  InMemoryToolEventStore,
  InMemoryUserStore,
} from './in-memory-structured.js';

/** Every structured port kept in process memory (unguarded: wrap with `guardStructuredStores` before use). */
export function createInMemoryStructuredStores(): StructuredStores {
  return {
    messages: new InMemoryMessageStore(),
    facts: new InMemoryFactStore(),
    goals: new InMemoryGoalStore(),
    summaries: new InMemorySummaryStore(),
    users: new InMemoryUserStore(),
    sessionState: new InMemorySessionStateStore(),
    phases: new InMemoryPhaseStore(),
    toolEvents: new InMemoryToolEventStore(),
    episodes: new InMemoryEpisodeStore(),
    procedures: new InMemoryProcedureStore(),
  };
}
