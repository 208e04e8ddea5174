/** The schema step of the transcript and notebook tables on SQLite. */
import type { Migration } from './types.js';

/** The schema step of the transcript and notebook tables (what `createSqliteTranscriptStore` / `…NotebookStore` require). */
export const CONVERSATION_SCHEMA_VERSION = 3;

/**
 * Conversation memory and notebooks (docs/conversations.md, docs/notebooks.md). A transcript is a header row (`transcripts`, with the next message
 * sequence number) plus its messages (`transcript_messages`, ordered by a sequence that only grows per (space, agent)).
 * An archive is a header row plus a copy of every message of the transcript it froze; archive rows are never updated.
 * Notebook files are one row each; `user_id` / `topic` are '' for the agent-wide notebook (names are never empty).
 * Large contents live in rowid tables (a WITHOUT ROWID table stores whole rows in its B-tree pages).
 */
export const conversationV3: Migration = {
  version: CONVERSATION_SCHEMA_VERSION,
  name: 'conversation',
  up(db) {
    db.exec(`
      CREATE TABLE transcripts (
        space           TEXT    NOT NULL,
        agent           TEXT    NOT NULL,
        conversation_id TEXT    NOT NULL,
        created_at      TEXT    NOT NULL,
        next_seq        INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (space, agent)
      ) WITHOUT ROWID;

      CREATE TABLE transcript_messages (
        rid     INTEGER PRIMARY KEY,
        space   TEXT    NOT NULL,
        agent   TEXT    NOT NULL,
        seq     INTEGER NOT NULL,
        role    TEXT    NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content TEXT    NOT NULL,
        at      TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX transcript_messages_seq ON transcript_messages (space, agent, seq);

      CREATE TABLE transcript_archives (
        rid             INTEGER PRIMARY KEY,
        space           TEXT    NOT NULL,
        agent           TEXT    NOT NULL,
        id              TEXT    NOT NULL,
        archived_at     TEXT    NOT NULL,
        n               INTEGER NOT NULL,
        conversation_id TEXT    NOT NULL,
        created_at      TEXT    NOT NULL,
        size            INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX transcript_archives_id ON transcript_archives (space, agent, id);
      CREATE UNIQUE INDEX transcript_archives_order ON transcript_archives (space, agent, archived_at, n);

      CREATE TABLE transcript_archive_messages (
        rid         INTEGER PRIMARY KEY,
        archive_rid INTEGER NOT NULL REFERENCES transcript_archives (rid) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        role        TEXT    NOT NULL,
        content     TEXT    NOT NULL,
        at          TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX transcript_archive_messages_seq ON transcript_archive_messages (archive_rid, seq);

      CREATE TABLE notebook_files (
        rid        INTEGER PRIMARY KEY,
        space      TEXT    NOT NULL,
        agent      TEXT    NOT NULL,
        user_id    TEXT    NOT NULL DEFAULT '',
        topic      TEXT    NOT NULL DEFAULT '',
        path       TEXT    NOT NULL,
        content    TEXT    NOT NULL,
        version    TEXT    NOT NULL,
        size       INTEGER NOT NULL,
        updated_at TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX notebook_files_path ON notebook_files (space, agent, user_id, topic, path);
    `);
  },
};
