/** The schema step of the structured tables on SQLite. */
import { ftsIndexDdl, tagTableDdl } from './ddl.js';
import type { Migration } from './types.js';

/**
 * Structured stores (docs/structured.md): messages, facts, goals, summaries, users, session state, phases, tool events,
 * episodes and procedures. Every table is keyed by space first. Rowids give insertion order where a port asks for
 * it; FTS5 external-content tables index exactly `episodeSearchText` / `procedureSearchText` (the `search_text`
 * column, written by the adapter) and are kept in sync by triggers.
 */
/** The schema step of the structured tables (what `createSqliteStructuredStores` and friends require). */
export const STRUCTURED_SCHEMA_VERSION = 2;

export const structuredV2: Migration = {
  version: STRUCTURED_SCHEMA_VERSION,
  name: 'structured',
  up(db) {
    db.exec(`
      CREATE TABLE messages (
        rid        INTEGER PRIMARY KEY,
        space      TEXT NOT NULL,
        id         TEXT NOT NULL,
        session_id TEXT NOT NULL,
        role       TEXT NOT NULL,
        content    TEXT NOT NULL,
        tool_calls TEXT NOT NULL DEFAULT '[]',
        name       TEXT,
        metadata   TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX messages_id ON messages (space, id);
      CREATE INDEX messages_session ON messages (space, session_id, rid);

      -- One fact per (space, user, topic, key); topic NULL is the global scope (kept apart from any topic text).
      CREATE TABLE facts (
        space      TEXT    NOT NULL,
        user_id    TEXT    NOT NULL,
        topic      TEXT,
        key        TEXT    NOT NULL,
        value      TEXT    NOT NULL,
        source     TEXT    NOT NULL,
        priority   INTEGER NOT NULL,
        created_at TEXT    NOT NULL,
        updated_at TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX facts_key ON facts (space, user_id, topic IS NULL, ifnull(topic, ''), key);

      CREATE TABLE goals (
        rid        INTEGER PRIMARY KEY,
        space      TEXT NOT NULL,
        id         TEXT NOT NULL,
        user_id    TEXT NOT NULL,
        topic      TEXT,
        goal       TEXT NOT NULL,
        status     TEXT NOT NULL CHECK (status IN ('active', 'completed', 'abandoned', 'replaced')),
        metadata   TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX goals_id ON goals (space, id);
      -- At most one active goal per (space, user, topic), whatever the writers do.
      CREATE UNIQUE INDEX goals_active ON goals (space, user_id, topic IS NULL, ifnull(topic, ''))
        WHERE status = 'active';
      CREATE INDEX goals_user ON goals (space, user_id, created_at, rid);

      CREATE TABLE summaries (
        space            TEXT    NOT NULL,
        session_id       TEXT    NOT NULL,
        summary          TEXT    NOT NULL,
        messages_covered INTEGER NOT NULL,
        version          INTEGER NOT NULL,
        created_at       TEXT    NOT NULL,
        updated_at       TEXT    NOT NULL,
        PRIMARY KEY (space, session_id)
      ) WITHOUT ROWID;

      CREATE TABLE users (
        space       TEXT NOT NULL,
        external_id TEXT NOT NULL,
        id          TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (space, external_id)
      ) WITHOUT ROWID;
      CREATE UNIQUE INDEX users_id ON users (space, id);

      CREATE TABLE session_state (
        space      TEXT NOT NULL,
        session_id TEXT NOT NULL,
        state      TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (space, session_id)
      ) WITHOUT ROWID;

      CREATE TABLE phases (
        rid        INTEGER PRIMARY KEY,
        space      TEXT NOT NULL,
        session_id TEXT NOT NULL,
        phase      TEXT NOT NULL,
        metadata   TEXT NOT NULL DEFAULT '{}',
        at         TEXT NOT NULL
      );
      CREATE INDEX phases_session ON phases (space, session_id, rid);

      CREATE TABLE tool_events (
        rid        INTEGER PRIMARY KEY,
        space      TEXT NOT NULL,
        id         TEXT NOT NULL,
        session_id TEXT,
        tool       TEXT NOT NULL,
        input      TEXT NOT NULL,
        output     TEXT NOT NULL,
        latency_ms REAL NOT NULL,
        error      TEXT,
        at         TEXT NOT NULL
      );
      CREATE UNIQUE INDEX tool_events_id ON tool_events (space, id);
      CREATE INDEX tool_events_at ON tool_events (space, at, rid);
      CREATE INDEX tool_events_session ON tool_events (space, session_id, at, rid);
      CREATE INDEX tool_events_tool ON tool_events (space, tool, at, rid);

      CREATE TABLE episodes (
        rid             INTEGER PRIMARY KEY,
        space           TEXT NOT NULL,
        id              TEXT NOT NULL,
        summary         TEXT NOT NULL,
        key_decisions   TEXT NOT NULL DEFAULT '[]',
        tools_used      TEXT NOT NULL DEFAULT '[]',
        outcome         TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'partial', 'unknown')),
        session_id      TEXT,
        timestamp       TEXT NOT NULL,
        tags            TEXT NOT NULL DEFAULT '[]',
        metadata        TEXT NOT NULL DEFAULT '{}',
        search_text     TEXT NOT NULL,
        embedding       BLOB,
        embedding_model TEXT
      );
      CREATE UNIQUE INDEX episodes_id ON episodes (space, id);
      CREATE INDEX episodes_recent ON episodes (space, timestamp DESC, id DESC);

      ${tagTableDdl('episode', 'episodes', '      ')}

      ${ftsIndexDdl('episodes', ['search_text'], '      ')}

      CREATE TABLE procedures (
        rid             INTEGER PRIMARY KEY,
        space           TEXT    NOT NULL,
        id              TEXT    NOT NULL,
        name            TEXT    NOT NULL,
        description     TEXT    NOT NULL,
        trigger_text    TEXT    NOT NULL,
        steps           TEXT    NOT NULL DEFAULT '[]',
        success_count   INTEGER NOT NULL DEFAULT 0,
        failure_count   INTEGER NOT NULL DEFAULT 0,
        tags            TEXT    NOT NULL DEFAULT '[]',
        metadata        TEXT    NOT NULL DEFAULT '{}',
        created_at      TEXT    NOT NULL,
        updated_at      TEXT    NOT NULL,
        search_text     TEXT    NOT NULL,
        embedding       BLOB,
        embedding_model TEXT
      );
      CREATE UNIQUE INDEX procedures_id ON procedures (space, id);
      CREATE INDEX procedures_recent ON procedures (space, created_at DESC, id DESC);

      ${ftsIndexDdl('procedures', ['search_text'], '      ')}
    `);
  },
};
