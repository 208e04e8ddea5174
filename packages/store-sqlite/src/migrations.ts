/**
 * Schema migrations of the shared SQLite file: the steps of each port family live in migrations/ (knowledge,
 * structured, conversation); this file lists every step in the order it applies and runs the pending ones.
 */
import type { Database } from 'better-sqlite3';
import { withBusyRetry } from './database.js';
import { conversationV3 } from './migrations/conversation.js';
import { graphV9 } from './migrations/graph.js';
import {
  chunksOwnerTimeV7,
  formationV8,
  ftsDeferredV6,
  knowledgeV1,
  ratingsCountedV5,
} from './migrations/knowledge.js';
import { structuredV2 } from './migrations/structured.js';
import type { Migration } from './migrations/types.js';

export { CONVERSATION_SCHEMA_VERSION } from './migrations/conversation.js';
export { GRAPH_SCHEMA_VERSION } from './migrations/graph.js';
export { STRUCTURED_SCHEMA_VERSION } from './migrations/structured.js';
export type { Migration } from './migrations/types.js';

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

/** Every schema step of the shared database file, oldest first. Later ports append here. */
export const migrations: readonly Migration[] = [
  knowledgeV1,
  structuredV2,
  conversationV3,
  secureDeleteV4,
  ratingsCountedV5,
  ftsDeferredV6,
  chunksOwnerTimeV7,
  formationV8,
  graphV9,
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
