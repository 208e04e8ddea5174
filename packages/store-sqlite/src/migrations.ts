import type { Database } from 'better-sqlite3';
import { withBusyRetry } from './database.js';

/**
 * One schema step. Steps are applied in `version` order, each in its own BEGIN IMMEDIATE transaction,
 * and recorded in `schema_migrations`. A published step never changes: later ports add new steps.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

/** Knowledge memory: chunks, tags, FTS5 keyword index, versions, ratings, meta. */
const knowledgeV1: Migration = {
  version: 1,
  name: 'knowledge',
  up(db) {
    db.exec(`
      CREATE TABLE chunks (
        rid              INTEGER PRIMARY KEY,
        id               TEXT    NOT NULL,
        doc_id           TEXT    NOT NULL,
        space            TEXT    NOT NULL,
        scope            TEXT    NOT NULL CHECK (scope IN ('agent', 'swarm')),
        agent_id         TEXT    NOT NULL,
        key              TEXT    NOT NULL,
        name             TEXT    NOT NULL,
        content          TEXT    NOT NULL,
        body_start       INTEGER NOT NULL DEFAULT 0,
        chunk_index      INTEGER NOT NULL,
        chunk_count      INTEGER NOT NULL,
        source           TEXT    NOT NULL,
        tags             TEXT    NOT NULL DEFAULT '[]',
        embedding        BLOB,
        embedding_model  TEXT,
        content_hash     TEXT    NOT NULL,
        created_at       TEXT    NOT NULL,
        updated_at       TEXT    NOT NULL,
        expires_at       TEXT,
        access_count     INTEGER NOT NULL DEFAULT 0,
        last_accessed_at TEXT,
        alpha            REAL    NOT NULL DEFAULT 1,
        beta             REAL    NOT NULL DEFAULT 1,
        version          INTEGER NOT NULL DEFAULT 1
      );
      -- (id, space): unique per space, and serves lookups by id alone (updateEmbeddings).
      CREATE UNIQUE INDEX chunks_id ON chunks (id, space);
      -- One key per (space, scope, owner); chunks of one document share the key with distinct chunk_index.
      CREATE UNIQUE INDEX chunks_key ON chunks (space, scope, agent_id, key, chunk_index);
      CREATE INDEX chunks_doc ON chunks (space, doc_id, chunk_index);
      CREATE INDEX chunks_hash ON chunks (space, scope, agent_id, content_hash);
      CREATE INDEX chunks_scan ON chunks (created_at, id);
      CREATE INDEX chunks_space_scan ON chunks (space, created_at, id);
      CREATE INDEX chunks_expiry ON chunks (expires_at) WHERE expires_at IS NOT NULL;

      CREATE TABLE chunk_tags (
        chunk_rid INTEGER NOT NULL REFERENCES chunks (rid) ON DELETE CASCADE,
        tag       TEXT    NOT NULL,
        PRIMARY KEY (chunk_rid, tag)
      ) WITHOUT ROWID;
      CREATE INDEX chunk_tags_tag ON chunk_tags (tag, chunk_rid);

      -- External-content FTS5 index over name + content: the text is stored once (in chunks),
      -- bm25() works, and 'rebuild' / 'integrity-check' can repair or verify the index from chunks.
      CREATE VIRTUAL TABLE chunks_fts USING fts5 (
        name, content,
        content = 'chunks', content_rowid = 'rid',
        tokenize = 'porter unicode61'
      );
      CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts (rowid, name, content) VALUES (new.rid, new.name, new.content);
      END;
      CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts (chunks_fts, rowid, name, content) VALUES ('delete', old.rid, old.name, old.content);
      END;
      CREATE TRIGGER chunks_fts_update AFTER UPDATE OF name, content ON chunks BEGIN
        INSERT INTO chunks_fts (chunks_fts, rowid, name, content) VALUES ('delete', old.rid, old.name, old.content);
        INSERT INTO chunks_fts (rowid, name, content) VALUES (new.rid, new.name, new.content);
      END;

      CREATE TABLE versions (
        vid         INTEGER PRIMARY KEY,
        space       TEXT    NOT NULL,
        doc_id      TEXT    NOT NULL,
        version     INTEGER NOT NULL,
        old_content TEXT    NOT NULL,
        old_key     TEXT    NOT NULL,
        intent      TEXT    NOT NULL,
        agent_id    TEXT    NOT NULL,
        at          TEXT    NOT NULL
      );
      CREATE INDEX versions_doc ON versions (space, doc_id, version);

      CREATE TABLE ratings (
        space    TEXT    NOT NULL,
        doc_id   TEXT    NOT NULL,
        task_id  TEXT    NOT NULL,
        useful   INTEGER NOT NULL,
        note     TEXT,
        agent_id TEXT    NOT NULL,
        at       TEXT    NOT NULL,
        PRIMARY KEY (space, doc_id, task_id)
      );

      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};

/**
 * Structured stores (docs/structured.md): messages, facts, goals, summaries, users, session state, phases, tool events,
 * episodes and procedures. Every table is keyed by space first. Rowids give insertion order where a port asks for
 * it; FTS5 external-content tables index exactly `episodeSearchText` / `procedureSearchText` (the `search_text`
 * column, written by the adapter) and are kept in sync by triggers.
 */
/** The schema step of the structured tables (what `createSqliteStructuredStores` and friends require). */
export const STRUCTURED_SCHEMA_VERSION = 2;

const structuredV2: Migration = {
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

      CREATE TABLE episode_tags (
        episode_rid INTEGER NOT NULL REFERENCES episodes (rid) ON DELETE CASCADE,
        tag         TEXT    NOT NULL,
        PRIMARY KEY (episode_rid, tag)
      ) WITHOUT ROWID;
      CREATE INDEX episode_tags_tag ON episode_tags (tag, episode_rid);

      CREATE VIRTUAL TABLE episodes_fts USING fts5 (
        search_text,
        content = 'episodes', content_rowid = 'rid',
        tokenize = 'porter unicode61'
      );
      CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN
        INSERT INTO episodes_fts (rowid, search_text) VALUES (new.rid, new.search_text);
      END;
      CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes BEGIN
        INSERT INTO episodes_fts (episodes_fts, rowid, search_text) VALUES ('delete', old.rid, old.search_text);
      END;
      CREATE TRIGGER episodes_fts_update AFTER UPDATE OF search_text ON episodes BEGIN
        INSERT INTO episodes_fts (episodes_fts, rowid, search_text) VALUES ('delete', old.rid, old.search_text);
        INSERT INTO episodes_fts (rowid, search_text) VALUES (new.rid, new.search_text);
      END;

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

      CREATE VIRTUAL TABLE procedures_fts USING fts5 (
        search_text,
        content = 'procedures', content_rowid = 'rid',
        tokenize = 'porter unicode61'
      );
      CREATE TRIGGER procedures_fts_insert AFTER INSERT ON procedures BEGIN
        INSERT INTO procedures_fts (rowid, search_text) VALUES (new.rid, new.search_text);
      END;
      CREATE TRIGGER procedures_fts_delete AFTER DELETE ON procedures BEGIN
        INSERT INTO procedures_fts (procedures_fts, rowid, search_text) VALUES ('delete', old.rid, old.search_text);
      END;
      CREATE TRIGGER procedures_fts_update AFTER UPDATE OF search_text ON procedures BEGIN
        INSERT INTO procedures_fts (procedures_fts, rowid, search_text) VALUES ('delete', old.rid, old.search_text);
        INSERT INTO procedures_fts (rowid, search_text) VALUES (new.rid, new.search_text);
      END;
    `);
  },
};

/** The schema step of the transcript and notebook tables (what `createSqliteTranscriptStore` / `…NotebookStore` require). */
export const CONVERSATION_SCHEMA_VERSION = 3;

/**
 * Conversation memory and notebooks (docs/conversations.md, docs/notebooks.md). A transcript is a header row (`transcripts`, with the next message
 * sequence number) plus its messages (`transcript_messages`, ordered by a sequence that only grows per (space, agent)).
 * An archive is a header row plus a copy of every message of the transcript it froze; archive rows are never updated.
 * Notebook files are one row each; `user_id` / `topic` are '' for the agent-wide notebook (names are never empty).
 * Large contents live in rowid tables (a WITHOUT ROWID table stores whole rows in its B-tree pages).
 */
const conversationV3: Migration = {
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

/**
 * Forget leaves nothing behind (issue 9 §5): the full-text indexes remove a deleted row's terms from the index itself
 * (FTS5 `secure-delete`) instead of recording a delete marker next to the old entry until the next merge. Together
 * with `PRAGMA secure_delete` (set on every connection), deleted text is overwritten in the file.
 */
const secureDeleteV4: Migration = {
  version: 4,
  name: 'fts-secure-delete',
  up(db) {
    for (const table of ['chunks_fts', 'episodes_fts', 'procedures_fts']) {
      db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('secure-delete', 1)`).run();
    }
  },
};

/**
 * Ratings cannot be stuffed (issue 15): a rating row says whether it counts. A rater's newer vote on a memory takes
 * back its earlier counted ones (the rows stay, uncounted); an author's votes on its own memory never count.
 * Existing rows keep counting as they did.
 */
const ratingsCountedV5: Migration = {
  version: 5,
  name: 'ratings-counted',
  up(db) {
    db.exec(`
      ALTER TABLE ratings ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
      CREATE INDEX ratings_rater ON ratings (space, doc_id, agent_id) WHERE counted = 1;
    `);
  },
};

/** Every schema step of the shared database file, oldest first. Later ports append here. */
export const migrations: readonly Migration[] = [
  knowledgeV1,
  structuredV2,
  conversationV3,
  secureDeleteV4,
  ratingsCountedV5,
];

export interface MigrationResult {
  /** Versions applied by this call (empty when the schema was already current). */
  applied: number[];
  /** Highest version recorded after the call. */
  current: number;
}

/**
 * Apply every step not yet recorded in `schema_migrations`. Each step runs in its own BEGIN IMMEDIATE
 * transaction and re-checks the table inside it, so two processes opening one file at once apply each
 * step exactly once (the second waits on the write lock, then sees the step recorded).
 */
export function runMigrations(db: Database, steps: readonly Migration[] = migrations): MigrationResult {
  const sorted = [...steps].sort((a, b) => a.version - b.version);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const step = sorted[i];
    if (prev && step && prev.version === step.version) throw new Error(`duplicate migration version ${step.version}`);
  }
  // Fast path for the usual open of a current file: no write lock taken.
  const known = appliedVersions(db);
  if (sorted.every((step) => known.has(step.version))) return { applied: [], current: schemaVersion(db) };
  const applied: number[] = [];
  withBusyRetry(() =>
    db
      .transaction(() => {
        db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version    INTEGER PRIMARY KEY,
          name       TEXT NOT NULL,
          applied_at TEXT NOT NULL
        )`);
      })
      .immediate(),
  );
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const step of sorted) {
    const done = withBusyRetry(() =>
      db
        .transaction(() => {
          // Re-checked under the write lock: another process may have applied the step meanwhile.
          if (isApplied.get(step.version)) return false;
          step.up(db);
          record.run(step.version, step.name, new Date().toISOString());
          return true;
        })
        .immediate(),
    );
    if (done) applied.push(step.version);
  }
  const row = db.prepare<[], { v: number | null }>('SELECT max(version) AS v FROM schema_migrations').get();
  return { applied, current: row?.v ?? 0 };
}

/** Highest applied version, or 0 for a database without `schema_migrations`. */
export function schemaVersion(db: Database): number {
  const table = db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!table) return 0;
  const row = db.prepare<[], { v: number | null }>('SELECT max(version) AS v FROM schema_migrations').get();
  return row?.v ?? 0;
}

function appliedVersions(db: Database): Set<number> {
  if (schemaVersion(db) === 0) return new Set();
  return new Set(
    db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      .all()
      .map((row) => row.version),
  );
}
