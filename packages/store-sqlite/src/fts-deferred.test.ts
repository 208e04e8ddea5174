// The FTS5 index of chunks is filled when an FTS5 search needs it, not by every write (migration 6): what a write
// leaves pending, how a delete or an edit treats pending and indexed rows, and a file from before the change.
import type { MemoryRecord } from '@mem/core/adapter';
import { keywordHits, memoryRecord, tempDir } from '@mem/testkit';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore, migrations, runMigrations } from './index.js';

const dir = tempDir('fts-deferred');
afterAll(() => dir.remove());
const NOW = '2025-01-01T00:00:00.000Z';
const filter = { space: 's1', viewerAgentId: 'a1', now: NOW };

function record(id: string, content: string, tags: string[] = []): MemoryRecord {
  // Swarm scope in space s1, owned by a1 (the testkit's defaults otherwise).
  return memoryRecord({ id, docId: id, space: 's1', scope: 'swarm', agentId: 'a1', name: id, content, tags });
}

function counts(db: Database.Database): { pending: number; indexed: number } {
  const pending = (db.prepare('SELECT count(*) AS n FROM fts_pending').get() as { n: number }).n;
  const indexed = (db.prepare('SELECT count(*) AS n FROM chunks_fts_docsize').get() as { n: number }).n;
  return { pending, indexed };
}

/** FTS5's own check of the index against the chunks' text (throws when they differ). */
function integrityCheck(db: Database.Database): void {
  db.prepare("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)").run();
}

describe('the deferred FTS5 index', () => {
  it('a write leaves its rows pending; the first FTS5 search indexes them and finds them', async () => {
    const store = createSqliteStore({ path: dir.join('a.db') });
    await store.insertDocuments([
      [record('d1', 'the quarterly invoice run', ['billing'])],
      [record('d2', 'invoice template')],
    ]);
    expect(counts(store.db)).toEqual({ pending: 2, indexed: 0 });
    // A tag filter is answered by FTS5 (the pruned index does not filter by tag).
    const hits = await keywordHits(store, { filter: { ...filter, tags: ['billing'] }, terms: ['invoice'], limit: 5 });
    expect(hits.map((h) => h.id)).toEqual(['d1']);
    expect(counts(store.db)).toEqual({ pending: 0, indexed: 2 });
    integrityCheck(store.db);
    await store.close();
  });

  it('a delete or an edit of a pending row never touches FTS5; of an indexed row removes its old text at once', async () => {
    const store = createSqliteStore({ path: dir.join('b.db') });
    const exact = createSqliteStore({ path: dir.join('b.db'), index: { keyword: { type: 'fts5' } } });
    await store.insertDocuments([
      [record('p1', 'pending only')],
      [record('i1', 'indexed walrus')],
      [record('i2', 'indexed narwhal')],
    ]);
    await keywordHits(exact, { filter, terms: ['indexed'], limit: 5 });
    await store.insertDocuments([[record('p2', 'another pending walrus')]]);
    expect(counts(store.db)).toEqual({ pending: 1, indexed: 3 });
    // Delete an indexed row and a pending one; edit an indexed row's text.
    await store.deleteDocument('s1', 'i2');
    await store.deleteDocument('s1', 'p2');
    await store.replaceDocument(
      's1',
      'i1',
      [record('i1', 'renamed to orca')],
      {
        space: 's1',
        docId: 'i1',
        version: 1,
        oldContent: 'indexed walrus',
        oldKey: '/k/i1',
        intent: 'test',
        agentId: 'a1',
        at: NOW,
      },
      1,
    );
    // The edited row's old text is gone from FTS5 already; it waits to be indexed with its new text.
    expect(counts(store.db)).toEqual({ pending: 1, indexed: 1 });
    expect(await keywordHits(exact, { filter, terms: ['walrus'], limit: 5 })).toEqual([]);
    expect((await keywordHits(exact, { filter, terms: ['orca'], limit: 5 })).map((h) => h.id)).toEqual(['i1']);
    expect((await keywordHits(exact, { filter, terms: ['narwhal'], limit: 5 })).map((h) => h.id)).toEqual([]);
    expect(counts(store.db)).toEqual({ pending: 0, indexed: 2 });
    integrityCheck(store.db);
    await exact.close();
    await store.close();
  });

  it('a file indexed by the earlier triggers keeps its rows indexed, and new rows wait', async () => {
    const path = dir.join('old.db');
    const old = new Database(path);
    runMigrations(
      old,
      migrations.filter((m) => m.version < 6),
    );
    old.exec(`INSERT INTO chunks (id, doc_id, space, scope, agent_id, key, name, content, chunk_index, chunk_count, source,
      content_hash, created_at, updated_at) VALUES ('o1', 'o1', 's1', 'swarm', 'a1', '/k/o1', 'o1', 'an old seahorse', 0, 1,
      'manual', 'h1', '${NOW}', '${NOW}')`);
    old.close();
    const store = createSqliteStore({ path, index: { keyword: { type: 'fts5' } } });
    expect(counts(store.db)).toEqual({ pending: 0, indexed: 1 });
    await store.insertDocuments([[record('n1', 'a new seahorse')]]);
    expect(counts(store.db)).toEqual({ pending: 1, indexed: 1 });
    const hits = await keywordHits(store, { filter, terms: ['seahorse'], limit: 5 });
    expect(hits.map((h) => h.id).sort()).toEqual(['n1', 'o1']);
    integrityCheck(store.db);
    await store.close();
  });
});
