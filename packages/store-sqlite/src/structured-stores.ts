/**
 * The structured ports of docs/structured.md on SQLite, as one bundle: messages, facts and goals (structured/user-data.ts),
 * summaries, users, session state, phases and tool events (structured/sessions.ts), episodes and procedures
 * (candidate-stores.ts), the memory graph (structured/graph.ts). Every statement is filtered by space. The rules (fact priority and merge) are the functions of
 * @mem/core; these files only store and retrieve.
 */
import type { StructuredStores } from '@mem/core/adapter';
import { createEpisodeStore, createProcedureStore } from './candidate-stores.js';
import { acquireConnection, type SqliteHandle, type SqliteOpenOptions } from './connection.js';
import { GRAPH_SCHEMA_VERSION, STRUCTURED_SCHEMA_VERSION } from './migrations.js';
import { graphStore } from './structured/graph.js';
import { phaseStore, sessionStateStore, summaryStore, toolEventStore, userStore } from './structured/sessions.js';
import { factStore, goalStore, messageStore } from './structured/user-data.js';

/** Every structured port on one SQLite connection, plus the connection's handle (`db`, `migrate`, `close`). */
export interface SqliteStructuredStores extends StructuredStores, SqliteHandle {}

/**
 * Every structured port of docs/structured.md on one SQLite file: `{ path }` opens a connection (closed by `close()`),
 * `{ db }` shares an open one, e.g. the knowledge store's (`{ db: knowledge.db }`; never closed here).
 * Pending migrations run on open unless `autoMigrate` is false. The ports are unguarded, like every adapter: the
 * stack wraps them with `guardStructuredStores`.
 */
export function createSqliteStructuredStores(options: SqliteOpenOptions): SqliteStructuredStores {
  const c = acquireConnection(options, Math.max(STRUCTURED_SCHEMA_VERSION, GRAPH_SCHEMA_VERSION));
  return {
    ...c.handle(),
    messages: messageStore(c),
    facts: factStore(c),
    goals: goalStore(c),
    summaries: summaryStore(c),
    users: userStore(c),
    sessionState: sessionStateStore(c),
    phases: phaseStore(c),
    toolEvents: toolEventStore(c),
    episodes: createEpisodeStore(c),
    procedures: createProcedureStore(c),
    graph: graphStore(c),
  };
}
