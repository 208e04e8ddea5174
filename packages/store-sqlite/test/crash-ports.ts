/**
 * The SQLite ports the crash and concurrency harness (@mem/testkit `crash/`) opens, in its writer processes
 * (test/crash-child.ts) and in the test that checks after each kill. Target: `{ path }` of the database file.
 */
import type { HarnessPorts, HarnessTarget, HarnessWorkload } from '@mem/testkit';
import Database from 'better-sqlite3';
import { createSqliteNotebookStore, createSqliteStore, createSqliteTranscriptStore } from '../src/index.js';
import { checkKeywordIndex } from '../src/keyword/check.js';

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
    if (fts) db.prepare("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)").run();
    // The pruned keyword index holds exactly the chunks' terms (a write's index upkeep commits with it or not at all).
    const keyword = checkKeywordIndex(db);
    if (keyword.length > 0) throw new Error(`keyword index: ${keyword.join('; ')}`);
  } finally {
    db.close();
  }
}
