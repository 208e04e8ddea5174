/** The knowledge port's schema steps on SQLite. */
import type { Database } from 'better-sqlite3';
import { ftsIndexDdl, tagTableDdl } from './ddl.js';
import type { Migration } from './types.js';

/** Knowledge memory: chunks, tags, FTS5 keyword index, versions, ratings, meta. */
export const knowledgeV1: Migration = {
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

      ${tagTableDdl('chunk', 'chunks', '      ')}

      -- External-content FTS5 index over name + content: the text is stored once (in chunks),
      -- bm25() works, and 'rebuild' / 'integrity-check' can repair or verify the index from chunks.
      ${ftsIndexDdl('chunks', ['name', 'content'], '      ')}

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
 * Ratings cannot be stuffed (issue 15): a rating row says whether it counts. A rater's newer vote on a memory takes
 * back its earlier counted ones (the rows stay, uncounted); an author's votes on its own memory never count.
 * Existing rows keep counting as they did.
 */
export const ratingsCountedV5: Migration = {
  version: 5,
  name: 'ratings-counted',
  up(db) {
    db.exec(`
      ALTER TABLE ratings ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
      CREATE INDEX ratings_rater ON ratings (space, doc_id, agent_id) WHERE counted = 1;
    `);
  },
};

/**
 * The FTS5 index of `chunks` serves only the exact keyword path (the pruned index answers most searches, see
 * keyword/), so a write no longer indexes its new rows there: it records them in `fts_pending`, and the rows are
 * indexed in one statement when an FTS5 search needs them (`syncFts`). A row leaves FTS5 at once when it is deleted
 * or edited (only if it was indexed), so forget still leaves nothing in the index; an edited row is indexed again
 * with its new text when next needed. Existing rows are all indexed already.
 */
export const ftsDeferredV6: Migration = {
  version: 6,
  name: 'fts-deferred-inserts',
  up(db) {
    db.exec(`
      CREATE TABLE fts_pending (rid INTEGER PRIMARY KEY);
      DROP TRIGGER chunks_fts_insert;
      DROP TRIGGER chunks_fts_delete;
      DROP TRIGGER chunks_fts_update;
      CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
        INSERT OR IGNORE INTO fts_pending (rid) VALUES (new.rid);
      END;
      CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts (chunks_fts, rowid, name, content)
          SELECT 'delete', old.rid, old.name, old.content WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE rid = old.rid);
        DELETE FROM fts_pending WHERE rid = old.rid;
      END;
      CREATE TRIGGER chunks_fts_update AFTER UPDATE OF name, content ON chunks BEGIN
        INSERT INTO chunks_fts (chunks_fts, rowid, name, content)
          SELECT 'delete', old.rid, old.name, old.content WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE rid = old.rid);
        INSERT OR IGNORE INTO fts_pending (rid) VALUES (new.rid);
      END;
    `);
  },
};

/**
 * The neighbouring turns of a search hit (`neighbours`: the `radius` chunks of the same owner and source just before and
 * after it) are a walk of `chunks_owner_time`, `radius` entries each way. They walked `chunks_space_scan` (space,
 * created_at, id) and read every chunk in between to find the owner's: with sixteen owners in a space, ~30 table rows
 * per side, 0.9 ms of a 4.7 ms search at 100,000 memories. The space-wide time order it replaces served only `scan`
 * of one space (export), which walks `chunks_scan` (created_at, id) instead and skips other spaces' rows; so a write
 * still updates as many indexes as before.
 */
export const chunksOwnerTimeV7: Migration = {
  version: 7,
  name: 'chunks-owner-time',
  up(db) {
    db.exec(`
      DROP INDEX chunks_space_scan;
      CREATE INDEX chunks_owner_time ON chunks (space, scope, agent_id, source, created_at, id);
    `);
  },
};

/** Inside a write transaction: index the rows `fts_pending` holds in FTS5 (one statement), and empty it. */
export function syncFts(db: Database): number {
  const added = db
    .prepare(
      `INSERT INTO chunks_fts (rowid, name, content)
       SELECT c.rid, c.name, c.content FROM fts_pending p CROSS JOIN chunks c ON c.rid = p.rid`,
    )
    .run().changes;
  db.prepare('DELETE FROM fts_pending').run();
  return added;
}

/**
 * Memory that forms itself (docs/formation.md): every chunk gets its world time (`valid_from`, `valid_to`), the time it
 * was closed (`invalidated_at`), its place in a supersede chain, the end user it is about and its claim (JSON); the
 * decision log keeps why each formed memory is believed. Old rows read back as memories written on purpose (all NULL).
 * The search filter index is rebuilt on open with the new columns every search reads (`ensureFilterIndex`).
 */
export const formationV8: Migration = {
  version: 8,
  name: 'formation',
  up(db) {
    db.exec(`
      ALTER TABLE chunks ADD COLUMN valid_from TEXT;
      ALTER TABLE chunks ADD COLUMN valid_to TEXT;
      ALTER TABLE chunks ADD COLUMN invalidated_at TEXT;
      ALTER TABLE chunks ADD COLUMN supersedes TEXT;
      ALTER TABLE chunks ADD COLUMN superseded_by TEXT;
      ALTER TABLE chunks ADD COLUMN user_id TEXT;
      ALTER TABLE chunks ADD COLUMN claim TEXT;
      DROP INDEX IF EXISTS chunks_filter;
      CREATE TABLE formation_log (
        space          TEXT NOT NULL,
        id             TEXT NOT NULL,
        memory_id      TEXT NOT NULL,
        decision       TEXT NOT NULL,
        previous_id    TEXT,
        text           TEXT NOT NULL,
        evidence       TEXT NOT NULL,
        extractor      TEXT NOT NULL,
        model          TEXT,
        prompt_version TEXT NOT NULL,
        related        TEXT NOT NULL,
        agent_id       TEXT NOT NULL,
        user_id        TEXT,
        at             TEXT NOT NULL,
        PRIMARY KEY (space, id)
      );
      CREATE INDEX formation_log_memory ON formation_log (space, memory_id, at, id);
    `);
  },
};
