// The vector index's in-memory list cache (src/vector-cache.ts, `index.vector.cacheMiB`) on real files: the same
// int8 distances as sqlite-vec's SQL scan, the same search results as with the cache off, and every write seen by the
// next search with the cache warm — this connection's (store, edit, re-embed, delete, split, raw SQL) and another
// connection's (a second store, raw SQL).
import { MemError } from '@mem/core';
import { type SearchFilter, seededRandom } from '@mem/core/adapter';
import { tempDir, vectorHits } from '@mem/testkit';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { vectorTestCorpus } from '../test/vector-corpus.js';
import { createSqliteStore, type SqliteKnowledgeStore, type SqliteStoreOptions } from './index.js';
import { quantizeInt8 } from './ivf.js';
import { createListCache } from './vector-cache.js';

const NOW = '2025-01-01T00:00:00.000Z';
const DIM = 32;
const N = 600;
const dir = tempDir('vector-cache');
afterAll(() => dir.remove());

const next = seededRandom(23);
const r = () => next() - 0.5;
const { vectorNear, record } = vectorTestCorpus({ random: r, dim: DIM, now: NOW });

const base: SearchFilter = { space: 's1', viewerAgentId: 'a1', now: NOW };
const queries = Array.from({ length: 60 }, (_, i) => vectorNear(i * 7 + 1, 0.5));
const INDEX = { minRows: 300, lists: 16, nprobe: 3, splitMinRows: 60 };

let files = 0;
const open: SqliteKnowledgeStore[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

function make(path: string, vector: NonNullable<SqliteStoreOptions['index']>['vector'] = INDEX): SqliteKnowledgeStore {
  const store = createSqliteStore({ path, index: { vector } });
  open.push(store);
  return store;
}

async function seeded(): Promise<{ path: string; cached: SqliteKnowledgeStore; plain: SqliteKnowledgeStore }> {
  const path = dir.join(`cache-${files++}.db`);
  const cached = make(path);
  await cached.setEmbeddingInfo({ model: 'test', dimension: DIM });
  for (let s = 0; s < N; s += 100) {
    await cached.insertDocuments(Array.from({ length: 100 }, (_, k) => [record(s + k)]));
  }
  expect(cached.vectorIndexTrained()).toBe(true);
  return { path, cached, plain: make(path, { ...INDEX, cacheMiB: 0 }) };
}

const hits = async (store: SqliteKnowledgeStore, vector: Float32Array, filter: SearchFilter = base, limit = 10) =>
  (await vectorHits(store, { filter, vector, limit })).map((h) => [h.id, h.similarity] as const);
const ids = async (store: SqliteKnowledgeStore, vector: Float32Array, limit = 10) =>
  (await hits(store, vector, base, limit)).map(([id]) => id);

/** Every query gives the same hits (ids and similarities) from the warm cache as from the SQL scan. */
async function same(cached: SqliteKnowledgeStore, plain: SqliteKnowledgeStore, vectors = queries): Promise<void> {
  for (const q of vectors) expect(await hits(cached, q)).toEqual(await hits(plain, q));
}

describe('vector list cache', () => {
  it('scores every row of the probed lists exactly as sqlite-vec does', async () => {
    const { cached } = await seeded();
    const db = cached.db;
    const stmt = (sql: string) => db.prepare(sql);
    const cache = createListCache(db, stmt, 1 << 20);
    const lists = (db.prepare('SELECT DISTINCT list FROM vec_ivf WHERE list >= 0').pluck().all() as number[]).slice(
      0,
      6,
    );
    for (const q of queries.slice(0, 10)) {
      const code = quantizeInt8(q);
      const scanned = cache.scan(lists, code)!;
      const fromCache = [...scanned.rids].map((rid, i) => [rid, scanned.distances[i]!] as [number, number]);
      const fromSql = db
        .prepare(
          `SELECT rid, vec_distance_cosine(vec_int8(q), vec_int8(?)) FROM vec_ivf
           WHERE list IN (SELECT value FROM json_each(?))`,
        )
        .raw()
        .all(Buffer.from(code.buffer), JSON.stringify(lists)) as [number, number][];
      const byRid = (a: [number, number], b: [number, number]) => a[0] - b[0];
      expect(fromCache.length).toBeGreaterThan(50);
      expect([...fromCache].sort(byRid)).toEqual([...fromSql].sort(byRid));
    }
    // A zero query vector: SQL gives NULL, which the search counts as 1.
    const zero = db
      .prepare('SELECT vec_distance_cosine(vec_int8(q), vec_int8(?)) FROM vec_ivf WHERE list = ?')
      .pluck()
      .all(Buffer.alloc(DIM), lists[0]);
    expect(zero.length).toBeGreaterThan(0);
    expect(zero.every((d) => d === null)).toBe(true);
    expect([...cache.scan(lists.slice(0, 1), new Int8Array(DIM))!.distances]).toEqual(zero.map(() => 1));
    expect(cache.stats().entries).toBe(lists.length);
  });

  it('gives the same results as the cache turned off, over many queries and filters', async () => {
    const { cached, plain } = await seeded();
    await same(cached, plain);
    for (const filter of [
      { ...base, tags: ['five'] },
      { ...base, source: 'file_index' as const, scope: 'agent' as const },
      { ...base, viewerAgentId: 'a2' },
    ]) {
      for (const q of queries.slice(0, 10)) expect(await hits(cached, q, filter)).toEqual(await hits(plain, q, filter));
    }
    expect(cached.vectorCacheStats().entries).toBeGreaterThan(0);
    expect(cached.vectorCacheStats().bytes).toBeGreaterThan(N * DIM);
    expect(plain.vectorCacheStats()).toEqual({ entries: 0, bytes: 0 });
    // A budget smaller than the lists keeps fewer of them, and the same results.
    const small = make(dir.join(`cache-${files - 1}.db`), { ...INDEX, cacheMiB: 4096 / 2 ** 20 });
    await same(small, plain);
    expect(small.vectorCacheStats().bytes).toBeLessThanOrEqual(4096);
    expect(small.vectorCacheStats().entries).toBeLessThan(cached.vectorCacheStats().entries);
  });

  it("sees this connection's writes at once with the cache warm: store, edit, re-embed, delete, raw SQL", async () => {
    const { cached, plain } = await seeded();
    await same(cached, plain);
    // Near-duplicates of queries, stored after the lists were cached: found first at once.
    for (const [k, q] of queries.slice(0, 5).entries()) {
      await cached.insertDocument([record(5000 + k, { embedding: q.map((x) => x * 1.01), scope: 'swarm' })]);
      expect((await ids(cached, q))[0]).toBe(`r${5000 + k}`);
    }
    // Edited to another vector: it follows its new vector and leaves the old one.
    const other = queries[10]!.map((x) => x * 0.99);
    await cached.replaceDocument(
      's1',
      'r5000',
      [record(5000, { embedding: other, scope: 'swarm' })],
      { docId: 'r5000', space: 's1', version: 1, oldContent: 'x', oldKey: 'k', intent: 'edit', agentId: 'a1', at: NOW },
      1,
    );
    expect((await ids(cached, other))[0]).toBe('r5000');
    expect(await ids(cached, queries[0]!)).not.toContain('r5000');
    // Re-embedded (same dimension): found at its new vector.
    await cached.updateEmbeddings([{ id: 'r5001', embedding: queries[11]! }], { model: 'test', dimension: DIM });
    expect((await ids(cached, queries[11]!))[0]).toBe('r5001');
    expect(await ids(cached, queries[1]!)).not.toContain('r5001');
    // Deleted: gone.
    await cached.deleteDocument('s1', 'r5002');
    expect(await ids(cached, queries[2]!)).not.toContain('r5002');
    // Raw SQL on this very connection (no store code involved): the TEMP triggers see it.
    cached.db.prepare("DELETE FROM chunks WHERE id = 'r5003'").run();
    expect(await ids(cached, queries[3]!)).not.toContain('r5003');
    cached.db
      .prepare('UPDATE vec_ivf SET q = ? WHERE rid = (SELECT rid FROM chunks WHERE id = ?)')
      .run(Buffer.from(quantizeInt8(queries[3]!).buffer), 'r5004');
    // The int8 copy now says r5004 is the query's twin: it is re-ranked exactly (and still not the nearest).
    await same(cached, plain);
  });

  it('stays true when lists split under it', async () => {
    const { cached, plain } = await seeded();
    const leaves = () => cached.db.prepare('SELECT count(*) FROM vec_ivf_centroids WHERE level = 1').pluck().get();
    const before = leaves();
    await same(cached, plain);
    const crowd = Array.from({ length: 8 }, (_, i) => i * 12 + 4);
    const near = queries.filter((_, i) => (i * 7 + 1) % 12 === 4);
    for (let round = 0; round < 4; round++) {
      await cached.insertDocuments(
        Array.from({ length: 50 }, (_, k) => [record(9000 + round * 50 + k, { embedding: vectorNear(crowd[k % 8]!) })]),
      );
      await same(cached, plain, [...near, ...queries.slice(0, 10)]);
    }
    expect(leaves()).toBeGreaterThan(before as number);
    await same(cached, plain);
  });

  it("sees another connection's writes at once: a second store and raw SQL", async () => {
    const { path, cached, plain } = await seeded();
    await same(cached, plain);
    const other = make(path);
    const twin = queries[20]!.map((x) => x * 1.02);
    await other.insertDocument([record(7000, { embedding: twin, scope: 'swarm' })]);
    expect((await ids(cached, queries[20]!))[0]).toBe('r7000');
    await other.deleteDocument('s1', 'r7000');
    expect(await ids(cached, queries[20]!)).not.toContain('r7000');
    // Raw SQL from another program: delete the current best hit of a query.
    const best = (await ids(cached, queries[21]!))[0]!;
    const raw = new Database(path);
    try {
      raw.prepare('DELETE FROM chunks WHERE id = ?').run(best);
    } finally {
      raw.close();
    }
    expect(await ids(cached, queries[21]!)).not.toContain(best);
    await same(cached, plain);
  });

  it('is bypassed inside a transaction: the SQL scan answers with the uncommitted rows, and nothing is cached', async () => {
    const { path, plain } = await seeded();
    const cached = make(path);
    const best = (await ids(plain, queries[30]!))[0]!;
    cached.db.exec('BEGIN');
    try {
      cached.db.prepare('DELETE FROM chunks WHERE id = ?').run(best);
      expect(await ids(cached, queries[30]!)).not.toContain(best);
      expect(cached.vectorCacheStats().entries).toBe(0);
    } finally {
      cached.db.exec('ROLLBACK');
    }
    expect((await ids(cached, queries[30]!))[0]).toBe(best);
    expect(cached.vectorCacheStats().entries).toBeGreaterThan(0);
  });

  it('is dropped when the index is retired by a new embedding dimension', async () => {
    const { cached } = await seeded();
    await ids(cached, queries[0]!);
    expect(cached.vectorCacheStats().entries).toBeGreaterThan(0);
    await cached.updateEmbeddings([{ id: 'r0001', embedding: new Float32Array(8).fill(1) }], {
      model: 'other',
      dimension: 8,
    });
    expect(cached.vectorIndexTrained()).toBe(false);
    expect(cached.vectorCacheStats().entries).toBe(0);
    expect(await ids(cached, new Float32Array(8).fill(1))).toEqual(['r0001']);
  });

  it('refuses a bad cacheMiB with INVALID_INPUT', () => {
    const path = dir.join('options.db');
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '64' as unknown as number]) {
      let error: unknown;
      try {
        createSqliteStore({ path, index: { vector: { cacheMiB: bad } } });
      } catch (e) {
        error = e;
      }
      expect(MemError.is(error) && error.code).toBe('INVALID_INPUT');
      expect((error as Error).message).toMatch(/index\.vector\.cacheMiB must be a number of MiB >= 0/);
    }
  });
});
