import * as lancedb from '@lancedb/lancedb';
import { MemError } from '@mem/core';
import type { MemoryRecord, SearchFilter } from '@mem/core/adapter';
import { keywordHits, memoryRecord, neighbourRows, tempDir, vectorHits } from '@mem/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createLanceStore, type LanceKnowledgeStore } from './index.js';

const NOW = '2026-03-01T12:00:00.000Z';
const cleanups: (() => Promise<void> | void)[] = [];

function open(options: Partial<Parameters<typeof createLanceStore>[0]> = {}): {
  store: LanceKnowledgeStore;
  uri: string;
} {
  const dir = tempDir('lancedb-search-indexes');
  const store = createLanceStore({ uri: dir.path, ...options });
  cleanups.push(
    () => dir.remove(),
    () => store.close(),
  );
  return { store, uri: dir.path };
}

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const filter = (over: Partial<SearchFilter> = {}): SearchFilter => ({
  space: 'acme',
  viewerAgentId: 'alice',
  now: NOW,
  ...over,
});

/** A unit vector of `dim` dimensions pointing mostly along axis `axis`. */
function vectorNear(axis: number, dim: number, wobble: number): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = Math.sin(i * 7.3 + wobble) * 0.05;
  v[axis % dim] = 1;
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

/** Memories that every filter column tells apart: spaces, scopes, owners, sources, expiry, time. */
function mixedRecords(): MemoryRecord[] {
  const out: MemoryRecord[] = [];
  const owners = ['alice', 'bob'] as const;
  const scopes = ['agent', 'swarm'] as const;
  for (let i = 0; i < 48; i++) {
    const at = new Date(Date.parse('2026-02-01T00:00:00.000Z') + i * 7_200_000).toISOString();
    out.push(
      memoryRecord({
        content: `rollback plan number ${i} for the billing service`,
        space: i % 8 === 7 ? 'other' : 'acme',
        scope: scopes[i % 2]!,
        agentId: owners[Math.floor(i / 2) % 2]!,
        source: i % 3 === 0 ? 'session_summary' : 'manual',
        expiresAt: i % 5 === 0 ? '2026-02-15T00:00:00.000Z' : i % 5 === 1 ? '2026-12-31T00:00:00.000Z' : null,
        createdAt: at,
        updatedAt: at,
        embedding: vectorNear(i % 4, 16, i),
        embeddingModel: 'test-model',
      }),
    );
  }
  return out;
}

/** What the in-memory filter says is visible, for the checks below. */
function visibleTo(rec: MemoryRecord, f: SearchFilter): boolean {
  return (
    rec.space === f.space &&
    (rec.scope === 'swarm' || rec.agentId === f.viewerAgentId) &&
    (rec.expiresAt === null || rec.expiresAt > f.now) &&
    (f.source === undefined || rec.source === f.source)
  );
}

describe('the scalar indexes of the filter columns', () => {
  it('give the same answers once they cover the rows: visibility, expiry, space and source', async () => {
    const { store } = open({ maintenance: { auto: false } });
    const records = mixedRecords();
    await store.insertDocuments(records.map((r) => [r]));
    const filters = [filter(), filter({ viewerAgentId: 'bob' }), filter({ source: 'session_summary' })];
    const ask = async () =>
      Promise.all(
        filters.map(async (f) => ({
          keyword: (await keywordHits(store, { filter: f, terms: ['rollback', 'billing'], limit: 100 }))
            .map((h) => h.id)
            .sort(),
          vector: (await vectorHits(store, { filter: f, vector: vectorNear(1, 16, 0), limit: 100 }))
            .map((h) => h.id)
            .sort(),
        })),
      );
    // Before `optimize` the scalar indexes exist but cover no row (the filter is a scan); after it they cover all.
    // (The keyword arm is compared with the expected rows only: with `auto: false` LanceDB 0.31 finds none of the
    // rows its full-text index has not seen while that index holds no row at all.)
    const scanned = await ask();
    await store.optimize();
    const indexed = await ask();
    expect(indexed.map((a) => a.vector)).toEqual(scanned.map((a) => a.vector));
    for (const [i, f] of filters.entries()) {
      const expected = records
        .filter((r) => visibleTo(r, f))
        .map((r) => r.id)
        .sort();
      expect(expected.length).toBeGreaterThan(4);
      expect(indexed[i]!.keyword).toEqual(expected);
      expect(indexed[i]!.vector).toEqual(expected);
    }
  });

  it('neighbours work once the indexes cover the rows, across hours and with a hidden place skipped', async () => {
    const { store } = open({ maintenance: { auto: false } });
    // Turns of one conversation three hours apart: each side is found by the ordered lookup past the hour's window.
    const turns = Array.from({ length: 6 }, (_, i) => {
      const at = new Date(Date.parse('2026-02-01T00:00:00.000Z') + i * 3 * 3_600_000).toISOString();
      return memoryRecord({ content: `turn ${i}`, source: 'session_summary', createdAt: at, updatedAt: at });
    });
    const hidden = memoryRecord({ content: 'bob private turn', agentId: 'bob', source: 'session_summary' });
    await store.insertDocuments([...turns, hidden].map((r) => [r]));
    await store.optimize();
    const ids = (recs: MemoryRecord[]) => recs.map((r) => r.id).sort();
    expect(ids(await neighbourRows(store, { filter: filter(), ids: [turns[2]!.id, hidden.id], radius: 1 }))).toEqual(
      [turns[1]!.id, turns[3]!.id].sort(),
    );
    expect(ids(await neighbourRows(store, { filter: filter(), ids: [turns[0]!.id], radius: 2 }))).toEqual(
      [turns[1]!.id, turns[2]!.id].sort(),
    );
    expect(await neighbourRows(store, { filter: filter(), ids: [hidden.id], radius: 1 })).toEqual([]);
    // The records come back whole (every column but the full-text one).
    const [one] = await neighbourRows(store, { filter: filter(), ids: [turns[5]!.id], radius: 1 });
    expect(one).toMatchObject({ id: turns[4]!.id, content: 'turn 4', source: 'session_summary', agentId: 'alice' });
  });
});

describe('ANN index deltas', () => {
  async function chunkTable(uri: string) {
    // Strong reads: this second connection must see each commit of the store.
    const db = await lancedb.connect(uri, { readConsistencyInterval: 0 });
    const table = await db.openTable('knowledge_chunks');
    return {
      deltas: async () => (await table.indexStats('vec_16_idx'))?.numIndices,
      fragments: async () => (await table.stats()).fragmentStats.numFragments,
      close: () => {
        table.close();
        db.close();
      },
    };
  }

  const batch = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => [
      memoryRecord({
        content: `vector note ${from + i}`,
        embedding: vectorNear(from + i, 16, from + i),
        embeddingModel: 'test-model',
      }),
    ]);

  it('optimize() retrains a split index whole, so the table compacts into one fragment', async () => {
    const { store, uri } = open({
      maintenance: { auto: false },
      index: { vector: { minRows: 256 } },
    });
    await store.insertDocuments(batch(0, 300));
    expect((await store.optimize()).indexesCreated).toContain('vec_16_idx');
    for (let round = 0; round < 3; round++) await store.insertDocuments(batch(300 + round * 20, 20));
    const report = await store.optimize();
    expect(report.indexesCreated).toContain('vec_16_idx');
    const table = await chunkTable(uri);
    cleanups.push(() => table.close());
    expect(await table.deltas()).toBe(1);
    expect(await table.fragments()).toBe(1);
    expect((await store.indexState()).vector.vec_16).toMatchObject({ indexedRows: 360, unindexedRows: 0 });
    // The retrained index still finds an inserted vector (item 310's) as its own nearest neighbour.
    const [top] = await vectorHits(store, { filter: filter(), vector: vectorNear(310, 16, 310), limit: 1 });
    expect(top?.similarity).toBeGreaterThan(0.999);
  });

  /** A store with the upkeep's `maintenance` (a table above `ftsRebuildBelowRows`, no delay) and its ANN index built. */
  async function indexedStore(maintenance: NonNullable<Parameters<typeof createLanceStore>[0]['maintenance']>) {
    const { store, uri } = open({
      maintenance: { ftsRebuildBelowRows: 1, upkeepDelayMs: 0, ...maintenance },
      index: { vector: { minRows: 256 } },
    });
    await store.insertDocuments(batch(0, 300));
    await store.indexState(); // runs the upkeep it owes: the index is built
    const table = await chunkTable(uri);
    cleanups.push(() => table.close());
    return { store, table };
  }

  it('the upkeep retrains an index split past maintenance.maxVectorIndexDeltas', async () => {
    const { store, table } = await indexedStore({ maxUnindexedFraction: 0.01, maxVectorIndexDeltas: 2 });
    expect(await table.deltas()).toBe(1);
    const seen: number[] = [];
    for (let round = 0; round < 4; round++) {
      await store.insertDocuments(batch(300 + round * 10, 10));
      await store.indexState();
      seen.push((await table.deltas()) ?? 0);
    }
    // Each write folds its rows in as one more delta; the third delta is one too many and the index is retrained.
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    expect(seen).toContain(2);
    expect((await store.indexState()).vector.vec_16).toMatchObject({ indexedRows: 340, unindexedRows: 0 });
  });

  it('a split index does not make every write compact: fragments count from what the last compaction left', async () => {
    const { store, table } = await indexedStore({ maxUnindexedFraction: 1, maxFragments: 4 });
    const writes = 30;
    for (let i = 0; i < writes; i++) {
      await store.insertDocuments(batch(300 + i, 1));
      await store.indexState();
    }
    // Each compaction folds the new rows in as one more delta, and fragments of different deltas never merge: the
    // fragments it leaves grow by one each time. Compacting whenever more than 4 fragments exist made every write
    // past the fourth compaction compact again (25 deltas here); counting from what the last one left, it runs about
    // once per 4 writes.
    expect(await table.deltas()).toBeLessThanOrEqual(1 + Math.ceil(writes / 4));
    expect(await table.fragments()).toBeLessThanOrEqual(1 + Math.ceil(writes / 4) + 4);
    expect((await store.indexState()).vector.vec_16).toMatchObject({ indexedRows: 300 + writes });
    const [top] = await vectorHits(store, { filter: filter(), vector: vectorNear(310, 16, 310), limit: 1 });
    expect(top?.similarity).toBeGreaterThan(0.999);
  });

  it('refuses a maxVectorIndexDeltas below 0', () => {
    let caught: unknown;
    try {
      createLanceStore({ uri: '/nonexistent/never', maintenance: { maxVectorIndexDeltas: -1 } });
    } catch (error) {
      caught = error;
    }
    expect(MemError.is(caught, 'INVALID_INPUT')).toBe(true);
    expect((caught as MemError).message).toMatch(/^maintenance\.maxVectorIndexDeltas must be a number of at least 0/);
  });
});
