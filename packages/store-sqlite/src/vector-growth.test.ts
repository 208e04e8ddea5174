// Growth of the SQLite vector index: lists split as the file grows (real files, real connections).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cosine, type MemoryRecord, type SearchFilter, seededRandom } from '@mem/core/adapter';
import { memoryRecord, vectorHits } from '@mem/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteKnowledgeStore, type SqliteStoreOptions } from './index.js';

const NOW = '2025-01-01T00:00:00.000Z';
const DIM = 32;
const N = 2400;
/** The first 20% of the corpus comes from topics 0–5 only; the rest from topics 6–29, unseen at training. */
const EARLY = N / 5;

const rand = (() => {
  const next = seededRandom(41);
  return () => next() - 0.5;
})();
const topics = Array.from({ length: 30 }, () => Float32Array.from({ length: DIM }, () => rand()));
const near = (topic: number, noise: number) => Float32Array.from(topics[topic]!, (x) => x + noise * rand());
const vectors = Array.from({ length: N }, (_, i) => (i < EARLY ? near(i % 6, 0.35) : near(6 + (i % 24), 0.35)));
const queries = Array.from({ length: 40 }, (_, i) => near(i % 30, 0.45));

function record(i: number, embedding = vectors[i]!): MemoryRecord {
  const id = `g${String(i).padStart(5, '0')}`;
  return memoryRecord({
    id,
    docId: id,
    space: 's1',
    scope: 'swarm',
    agentId: 'a1',
    key: `/swarm/manual/${id}`,
    name: id,
    content: `content of ${id}`,
    embedding,
    embeddingModel: 'test',
    createdAt: NOW,
    updatedAt: NOW,
  });
}

const filter: SearchFilter = { space: 's1', viewerAgentId: 'a1', now: NOW };

let dir: string;
let path: string;
const open: SqliteKnowledgeStore[] = [];

function make(vector: NonNullable<SqliteStoreOptions['index']>['vector']): SqliteKnowledgeStore {
  const store = createSqliteStore({ path, index: { vector } });
  open.push(store);
  return store;
}

async function ingest(store: SqliteKnowledgeStore, from: number, to: number): Promise<void> {
  await store.setEmbeddingInfo({ model: 'test', dimension: DIM });
  for (let s = from; s < to; s += 100) {
    const docs: MemoryRecord[][] = [];
    for (let i = s; i < Math.min(to, s + 100); i++) docs.push([record(i)]);
    await store.insertDocuments(docs);
  }
}

/** Rows per list, and the number of lists (leaves) in the file. */
function shape(store: SqliteKnowledgeStore): { lists: number; longest: number; pending: number } {
  const db = store.db;
  const lists = (db.prepare('SELECT count(*) AS n FROM vec_ivf_centroids WHERE level = 1').get() as { n: number }).n;
  const longest = (
    db.prepare('SELECT max(n) AS n FROM (SELECT count(*) AS n FROM vec_ivf WHERE list >= 0 GROUP BY list)').get() as {
      n: number;
    }
  ).n;
  const pending = (db.prepare('SELECT count(*) AS n FROM vec_ivf WHERE list = -1').get() as { n: number }).n;
  return { lists, longest, pending };
}

/** Tie-aware recall@10: a hit counts when its exact similarity reaches the 10th best exact similarity. */
function recallAt10(hits: string[], query: Float32Array, upTo: number): number {
  const sims = vectors.slice(0, upTo).map((v) => cosine(query, v));
  const tenth = [...sims].sort((a, b) => b - a)[9]!;
  let found = 0;
  for (const id of hits) if (sims[Number(id.slice(1))]! >= tenth - 1e-6) found++;
  return found / 10;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-ivf-growth-'));
  path = join(dir, 'mem.db');
});

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const GROWING = { minRows: 300, lists: 8, nprobe: 4, splitFactor: 4, splitMinRows: 40 } as const;

describe('sqlite vector index growth', () => {
  it('splits lists as a drifting file grows: bounded lists, no pending rows, recall@10 ≥ 0.95', async () => {
    const store = make(GROWING);
    await ingest(store, 0, EARLY);
    expect(store.vectorIndexTrained()).toBe(true);
    const trained = shape(store);
    await ingest(store, EARLY, N);
    const grown = shape(store);
    expect(grown.pending).toBe(0);
    expect(grown.lists).toBeGreaterThan(trained.lists * 1.5);
    // Each write splits at most 8 lists; the bound is 4 × lists (at least 40).
    expect(grown.longest).toBeLessThanOrEqual(Math.max(40, 4 * grown.lists) * 2);
    let recall = 0;
    for (const q of queries) {
      const hits = await vectorHits(store, { filter, vector: q, limit: 10 });
      recall += recallAt10(
        hits.map((h) => h.id),
        q,
        N,
      );
    }
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.95);

    // The same file without splitting: the topics unseen at training pile into few, ever longer lists.
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-ivf-growth-'));
    path = join(dir, 'mem.db');
    const fixed = make({ ...GROWING, splitFactor: 0 });
    await ingest(fixed, 0, N);
    const still = shape(fixed);
    expect(still.lists).toBeLessThanOrEqual(trained.lists);
    expect(still.longest).toBeGreaterThan(2 * grown.longest);
  });

  it('a split moves rows in the write transaction, and another connection searches the new lists at once', async () => {
    const writer = make(GROWING);
    await ingest(writer, 0, EARLY);
    const reader = make({ ...GROWING, nprobe: 1 });
    // The reader loads the quantizer as trained.
    expect((await vectorHits(reader, { filter, vector: vectors[0]!, limit: 1 }))[0]!.id).toBe('g00000');
    const before = shape(reader).lists;
    await ingest(writer, EARLY, EARLY + 600);
    const after = shape(reader).lists;
    expect(after).toBeGreaterThan(before);
    // Rows that now live in lists the reader had never seen are found by it, each as its own nearest.
    const moved = reader.db
      .prepare(
        `SELECT c.id AS id FROM vec_ivf v JOIN chunks c ON c.rid = v.rid WHERE v.list >= ? ORDER BY c.id LIMIT 20`,
      )
      .all(before) as { id: string }[];
    expect(moved.length).toBeGreaterThan(0);
    for (const { id } of moved) {
      const hit = await vectorHits(reader, { filter, vector: vectors[Number(id.slice(1))]!, limit: 1 });
      expect(hit[0]!.id).toBe(id);
    }
  });

  it('writers taking turns on one file still split the lists the others lengthened', async () => {
    // Each connection keeps an upper bound of the lists it counted and skips counting them while the bound is small;
    // another connection's commit must void those bounds. Two writers take turns adding one row of one topic: if
    // each saw only its own rows, the topic's list would reach twice the bound before either split it.
    const turns = { ...GROWING, splitFactor: 0.001, splitMinRows: 40 };
    const writers = [make(turns), make(turns)];
    await ingest(writers[0]!, 0, EARLY);
    await ingest(writers[1]!, EARLY, EARLY + 100);
    // The length of the list a row was just filed in.
    const listOf = writers[0]!.db.prepare(
      `SELECT count(*) AS n FROM vec_ivf WHERE list = (SELECT v.list FROM vec_ivf v JOIN chunks c ON c.rid = v.rid
       WHERE c.id = ?)`,
    );
    let longest = 0;
    for (let k = 0; k < 120; k++) {
      const row = record(50_000 + k, near(29, 0.35));
      await writers[k % 2]!.insertDocuments([[row]]);
      // Each writer also searches, as a live one does: its list cache reads the same PRAGMA the bounds rely on.
      await vectorHits(writers[k % 2]!, { filter, vector: row.embedding!, limit: 1 });
      longest = Math.max(longest, (listOf.get(row.id) as { n: number }).n);
    }
    expect(longest).toBeLessThanOrEqual(40);
  });

  it('a list whose vectors are all equal stays whole (2-means cannot separate it) and searchable', async () => {
    const store = make(GROWING);
    await ingest(store, 0, EARLY);
    const same = vectors[0]!;
    const docs = Array.from({ length: 200 }, (_, k) => [record(90_000 + k, same)]);
    await store.insertDocuments(docs);
    await store.insertDocuments([[record(99_999, same)]]);
    const hits = await vectorHits(store, { filter, vector: same, limit: 10 });
    expect(hits).toHaveLength(10);
    for (const h of hits) expect(h.similarity).toBeCloseTo(1, 5);
    expect(shape(store).pending).toBe(0);
    const copies = store.db
      .prepare(
        `SELECT count(*) AS n FROM vec_ivf WHERE list = (SELECT v.list FROM vec_ivf v JOIN chunks c ON c.rid = v.rid
         WHERE c.id = 'g99999')`,
      )
      .get() as { n: number };
    expect(copies.n).toBeGreaterThan(201);
  });

  it('refuses a negative splitFactor', () => {
    expect(() => createSqliteStore({ path, index: { vector: { splitFactor: -1 } } })).toThrow(/splitFactor/);
  });
});
