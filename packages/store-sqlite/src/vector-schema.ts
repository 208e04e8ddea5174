/**
 * The tables and triggers of the SQLite store's vector index (`vector-index.ts` uses them): created on a file's first
 * use with the index, and rebuilt once from the layout of files made before 2026-12-03.
 */
import type { Database } from 'better-sqlite3';

/** The list of rows not filed yet (searched exactly). */
export const PENDING = -1;

/** The index's row table: one row per chunk with a vector, keyed by the chunk's rid; `vec_ivf_list` finds a list's rows. */
const VEC_IVF_TABLE = `
  CREATE TABLE vec_ivf (
    rid  INTEGER PRIMARY KEY,
    list INTEGER NOT NULL,
    q    BLOB
  );
  CREATE INDEX vec_ivf_list ON vec_ivf (list);`;

/** The triggers on `chunks` that keep the index complete whoever writes the file. */
const VEC_IVF_TRIGGERS = `
  CREATE TRIGGER vec_ivf_insert AFTER INSERT ON chunks WHEN new.embedding IS NOT NULL BEGIN
    INSERT INTO vec_ivf (list, rid, q) VALUES (${PENDING}, new.rid, NULL);
  END;
  CREATE TRIGGER vec_ivf_delete AFTER DELETE ON chunks BEGIN
    DELETE FROM vec_ivf WHERE rid = old.rid;
  END;
  CREATE TRIGGER vec_ivf_update AFTER UPDATE OF embedding ON chunks BEGIN
    DELETE FROM vec_ivf WHERE rid = old.rid;
    INSERT INTO vec_ivf (list, rid, q) SELECT ${PENDING}, new.rid, NULL WHERE new.embedding IS NOT NULL;
  END;`;

/** The layout files made before 2026-12-03 have: `vec_ivf` clustered by (list, rid), WITHOUT ROWID. */
function hasListClusteredLayout(db: Database): boolean {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'vec_ivf'").get() as
    | { sql: string }
    | undefined;
  return row !== undefined && /WITHOUT\s+ROWID/i.test(row.sql);
}

/**
 * Create the index tables and triggers when missing, and enter every existing vector as pending.
 *
 * `vec_ivf` is keyed by rid, with an index on its list. It was clustered by (list, rid) before: a list's rows were then
 * contiguous, but a batch's rows landed in a thousand lists and so on a thousand pages, which made the index 45 % of
 * the pages a batch wrote to the WAL (measured at 40,000 memories: 1,359 of 3,017 pages for a batch of 1,000). Keyed
 * by rid, a batch's rows are appended together and only the small list index takes scattered writes. Reading a list
 * now looks its rows up by rid, which only the first search touching a list pays (the list cache holds it after).
 * A file with the old layout is rebuilt once on open, assignments and codes kept, in one transaction.
 */
export function ensureVectorIndexSchema(db: Database): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vec_ivf'").get();
  if (exists && !hasListClusteredLayout(db)) return;
  try {
    createOrRebuild(db);
  } catch (error) {
    // A file this process may only read keeps the old layout: every statement of the index reads and writes both.
    const code = (error as { code?: unknown }).code;
    if (exists && typeof code === 'string' && code.startsWith('SQLITE_READONLY')) return;
    throw error;
  }
}

function createOrRebuild(db: Database): void {
  db.transaction(() => {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vec_ivf'").get()) {
      if (!hasListClusteredLayout(db)) return;
      // The triggers name the table: they go first and come back with the new table.
      db.exec(`
        DROP TRIGGER IF EXISTS vec_ivf_insert;
        DROP TRIGGER IF EXISTS vec_ivf_delete;
        DROP TRIGGER IF EXISTS vec_ivf_update;
        ALTER TABLE vec_ivf RENAME TO vec_ivf_old;
        ${VEC_IVF_TABLE}
        INSERT INTO vec_ivf (rid, list, q) SELECT rid, list, q FROM vec_ivf_old;
        DROP TABLE vec_ivf_old;
        ${VEC_IVF_TRIGGERS}
      `);
      return;
    }
    db.exec(`
      ${VEC_IVF_TABLE}
      CREATE TABLE vec_ivf_centroids (
        level    INTEGER NOT NULL,
        idx      INTEGER NOT NULL,
        parent   INTEGER NOT NULL,
        centroid BLOB    NOT NULL,
        PRIMARY KEY (level, idx)
      ) WITHOUT ROWID;
      ${VEC_IVF_TRIGGERS}
      INSERT INTO vec_ivf (list, rid, q) SELECT ${PENDING}, rid, NULL FROM chunks WHERE embedding IS NOT NULL;
    `);
  }).immediate();
}
