/**
 * The structured ports of docs/structured.md on PostgreSQL, as one bundle: messages, facts and goals
 * (structured/user-data.ts), summaries, users, session state, phases and tool events (structured/sessions.ts), episodes
 * and procedures (candidate-stores.ts). Every statement is filtered by space. JSON values are jsonb (sent as text, read
 * back as text and parsed here, so a shared client's parsers and transforms change nothing); times are timestamptz read
 * back as ISO-8601 UTC with milliseconds. The rules (fact priority and merge) are the functions of @mem/core.
 */
import type { StructuredStores } from '@mem/core/adapter';
import { episodeStoreOn, procedureStoreOn } from './candidate-stores.js';
import { episodicMigrations, structuredMigrations } from './migrations.js';
import { handleOf, openRuntime, type PortRuntime, type PostgresHandle, type PostgresPortOptions } from './runtime.js';
import { graphStore } from './structured/graph.js';
import { phaseStore, sessionStateStore, summaryStore, toolEventStore, userStore } from './structured/sessions.js';
import { factStore, goalStore, messageStore } from './structured/user-data.js';

/** Every structured port on one connection, plus `migrate()`, `sql`, `schema` and `close()`. */
export interface PostgresStructuredStores extends StructuredStores, PostgresHandle {}

/** The structured ports (the graph too) over a runtime whose families include `structured` and `episodic`. */
export function structuredStoresOn(rt: PortRuntime): PostgresStructuredStores {
  return {
    ...handleOf(rt),
    messages: messageStore(rt),
    facts: factStore(rt),
    goals: goalStore(rt),
    summaries: summaryStore(rt),
    users: userStore(rt),
    sessionState: sessionStateStore(rt),
    phases: phaseStore(rt),
    toolEvents: toolEventStore(rt),
    episodes: episodeStoreOn(rt),
    procedures: procedureStoreOn(rt),
    graph: graphStore(rt),
  };
}

/**
 * Every structured port of docs/structured.md on one PostgreSQL connection: `{ url }` creates a pool (ended by `close()`),
 * `{ sql }` shares a client (never ended here). Pending migrations of the `structured` and `episodic` families run on
 * open unless `autoMigrate` is false. The ports are unguarded, like every adapter: the stack wraps them with
 * `guardStructuredStores`.
 */
export async function createPostgresStructuredStores(options: PostgresPortOptions): Promise<PostgresStructuredStores> {
  return structuredStoresOn(
    await openRuntime(options, [structuredMigrations, episodicMigrations], 'structured stores'),
  );
}
