// The approximate vector index (IVF) of the SQLite knowledge store, on a real file, with a small threshold.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MemoryRecord, type SearchFilter, seededRandom } from '@mem/core/adapter';
import { vectorHits } from '@mem/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vectorTestCorpus } from '../test/vector-corpus.js';
import {
  createSqliteStore,
  type SqliteKnowledgeStore,
  type SqliteStoreOptions,
  sqliteIndexOptionsFromJson,
} from './index.js';

const NOW = '2025-01-01T00:00:00.000Z';
const DIM = 32;
const N = 600;

/** Uniform numbers in [-0.5, 0.5), seeded. */
function seeded(seed: number): () => number {
  const next = seededRandom(seed);
  return () => next() - 0.5;
}

const r = seeded(17);
const { vectorNear, record } = vectorTestCorpus({ random: r, dim: DIM, now: NOW, facts: true, expiring: true });

const base: SearchFilter = { space: 's1', viewerAgentId: 'a1', now: NOW };
const queries = Array.from({ length: 20 }, (_, i) => vectorNear(i * 5 + 1, 0.5));

let dir: string;
let path: string;
const open: SqliteKnowledgeStore[] = [];

function make(vector: NonNullable<SqliteStoreOptions['index']>['vector']): SqliteKnowledgeStore {
  const store = createSqliteStore({ path, index: { vector } });
  open.push(store);
  return store;
}

async function seed(store: SqliteKnowledgeStore, from = 0, to = N): Promise<void> {
  await store.setEmbeddingInfo({ model: 'test', dimension: DIM });
  const docs: MemoryRecord[][] = [];
  for (let i = from; i < to; i++) docs.push([record(i)]);
  for (let s = 0; s < docs.length; s += 100) await store.insertDocuments(docs.slice(s, s + 100));
}

const ids = async (store: SqliteKnowledgeStore, vector: Float32Array, filter: SearchFilter = base, limit = 10) =>
  (await vectorHits(store, { filter, vector, limit })).map((h) => h.id);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-ivf-'));
  path = join(dir, 'mem.db');
});

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sqlite vector index (ivf)', () => {
  it('stays exact below the threshold and trains once the file holds minRows vectors', async () => {
    const store = make({ minRows: 300, lists: 16, nprobe: 16 });
    await seed(store, 0, 250);
    expect(store.vectorIndexTrained()).toBe(false);
    await seed(store, 250, N);
    expect(store.vectorIndexTrained()).toBe(true);
    const exact = make({ type: 'none' });
    expect(exact.vectorIndexTrained()).toBe(false);
    // Probing every list, the index gives exactly the exact scan's results, similarities included.
    for (const q of queries) {
      const a = await vectorHits(store, { filter: base, vector: q, limit: 10 });
      const b = await vectorHits(exact, { filter: base, vector: q, limit: 10 });
      expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
      for (const [i, h] of a.entries()) expect(h.similarity).toBeCloseTo(b[i]!.similarity, 5);
    }
  });

  it('probing a few lists keeps recall@10 against exact search high', async () => {
    const store = make({ minRows: 300, lists: 16, nprobe: 4 });
    await seed(store);
    expect(store.vectorIndexTrained()).toBe(true);
    const exact = make({ type: 'none' });
    let found = 0;
    for (const q of queries) {
      const got = new Set(await ids(store, q));
      const want = await ids(exact, q);
      found += want.filter((id) => got.has(id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.9);
  });

  it('applies every filter before the cut, as the exact scan does', async () => {
    const store = make({ minRows: 300, lists: 16, nprobe: 2 });
    await seed(store);
    const exact = make({ type: 'none' });
    const filters: SearchFilter[] = [
      { ...base, keyPrefix: '/longterm/facts/' },
      { ...base, tags: ['five'] },
      { ...base, source: 'file_index', scope: 'agent' },
      { ...base, viewerAgentId: 'a2', keyPrefix: '/longterm/' },
      { ...base, space: 'other' },
    ];
    for (const filter of filters) {
      for (const q of queries.slice(0, 5)) {
        const got = await vectorHits(store, { filter, vector: q, limit: 10 });
        const want = await ids(exact, q, filter);
        // Every hit passes the filter (checked against the exact scan over all rows passing it).
        const allowed = new Set(await ids(exact, q, filter, N));
        for (const h of got) expect(allowed.has(h.id)).toBe(true);
        expect(got.length).toBe(want.length);
      }
    }
    // Never another agent's private rows, never expired rows.
    for (const q of queries) {
      for (const id of await ids(store, q, base, 50)) {
        const i = Number(id.slice(1));
        expect(i % 7 === 0).toBe(false);
        expect(i % 3 === 0 && i % 2 === 1).toBe(false);
      }
    }
  });

  it('finds rows written after training, and reflects deletes, edits and re-embedding', async () => {
    const store = make({ minRows: 300, lists: 16, nprobe: 2 });
    await seed(store);
    expect(store.vectorIndexTrained()).toBe(true);
    const target = Float32Array.from({ length: DIM }, (_, i) => (i % 2 === 0 ? 1 : -1));
    await store.insertDocument([record(5000, { embedding: target, scope: 'swarm', expiresAt: null })]);
    expect((await ids(store, target))[0]).toBe('r5000');

    // Edit: the document gets another vector; search follows it.
    const other = Float32Array.from({ length: DIM }, (_, i) => (i % 3 === 0 ? 1 : -0.5));
    await store.replaceDocument(
      's1',
      'r5000',
      [record(5000, { embedding: other, scope: 'swarm', expiresAt: null })],
      { docId: 'r5000', space: 's1', version: 1, oldContent: 'x', oldKey: 'k', intent: 'edit', agentId: 'a1', at: NOW },
      1,
    );
    expect((await ids(store, other))[0]).toBe('r5000');
    expect(await ids(store, target, base, 1)).not.toEqual(['r5000']);

    // Re-embedding (same dimension): the row moves with its new vector.
    await store.updateEmbeddings([{ id: 'r5000', embedding: target }], { model: 'test', dimension: DIM });
    expect((await ids(store, target))[0]).toBe('r5000');

    await store.deleteDocument('s1', 'r5000');
    expect(await ids(store, target)).not.toContain('r5000');
  });

  it('a second connection uses the index trained by the first, and a writer without the index loses nothing', async () => {
    const first = make({ minRows: 300, lists: 16, nprobe: 2 });
    await seed(first);
    const second = make({ minRows: 300, lists: 16, nprobe: 2 });
    expect(second.vectorIndexTrained()).toBe(true);
    const plain = make({ type: 'none' });
    const target = Float32Array.from({ length: DIM }, (_, i) => (i < DIM / 2 ? 1 : -1));
    // Written by a connection that does not maintain the index: pending, still found at once.
    await plain.insertDocument([record(6000, { embedding: target, scope: 'swarm', expiresAt: null })]);
    expect((await ids(second, target))[0]).toBe('r6000');
    // The next indexed write assigns it to its list; it is still found.
    await second.insertDocument([record(6001, { embedding: vectorNear(3), scope: 'swarm', expiresAt: null })]);
    expect((await ids(first, target))[0]).toBe('r6000');
    expect((await ids(first, target, base, 10)).length).toBe(10);
  });

  it('a file with the list-clustered layout of earlier versions is rebuilt on open, lists and codes kept', async () => {
    const opts = { minRows: 300, lists: 16, nprobe: 4 };
    const first = make(opts);
    await seed(first);
    const before = await Promise.all(queries.map((q) => ids(first, q)));
    const rows = () =>
      first.db.prepare('SELECT rid, list, hex(q) AS q FROM vec_ivf ORDER BY rid').all() as Record<string, unknown>[];
    const kept = rows();
    expect(kept.filter((r) => (r.list as number) >= 0).length).toBe(N);
    // Back to the old layout by hand: vec_ivf clustered by (list, rid) WITHOUT ROWID, with its rid index.
    first.db.exec(`
      DROP TRIGGER vec_ivf_insert; DROP TRIGGER vec_ivf_delete; DROP TRIGGER vec_ivf_update;
      ALTER TABLE vec_ivf RENAME TO vec_ivf_new;
      CREATE TABLE vec_ivf (list INTEGER NOT NULL, rid INTEGER NOT NULL, q BLOB, PRIMARY KEY (list, rid)) WITHOUT ROWID;
      CREATE UNIQUE INDEX vec_ivf_rid ON vec_ivf (rid);
      INSERT INTO vec_ivf (list, rid, q) SELECT list, rid, q FROM vec_ivf_new;
      DROP TABLE vec_ivf_new;
      CREATE TRIGGER vec_ivf_insert AFTER INSERT ON chunks WHEN new.embedding IS NOT NULL BEGIN
        INSERT INTO vec_ivf (list, rid, q) VALUES (-1, new.rid, NULL);
      END;
      CREATE TRIGGER vec_ivf_delete AFTER DELETE ON chunks BEGIN DELETE FROM vec_ivf WHERE rid = old.rid; END;
      CREATE TRIGGER vec_ivf_update AFTER UPDATE OF embedding ON chunks BEGIN
        DELETE FROM vec_ivf WHERE rid = old.rid;
        INSERT INTO vec_ivf (list, rid, q) SELECT -1, new.rid, NULL WHERE new.embedding IS NOT NULL;
      END;`);
    await first.close();
    open.splice(open.indexOf(first), 1);

    const reopened = make(opts);
    // The first use of the store checks its schema and rebuilds the index table.
    expect(await Promise.all(queries.map((q) => ids(reopened, q)))).toEqual(before);
    const ddl = reopened.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'vec_ivf'").pluck().get() as string;
    expect(ddl).not.toMatch(/WITHOUT ROWID/i);
    expect(
      reopened.db
        .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'vec_ivf_%'")
        .pluck()
        .get(),
    ).toBe(3);
    expect(reopened.db.prepare('SELECT rid, list, hex(q) AS q FROM vec_ivf ORDER BY rid').all()).toEqual(kept);
    // The triggers work on the rebuilt table: a new row is filed, a deleted one leaves.
    await reopened.insertDocument([record(7000, { embedding: queries[0]!, scope: 'swarm', expiresAt: null })]);
    expect((await ids(reopened, queries[0]!))[0]).toBe('r7000');
    await reopened.deleteDocument('s1', 'r7000');
    expect(await ids(reopened, queries[0]!)).not.toContain('r7000');
    expect(reopened.db.prepare('SELECT count(*) FROM vec_ivf').pluck().get()).toBe(N);
  });

  it('a new embedding dimension retires the lists until the index is trained again', async () => {
    const store = make({ minRows: 300, lists: 16, nprobe: 2 });
    await seed(store);
    expect(store.vectorIndexTrained()).toBe(true);
    await store.updateEmbeddings([{ id: 'r0001', embedding: new Float32Array(8).fill(1) }], {
      model: 'other',
      dimension: 8,
    });
    expect(store.vectorIndexTrained()).toBe(false);
    expect(await ids(store, new Float32Array(8).fill(1))).toEqual(['r0001']);
    expect((await ids(store, queries[0]!)).length).toBe(10);
  });

  it('files every row of a write in its own transaction, and a failed write leaves nothing for the next one', async () => {
    const store = make({ minRows: 300, lists: 16, nprobe: 2 });
    await seed(store);
    expect(store.vectorIndexTrained()).toBe(true);
    const counts = () =>
      store.db
        .prepare(
          `SELECT (SELECT count(*) FROM vec_ivf WHERE list = -1) AS pending, (SELECT count(*) FROM vec_ivf) AS indexed,
             (SELECT count(*) FROM chunks WHERE embedding IS NOT NULL) AS vectors`,
        )
        .get() as { pending: number; indexed: number; vectors: number };
    const listOf = (id: string) =>
      (
        store.db
          .prepare('SELECT v.list AS list FROM vec_ivf v JOIN chunks c ON c.rid = v.rid WHERE c.id = ?')
          .get(id) as { list: number }
      ).list;
    const stored = (id: string) => {
      const blob = (store.db.prepare('SELECT embedding FROM chunks WHERE id = ?').get(id) as { embedding: Buffer })
        .embedding;
      return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
    };
    // A batch whose vectors copy stored ones, in shuffled order: each copy lands in its original's list.
    const originals = [5, 123, 42, 300, 7, 599, 250, 88];
    await store.insertDocuments(
      originals.map((i, k) => [record(7000 + k, { embedding: stored(record(i).id) })]).reverse(),
    );
    expect(counts()).toEqual({ pending: 0, indexed: N + originals.length, vectors: N + originals.length });
    for (const [k, i] of originals.entries()) {
      expect(listOf(`r${7000 + k}`)).toBe(listOf(record(i).id));
      expect(listOf(`r${7000 + k}`)).toBeGreaterThanOrEqual(0);
    }
    // A batch that fails on its second document rolls back whole; the next write files only its own rows.
    await expect(store.insertDocuments([[record(8000)], [record(7000)]])).rejects.toMatchObject({ code: 'KEY_TAKEN' });
    await store.insertDocuments([[record(8001, { embedding: stored(record(9).id) })]]);
    expect(counts()).toEqual({ pending: 0, indexed: N + originals.length + 1, vectors: N + originals.length + 1 });
    expect(listOf('r8001')).toBe(listOf(record(9).id));
    // A replaced document is filed again in the same transaction, and found first for its new vector.
    const target = Float32Array.from({ length: DIM }, (_, i) => (i % 2 === 0 ? 1 : -1));
    await store.replaceDocument(
      's1',
      'r0002',
      [record(2, { embedding: target, version: 2 })],
      {
        space: 's1',
        docId: 'r0002',
        version: 1,
        oldContent: 'content of r0002',
        oldKey: record(2).key,
        intent: 'test',
        agentId: 'a1',
        at: NOW,
      },
      1,
    );
    expect(counts().pending).toBe(0);
    expect((await ids(store, target))[0]).toBe('r0002');
  });

  it('refuses bad index options, and a misspelt one, before creating anything', () => {
    expect(() => createSqliteStore({ path, index: { vector: { nprobe: 0 } } })).toThrow(/nprobe/);
    const misspelt = { vector: { nprob: 48 } } as unknown as NonNullable<SqliteStoreOptions['index']>;
    expect(() => createSqliteStore({ path, index: misspelt })).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/unknown option index\.vector\.nprob/),
      }),
    );
    const group = { vectors: {} } as unknown as NonNullable<SqliteStoreOptions['index']>;
    expect(() => createSqliteStore({ path, index: group })).toThrow(/unknown option index\.vectors/);
    expect(existsSync(path)).toBe(false);
  });

  it('reads the index option from JSON (MEM_SQLITE_INDEX), naming the source of a bad one', async () => {
    const index = sqliteIndexOptionsFromJson(
      '{"vector":{"minRows":5,"lists":2},"keyword":{"cacheMiB":0}}',
      'MEM_SQLITE_INDEX',
    );
    expect(index).toEqual({ vector: { minRows: 5, lists: 2 }, keyword: { cacheMiB: 0 } });
    expect(() => sqliteIndexOptionsFromJson('{vector:1}', 'MEM_SQLITE_INDEX')).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/MEM_SQLITE_INDEX is not JSON/),
      }),
    );
    expect(() => sqliteIndexOptionsFromJson('{"keyword":{"size":1}}', 'MEM_SQLITE_INDEX')).toThrow(
      /MEM_SQLITE_INDEX: unknown option index\.keyword\.size \(index\.keyword takes type, cacheMiB\)/,
    );
    expect(() => sqliteIndexOptionsFromJson('[1]', 'MEM_SQLITE_INDEX')).toThrow(/index must be an object/);
  });
});
