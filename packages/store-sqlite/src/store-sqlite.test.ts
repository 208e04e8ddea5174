// Adapter-specific behaviour only; the shared conformance suite (knowledge.suite.test.ts) covers the port contract.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemError } from '@mem/core';
import { type MemoryRecord, OPEN_VALIDITY } from '@mem/core/adapter';
import { keywordHits, neighbourRows, vectorHits } from '@mem/testkit';
import { memoryRecord, modeOf, notPrivate, withUmask } from '@mem/testkit/internal';
import Database from 'better-sqlite3';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore, migrations, runMigrations, type SqliteKnowledgeStore } from './index.js';

const NOW = '2025-01-01T00:00:00.000Z';

/** A one-chunk memory of agent a1 in space s1 (swarm scope) whose document id is its chunk id. */
function record(over: Partial<MemoryRecord> & { id: string }): MemoryRecord {
  const id = over.id;
  return memoryRecord({
    docId: id,
    space: 's1',
    scope: 'swarm',
    agentId: 'a1',
    key: `/swarm/manual/${id}`,
    name: `name ${id}`,
    content: `content of ${id}`,
    contentHash: `hash-${id}`,
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  });
}

const filter = { space: 's1', viewerAgentId: 'a1', now: NOW };

let dir: string;
const open: SqliteKnowledgeStore[] = [];

function make(path: string, options: { autoMigrate?: boolean; vectorExtension?: boolean } = {}): SqliteKnowledgeStore {
  const store = createSqliteStore({ path, ...options });
  open.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-store-sqlite-'));
});

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('are recorded once and re-running them is a no-op', async () => {
    const path = join(dir, 'm.db');
    const store = make(path);
    const rows = store.db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
    expect(await store.migrate()).toEqual({ applied: [], current: migrations.at(-1)?.version });
    expect(runMigrations(store.db).applied).toEqual([]);
    await store.close();
    const again = make(path);
    expect(again.db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: migrations.length });
  });

  // autoMigrate off on a new file: the knowledge conformance suite (tooling/testkit), as for every store.

  it('migration 8 gives the memories of an older file open validity and keeps them searchable', async () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    runMigrations(
      old,
      migrations.filter((m) => m.version < 8),
    );
    old
      .prepare(
        `INSERT INTO chunks (id, doc_id, space, scope, agent_id, key, name, content, body_start, chunk_index, chunk_count,
           source, tags, content_hash, created_at, updated_at)
         VALUES ('o1', 'o1', 'acme', 'swarm', 'a1', '/k/o1', 'old', 'the deploy runbook from before', 0, 0, 1, 'manual',
           '[]', 'h1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      )
      .run();
    old.close();
    const store = make(path);
    expect((await store.migrate()).current).toBe(migrations.at(-1)?.version);
    expect(await store.getChunk('acme', 'o1')).toMatchObject({
      content: 'the deploy runbook from before',
      ...OPEN_VALIDITY,
    });
    const filter = { space: 'acme', viewerAgentId: 'a1', now: NOW };
    const hits = await store.searchCandidates({ filter, terms: ['runbook'], limit: 5 });
    expect(hits.keywordHits.map((h) => h.id)).toEqual(['o1']);
    expect(await store.formationLog('acme', ['o1'])).toEqual([]);
  });

  it('apply exactly once when several processes open a new file at the same moment', async () => {
    const path = join(dir, 'race', 'shared.db');
    const script = join(dir, 'open.mts');
    const entry = join(fileURLToPath(new URL('.', import.meta.url)), 'index.ts');
    // The testkit's builder file itself: its package entry loads vitest, which a plain child process cannot.
    const builder = fileURLToPath(new URL('../../../tooling/testkit/src/memory-record.ts', import.meta.url));
    writeFileSync(
      script,
      `import { createSqliteStore } from ${JSON.stringify(entry)};
       import { memoryRecord } from ${JSON.stringify(builder)};
       const start = Number(process.argv[2]);
       while (Date.now() < start) {}
       const store = createSqliteStore({ path: ${JSON.stringify(path)} });
       const id = 'p' + process.pid;
       await store.insertDocument([memoryRecord({ id, docId: id, space: 's', scope: 'swarm', agentId: 'a', key: '/k/' + id,
         name: id, content: 'race ' + id, contentHash: id, createdAt: '${NOW}', updatedAt: '${NOW}' })]);
       await store.close();`,
    );
    const start = Date.now() + 1500;
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--conditions=dev-source', '--import', 'tsx', script, String(start)], {
            cwd: fileURLToPath(new URL('..', import.meta.url)),
          });
          let stderr = '';
          child.stderr.on('data', (d: Buffer) => {
            stderr += d.toString();
          });
          child.on('close', (code) => resolve({ code, stderr }));
        }),
    );
    const results = await Promise.all(runs);
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
    const db = new BetterSqlite3(path, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: migrations.length });
      expect(db.prepare('SELECT count(*) AS n FROM chunks').get()).toEqual({ n: 4 });
    } finally {
      db.close();
    }
  });
});

describe('opening files', () => {
  it('creates a missing parent folder and keeps data across reopen', async () => {
    const path = join(dir, 'a', 'b', 'mem.db');
    const store = make(path);
    const embedding = new Float32Array([0.25, -1.5, 3, 1e-7]);
    const doc = record({ id: 'd1', tags: ['x', 'y'], embedding, embeddingModel: 'm' });
    await store.insertDocument([doc]);
    await store.setEmbeddingInfo({ model: 'm', dimension: 4 });
    await store.close();

    const reopened = make(path);
    const [got] = await reopened.getDocument('s1', 'd1');
    expect(got).toEqual(doc);
    expect(Array.from(got?.embedding ?? [])).toEqual(Array.from(embedding));
    expect(await reopened.getEmbeddingInfo()).toEqual({ model: 'm', dimension: 4 });
    expect(reopened.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(reopened.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(reopened.db.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('gives a new file 8 KiB pages and keeps the page size of an existing file', async () => {
    const fresh = make(join(dir, 'new.db'));
    await fresh.insertDocument([record({ id: 'd1' })]);
    expect(fresh.db.pragma('page_size', { simple: true })).toBe(8192);
    expect(fresh.db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    // A file made with SQLite's default 4 KiB pages (as earlier versions made them) stays so, and works.
    const oldPath = join(dir, 'old.db');
    const old = new BetterSqlite3(oldPath);
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.close();
    const reopened = make(oldPath);
    await reopened.insertDocument([record({ id: 'd2', content: 'kept on small pages' })]);
    expect(reopened.db.pragma('page_size', { simple: true })).toBe(4096);
    expect((await reopened.getDocument('s1', 'd2'))[0]?.content).toBe('kept on small pages');
  });

  it('creates the folder 0700 and the database, WAL and SHM 0600 under any umask; never loosens an existing file', async () => {
    const folder = join(dir, 'private');
    const path = join(folder, 'mem.db');
    await withUmask(async () => {
      const store = make(path);
      await store.insertDocument([record({ id: 'd1', content: 'a private memory' })]);
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect(existsSync(`${path}-shm`)).toBe(true);
      expect(await notPrivate(folder)).toEqual([]);
      await store.close();
    });
    // A file the owner made group-readable (0640) keeps its mode: mem creates files private, it never re-modes one.
    const shared = join(dir, 'shared.db');
    make(shared);
    await open.pop()?.close();
    chmodSync(shared, 0o640);
    await withUmask(async () => {
      make(shared);
      expect(await modeOf(shared)).toBe('640');
    });
  });

  it('a file that is not a SQLite database gives STORE_CORRUPT, never a driver error', () => {
    const path = join(dir, 'notes.txt');
    const text = 'these are my notes, not a database\n'.repeat(200);
    writeFileSync(path, text);
    let err: unknown;
    try {
      make(path);
    } catch (e) {
      err = e;
    }
    expect(MemError.is(err, 'STORE_CORRUPT')).toBe(true);
    expect((err as Error).message).toContain(`sqlite: ${path} is not a SQLite database`);
    expect((err as Error).message).toContain('--db');
    expect(readFileSync(path, 'utf8')).toBe(text); // left untouched
  });

  it('a folder in place of the file gives a wrapped sqlite error', () => {
    let err: unknown;
    try {
      make(dir);
    } catch (e) {
      err = e;
    }
    expect(MemError.is(err)).toBe(true);
    expect((err as Error).message).toMatch(/^sqlite: /);
  });
});

describe('keyword arm', () => {
  // Query syntax in the terms (FTS5's among others) is plain text: the knowledge conformance suite checks it.
  it('searches nothing for no terms, and finds a memory by its words among FTS5 operators', async () => {
    const store = make(join(dir, 'fts.db'));
    await store.insertDocument([record({ id: 'd1', content: 'NEAR the deploy: run (all) tests - quickly* "now"' })]);
    expect(await keywordHits(store, { filter, terms: [], limit: 5 })).toEqual([]);
    const hits = await keywordHits(store, { filter, terms: ['NEAR(a b)', 'deploy*', '-tests'], limit: 5 });
    expect(hits.map((h) => h.id)).toEqual(['d1']);
    expect(hits[0]?.score).toBeGreaterThan(0);
  });

  it('stems with porter and scores higher-is-better', async () => {
    const store = make(join(dir, 'stem.db'));
    await store.insertDocument([
      record({ id: 'd1', content: 'deploying the service on fridays' }),
      record({ id: 'd2', content: 'deploy deploy deploy' }),
      record({ id: 'd3', content: 'unrelated text' }),
    ]);
    const hits = await keywordHits(store, { filter, terms: ['deploys'], limit: 10 });
    expect(hits.map((h) => h.id)).toEqual(['d2', 'd1']);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Number.POSITIVE_INFINITY);
  });
});

describe('vector arm', () => {
  it('the JavaScript fallback returns what sqlite-vec returns', async () => {
    const path = join(dir, 'vec.db');
    const native = make(path);
    expect(native.nativeVector).toBe(true);
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31 - 0.5;
    };
    const vec = () => Float32Array.from({ length: 16 }, rand);
    const docs = Array.from({ length: 60 }, (_, i) =>
      record({
        id: `d${i}`,
        scope: i % 3 === 0 ? 'agent' : 'swarm',
        agentId: i % 2 ? 'a1' : 'a2',
        embedding: vec(),
        embeddingModel: 'm',
      }),
    );
    docs.push(record({ id: 'zero', embedding: new Float32Array(16), embeddingModel: 'm' }));
    docs.push(record({ id: 'short', embedding: new Float32Array(8).fill(1), embeddingModel: 'other' }));
    for (const doc of docs) await native.insertDocument([doc]);
    const fallback = make(path, { vectorExtension: false });
    expect(fallback.nativeVector).toBe(false);
    const query = { filter, vector: vec(), limit: 70 };
    const a = await vectorHits(native, query);
    const b = await vectorHits(fallback, query);
    expect(b.map((h) => h.id)).toEqual(a.map((h) => h.id));
    for (const [i, hit] of b.entries()) expect(hit.similarity).toBeCloseTo(a[i]?.similarity ?? Number.NaN, 5);
    expect(a.find((h) => h.id === 'zero')?.similarity).toBe(0);
    expect(a.some((h) => h.id === 'short')).toBe(false); // another dimension never mixes in
  });
});

/**
 * Records the SQL the store prepares from now on; `plan` gives SQLite's query plan (one line per step) of the first
 * recorded statement `pick` chooses, with every parameter bound to NULL.
 */
function watchStatements(store: SqliteKnowledgeStore): { plan(pick: (sql: string) => boolean): string[] } {
  const prepared: string[] = [];
  const prepare = store.db.prepare.bind(store.db);
  store.db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof store.db.prepare;
  return {
    plan(pick) {
      const sql = prepared.find(pick);
      if (sql === undefined) throw new Error('the store prepared no such statement');
      const blanks = Array.from({ length: sql.split('?').length - 1 }, () => null);
      return (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...blanks) as { detail: string }[]).map((r) => r.detail);
    },
  };
}

describe('neighbouring turns', () => {
  it('walk the owner-order index (migration 7), a few entries each way, not the space in time order', async () => {
    const store = make(join(dir, 'n.db'));
    // Four owners interleaved in time: a walk through the space's time order would pass three others' rows per step.
    const owners = [
      ['swarm', 'a1'],
      ['agent', 'a1'],
      ['swarm', 'a2'],
      ['agent', 'a2'],
    ] as const;
    const docs = Array.from({ length: 40 }, (_, i) => {
      const [scope, agentId] = owners[i % 4]!;
      const at = new Date(Date.parse(NOW) + i * 60_000).toISOString();
      return record({ id: `t${i}`, scope, agentId, key: `/${scope}/${agentId}/t${i}`, createdAt: at, updatedAt: at });
    });
    for (const doc of docs) await store.insertDocument([doc]);
    const statements = watchStatements(store);
    const found = await neighbourRows(store, { filter, ids: ['t20'], radius: 2 });
    // t20 is (swarm, a1): its neighbours are that owner's turns 12, 16 and 24, 28.
    expect(found.map((r) => r.id).sort()).toEqual(['t12', 't16', 't24', 't28']);
    const plan = statements.plan((sql) => sql.includes('UNION ALL'));
    const searches = plan.filter((d) => /\bchunks\b|\bc\b/.test(d) && /USING/.test(d));
    expect(searches.length).toBeGreaterThan(0);
    for (const d of searches)
      expect(d).toMatch(/USING INDEX chunks_owner_time \(space=\? AND scope=\? AND agent_id=\? AND source=\? AND/);
  });

  it('leave a scan of one space (export) walking the time order, pages in order without a sort', async () => {
    const store = make(join(dir, 's.db'));
    const at = (i: number) => new Date(Date.parse(NOW) + i * 60_000).toISOString();
    for (let i = 0; i < 12; i++) {
      const space = i % 3 === 0 ? 's2' : 's1';
      await store.insertDocument([record({ id: `e${i}`, space, createdAt: at(i), updatedAt: at(i) })]);
    }
    expect(store.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'chunks_space_scan'").get()).toEqual({
      n: 0,
    });
    const statements = watchStatements(store);
    const pages: string[][] = [];
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const rows = await store.scan({ space: 's1', limit: 3, ...(after ? { after } : {}) });
      if (rows.length === 0) break;
      pages.push(rows.map((r) => r.id));
      after = { createdAt: rows.at(-1)!.createdAt, id: rows.at(-1)!.id };
    }
    expect(pages).toEqual([
      ['e1', 'e2', 'e4'],
      ['e5', 'e7', 'e8'],
      ['e10', 'e11'],
    ]);
    const plan = statements.plan((sql) => sql.includes('ORDER BY c.created_at, c.id'));
    expect(plan.join('\n')).toMatch(/USING INDEX chunks_scan/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});
