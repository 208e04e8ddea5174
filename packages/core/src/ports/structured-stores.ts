import type { EpisodeStore } from './episode-store.js';
import type { FactStore } from './fact-store.js';
import type { GoalStore } from './goal-store.js';
import type { GraphStore } from './graph-store.js';
import type { MessageStore } from './message-store.js';
import type { PhaseStore } from './phase-store.js';
import type { ProcedureStore } from './procedure-store.js';
import type { SessionStateStore } from './session-state-store.js';
import type { SummaryStore } from './summary-store.js';
import type { ToolEventStore } from './tool-event-store.js';
import type { UserStore } from './user-store.js';

/** Every structured port of docs/structured.md together, as a store package hands them to `createStack`. */
export interface StructuredStores {
  messages: MessageStore;
  facts: FactStore;
  goals: GoalStore;
  summaries: SummaryStore;
  users: UserStore;
  sessionState: SessionStateStore;
  phases: PhaseStore;
  toolEvents: ToolEventStore;
  episodes: EpisodeStore;
  procedures: ProcedureStore;
  /** The memory graph (docs/graph.md): entities, observations, relations. */
  graph: GraphStore;
}
