/**
 * The per-session structured ports on SQLite: summaries, users, session state, phases and tool events. The statements
 * are the shared ones of @mem/core/adapter; a summary save and a user ensure are one BEGIN IMMEDIATE transaction each.
 */
import {
  type PhaseStore,
  type SessionStateStore,
  type SummaryStore,
  sqlPhaseStore,
  sqlSessionStateStore,
  sqlSummaryStore,
  sqlToolEventStore,
  sqlUserStore,
  type ToolEventStore,
  type UserStore,
} from '@mem/core/adapter';
import type { SqliteLease } from '../connection.js';
import { sqliteDeleteSessions, sqliteDialect, sqliteRunner } from '../sql-layer.js';

export const summaryStore = (c: SqliteLease): SummaryStore =>
  sqlSummaryStore(sqliteDialect, sqliteRunner(c), sqliteDeleteSessions);

export const userStore = (c: SqliteLease): UserStore => sqlUserStore(sqliteDialect, sqliteRunner(c));

export const sessionStateStore = (c: SqliteLease): SessionStateStore =>
  sqlSessionStateStore(sqliteDialect, sqliteRunner(c), sqliteDeleteSessions);

export const phaseStore = (c: SqliteLease): PhaseStore =>
  sqlPhaseStore(sqliteDialect, sqliteRunner(c), sqliteDeleteSessions);

export const toolEventStore = (c: SqliteLease): ToolEventStore =>
  sqlToolEventStore(sqliteDialect, sqliteRunner(c), sqliteDeleteSessions);
