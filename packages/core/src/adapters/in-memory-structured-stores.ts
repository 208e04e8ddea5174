import { MemError } from '../errors.js';
import type { StructuredStores } from '../ports/structured-stores.js';
import { InMemoryEpisodeStore, InMemoryProcedureStore } from './in-memory-candidates.js';
import { InMemoryGraphStore } from './in-memory-graph.js';
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

/**
 * Every structured port kept in process memory (unguarded: `createStack` wraps them with its checks). Pass a bundle
 * returned by an earlier call as `shareWith` to get a second bundle over the same data (another "connection").
 */
export function createInMemoryStructuredStores(shareWith?: StructuredStores): StructuredStores {
  const other = <T>(store: unknown, kind: abstract new (...args: never[]) => T): T | undefined => {
    if (store === undefined) return undefined;
    if (!(store instanceof kind)) {
      throw new MemError(
        'INVALID_INPUT',
        'createInMemoryStructuredStores: shareWith must come from createInMemoryStructuredStores.',
      );
    }
    return store;
  };
  return {
    messages: new InMemoryMessageStore(other(shareWith?.messages, InMemoryMessageStore)),
    facts: new InMemoryFactStore(other(shareWith?.facts, InMemoryFactStore)),
    goals: new InMemoryGoalStore(other(shareWith?.goals, InMemoryGoalStore)),
    summaries: new InMemorySummaryStore(other(shareWith?.summaries, InMemorySummaryStore)),
    users: new InMemoryUserStore(other(shareWith?.users, InMemoryUserStore)),
    sessionState: new InMemorySessionStateStore(other(shareWith?.sessionState, InMemorySessionStateStore)),
    phases: new InMemoryPhaseStore(other(shareWith?.phases, InMemoryPhaseStore)),
    toolEvents: new InMemoryToolEventStore(other(shareWith?.toolEvents, InMemoryToolEventStore)),
    episodes: new InMemoryEpisodeStore(other(shareWith?.episodes, InMemoryEpisodeStore)),
    procedures: new InMemoryProcedureStore(other(shareWith?.procedures, InMemoryProcedureStore)),
    graph: new InMemoryGraphStore(other(shareWith?.graph, InMemoryGraphStore)),
  };
}
