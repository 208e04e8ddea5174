/**
 * The structured state an agent loop keeps (docs/structured.md) over HTTP, MCP and the CLI: goals of users, and per
 * session of an agent its running summary, JSON state, phase and tool-call log.
 *
 * Rules of the doors (one implementation: `mem goals|summaries|session-state|phases|tool-events` run these
 * operations in process):
 * - goals belong to users, like facts: any principal of the space may read and set them;
 * - sessions belong to agents: a worker acts on its own agent's sessions, a lead on any agent's of its space
 *   (another agent's session answers NOT_FOUND to a worker, as notebooks do). The ports key sessions by id only, so
 *   the doors store session `s` of agent `a` under the id `a/s`; answers carry `agent` and the id as given;
 * - goal and summary texts refuse secrets like facts (SECRET_DETECTED, the stack's guard: mem's rules and the stack's
 *   secret scanner); the space always comes from the principal;
 * - a stack without the port answers CAPABILITY_MISSING (501).
 */
import type { Operation } from './operation.js';
import { goalFinish, goalGet, goalList, goalSet } from './operations-goals.js';
import {
  phaseGet,
  phaseHistory,
  phaseSet,
  sessionStateDelete,
  sessionStateGet,
  sessionStateSet,
  summaryDelete,
  summaryGet,
  summarySave,
} from './operations-session.js';
import { toolEventList, toolEventRecord } from './operations-tool-events.js';

export const stateOperations: Operation[] = [
  goalSet,
  goalGet,
  goalList,
  goalFinish,
  summarySave,
  summaryGet,
  summaryDelete,
  sessionStateSet,
  sessionStateGet,
  sessionStateDelete,
  phaseSet,
  phaseGet,
  phaseHistory,
  toolEventRecord,
  toolEventList,
];
