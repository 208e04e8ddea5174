/**
 * The SQLite ports the crash and concurrency harness (@mem/testkit `crash/`) opens, in its writer processes
 * (test/crash-child.ts) and in the test that checks after each kill. Target: `{ path }` of the database file.
 */
import type { HarnessPorts, HarnessTarget, HarnessWorkload } from '@mem/testkit/internal';
import Database from 'better-sqlite3';
import { createSqliteNotebookStore, createSqliteStore, createSqliteTranscriptStore } from '../src/index.js';
import { checkKeywordIndex } from '../src/keyword/check.js';
import { syncFts } from '../src/migrations/knowledge.js';

export async function openSqlitePorts(target: HarnessTarget, workload: HarnessWorkload): Promise<HarnessPorts> {
  const path = String(target.path);
  if (workload === 'transcript') {
    const transcripts = createSqliteTranscriptStore({ path });
    return { transcripts, close: () => transcripts.close() };
  }
  if (workload === 'notebook') {
    const notebooks = createSqliteNotebookStore({ path });
    return { notebooks, close: () => notebooks.close() };
  }
  const knowledge = createSqliteStore({ path });
  return { knowledge, close: () => knowledge.close() };
}

/** The file passes SQLite's own checks (pages, indexes, foreign keys, the full-text index) and the keyword index's. */
export async function inspectSqliteFile(path: string): Promise<void> {
  const db = new Database(path);
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`integrity_check: ${String(integrity)}`);
    const orphans = db.pragma('foreign_key_check') as unknown[];
    if (orphans.length > 0) throw new Error(`foreign_key_check: ${JSON.stringify(orphans.slice(0, 3))}`);
    const fts = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'chunks_fts'").get();
    if (fts) {
      // Rows a write left for FTS5 to index when next needed are indexed first (as a search would), and the index
      // is checked in the same transaction (a writer still running must not add a row in between): the index must
      // hold exactly the chunks' text, so a row missing from the pending set, or indexed twice, fails the check.
      db.transaction(() => {
        syncFts(db);
        db.prepare("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)").run();
      }).immediate();
    }
    // The pruned keyword index holds exactly the chunks' terms (a write's index upkeep commits with it or not at all).
    const keyword = checkKeywordIndex(db);
    if (keyword.length > 0) throw new Error(`keyword index: ${keyword.join('; ')}`);
  } finally {
    db.close();
  }
}
