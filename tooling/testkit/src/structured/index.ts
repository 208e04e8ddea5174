/**
 * Conformance suites of the small structured ports (docs/structured.md): messages, facts, goals, summaries, users, session
 * state, phases and tool events. Behaviour is checked on the port itself; bad input is checked through the core
 * guard (`guard*Store`), which is how the stack reaches every adapter.
 */
export { describeFactStore } from './facts.js';
export { describeGoalStore, describeSummaryStore } from './goals-and-summaries.js';
export { describeMessageStore } from './messages.js';
export { describeToolEventStore } from './tool-events.js';
export { describePhaseStore, describeSessionStateStore, describeUserStore } from './users-and-sessions.js';
