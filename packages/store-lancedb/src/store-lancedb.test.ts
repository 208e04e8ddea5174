import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { MemError } from '@mem/core';
import { chunkId, type MemoryRecord, type SearchFilter } from '@mem/core/adapter';
import { keywordHits, vectorHits } from '@mem/testkit';
import { memoryRecord, modeOf, withUmask } from '@mem/testkit/internal';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createLanceEpisodeStore,
  createLanceProcedureStore,
  createLanceStore,
  FileLock,
  filterPredicate,
  type LanceKnowledgeStore,
  matchText,
  sqlString,
} from './index.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const NOW = '2026-03-01T12:00:00.000Z';

const dirs: string[] = [];
const stores: LanceKnowledgeStore[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-test-'));
  dirs.push(dir);
  return dir;
}

function open(options: Partial<Parameters<typeof createLanceStore>[0]> = {}, uri = tempDir()): LanceKnowledgeStore {
  const store = createLanceStore({ uri, ...options });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const record = (over: Partial<MemoryRecord> & { content: string }) => memoryRecord(over, 'doc');

const filter = (over: Partial<SearchFilter> = {}): SearchFilter => ({
  space: 'acme',
  viewerAgentId: 'alice',
  now: NOW,
  ...over,
});

/** Deterministic pseudo-random unit vectors around a few centres (a small synthetic embedding set). */
function syntheticVectors(count: number, dim: number, seed = 7): Float32Array[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
  const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: dim }, rand));
  return Array.from({ length: count }, (_, i) => {
    const c = centres[i % centres.length]!;
    const v = Float32Array.from({ length: dim }, (_, j) => c[j]! + 0.35 * rand());
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

describe('SQL and full-text text building', () => {
  it('quotes string literals so that no text can leave them', () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(sqlString("x' OR '1'='1")).toBe("'x'' OR ''1''=''1'");
    expect(sqlString('back\\slash')).toBe("'back\\slash'");
    expect(sqlString('\uD800lone')).toBe("'\uFFFDlone'");
    const where = filterPredicate(filter({ keyPrefix: "/a'b%_", tags: ["t'1", 't2', "t'1"], source: 'manual' }));
    expect(where).toContain("left(key, 6) = '/a''b%_'");
    expect(where).toContain("array_has_all(tags, ['t''1', 't2'])");
    expect(where).not.toMatch(/LIKE/i);
  });

  it('joins terms into plain match text', () => {
    expect(matchText(['deploy', 'deploy', ' ', 'a\u0000b'])).toBe('deploy a b');
    expect(matchText(['', '  '])).toBeNull();
  });
});

describe('lancedb adapter', () => {
  it('filters are literal: quotes, backslashes, % and _ never widen or break a predicate', async () => {
    const store = open();
    const nasty = [
      "/kb/it's",
      '/kb/back\\slash',
      '/kb/100%',
      '/kb/a_b',
      "/kb/x' OR '1'='1",
      '/kb/-- comment',
      '/kb/"quoted"',
      '/kb/東京',
    ];
    for (const key of nasty) await store.insertDocument([record({ content: `note under ${key}`, key, tags: [key] })]);
    await store.insertDocument([record({ content: 'note under /kb/axb', key: '/kb/axb', tags: ['plain'] })]);
    await store.insertDocument([record({ content: 'note under /kb/1000', key: '/kb/1000', tags: ['plain'] })]);
    // A hostile space and agent name match only themselves.
    await store.insertDocument([record({ content: 'note in a hostile space', space: "acme' OR '1'='1" })]);
    await store.insertDocument([
      record({ content: 'note of a hostile agent', agentId: "alice' OR scope = 'agent", key: '/x' }),
    ]);
    const [v] = syntheticVectors(1, 8);
    for (const prefix of nasty) {
      const f = filter({ keyPrefix: prefix });
      const kw = await keywordHits(store, { filter: f, terms: ['note'], limit: 50 });
      const docs = await store.getChunks(
        'acme',
        kw.map((h) => h.id),
      );
      expect(docs.map((d) => d.key)).toEqual([prefix]);
      const tagged = await keywordHits(store, { filter: filter({ tags: [prefix] }), terms: ['note'], limit: 50 });
      expect(tagged).toHaveLength(1);
      // The vector arm shares the predicate (no vectors stored here: it must simply not fail).
      expect(await vectorHits(store, { filter: f, vector: v!, limit: 5 })).toEqual([]);
    }
    // Once the BTREE index of `key` covers every row (optimize), a prefix is still literal: LanceDB answers
    // `starts_with` from that index as an unescaped LIKE (`_` any character, a backslash nothing).
    await store.optimize();
    for (const prefix of ['/kb/a_b', '/kb/back\\slash', '/kb/100%', '/kb/東京']) {
      const kw = await keywordHits(store, { filter: filter({ keyPrefix: prefix }), terms: ['note'], limit: 50 });
      expect(
        (
          await store.getChunks(
            'acme',
            kw.map((h) => h.id),
          )
        ).map((d) => d.key),
      ).toEqual([prefix]);
    }
    expect(await keywordHits(store, { filter: filter({ keyPrefix: '/kb/a%' }), terms: ['note'], limit: 50 })).toEqual(
      [],
    );
    expect(await keywordHits(store, { filter: filter({ keyPrefix: '/KB/' }), terms: ['note'], limit: 50 })).toEqual([]);
    const all = await keywordHits(store, { filter: filter(), terms: ['note'], limit: 50 });
    expect(all).toHaveLength(nasty.length + 2);
    const hostile = await keywordHits(store, {
      filter: filter({ space: "acme' OR '1'='1" }),
      terms: ['note'],
      limit: 50,
    });
    expect(hostile).toHaveLength(1);
    const hostileAgent = await keywordHits(store, {
      filter: filter({ viewerAgentId: "alice' OR scope = 'agent" }),
      terms: ['note'],
      limit: 50,
    });
    expect(hostileAgent).toHaveLength(1);
    expect(await store.findDocIdByKey('acme', 'agent', 'alice', "/kb/x' OR '1'='1")).not.toBeNull();
    expect(await store.findDocIdByKey('acme', 'agent', 'alice', "' OR '1'='1")).toBeNull();
  });

  it('keyword terms are plain words: no query syntax can be injected', async () => {
    const store = open();
    const a = record({ content: 'The deploy script restarts the api service' });
    const b = record({ content: 'Lunch is served at noon on Fridays' });
    const c = record({ content: 'Operators AND OR NOT are words here too' });
    for (const r of [a, b, c]) await store.insertDocument([r]);
    const search = (terms: string[]) => keywordHits(store, { filter: filter(), terms, limit: 10 });
    // Every engine's query syntax as plain words, never throwing: the knowledge conformance suite. Here, what
    // LanceDB's tokenizer makes of it.
    expect((await search(['"deploy" OR "lunch"'])).map((h) => h.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect((await search(['deploy*'])).map((h) => h.id)).toEqual([a.id]);
    // Quotes and `=` are not syntax: this is the words "or", "1", "1" — only the row holding the word "or".
    expect((await search(["' OR '1'='1"])).map((h) => h.id)).toEqual([c.id]);
    expect(await search(['%', '_'])).toEqual([]);
    // An operator word is matched as a word (only the row that contains it).
    expect((await search(['NOT'])).map((h) => h.id)).toEqual([c.id]);
    // Stemming and case folding come from the index tokenizer.
    expect((await search(['Deploys', 'restarting'])).map((h) => h.id)).toEqual([a.id]);
  });

  it('a table whose creation was killed before its first version is created again, and the store works', async () => {
    const uri = tempDir();
    // What a kill between the folder and the first commit leaves: the table's folder, no `_versions`.
    mkdirSync(join(uri, 'knowledge_chunks.lance', 'data'), { recursive: true });
    const store = open({}, uri);
    await store.insertDocument([record({ content: 'survives a half-made table', key: '/kb/half' })]);
    const hits = await keywordHits(store, { filter: filter(), terms: ['survives'], limit: 5 });
    expect(hits).toHaveLength(1);
    // Any other damage is still reported: a folder that is not a table at all under another table's name.
    const other = tempDir();
    mkdirSync(join(other, 'knowledge_versions.lance', '_versions'), { recursive: true });
    writeFileSync(join(other, 'knowledge_versions.lance', '_versions', '1.manifest'), 'not a manifest');
    await expect(open({}, other).insertDocument([record({ content: 'x', key: '/kb/x' })])).rejects.toThrow();
  });

  it('builds the ANN index past the threshold with the same top results as flat search', async () => {
    for (const type of ['IVF_PQ', 'IVF_HNSW_SQ'] as const) {
      const dim = 32;
      const vectors = syntheticVectors(701, dim);
      const store = open({ index: { vector: { type, minRows: 600 } } });
      /** A many-chunk document, one vector per chunk (bulk rows without one write per row). */
      const doc = (docId: string, key: string, from: number, to: number) =>
        vectors.slice(from, to).map((embedding, i) =>
          record({
            docId,
            id: chunkId(docId, i),
            key,
            chunkIndex: i,
            chunkCount: to - from,
            content: `synthetic ${from + i}`,
            embedding,
            embeddingModel: 'synthetic',
            tags: (from + i) % 2 ? ['odd'] : [],
          }),
        );
      const first = doc(`${type}-a`, '/synthetic/a', 0, 599);
      await store.insertDocument(first);
      expect(store.capabilities.exactVector).toBe(true);
      expect((await store.indexState()).vector).toEqual({});
      const queries = syntheticVectors(10, dim, 99);
      const flat = [];
      for (const q of queries) flat.push(await vectorHits(store, { filter: filter(), vector: q, limit: 10 }));
      await store.insertDocument(doc(`${type}-b`, '/synthetic/b', 599, 700));
      const [one] = doc(`${type}-c`, '/narrow/one', 700, 701);
      await store.insertDocument([one!]);
      const state = await store.indexState();
      expect(Object.keys(state.vector)).toEqual([`vec_${dim}`]);
      expect(store.capabilities.exactVector).toBe(false);
      // The newer rows are not in the flat baseline; compare on the rows both searches saw.
      const known = new Set(first.map((d) => d.id));
      let overlap = 0;
      let total = 0;
      for (const [i, q] of queries.entries()) {
        const ann = await vectorHits(store, { filter: filter(), vector: q, limit: 30 });
        const annKnown = ann.filter((h) => known.has(h.id)).slice(0, 10);
        const expected = flat[i]!.map((h) => h.id);
        overlap += annKnown.filter((h) => expected.includes(h.id)).length;
        total += expected.length;
        // Similarities are exact (refined), so the top hit agrees to float precision.
        expect(annKnown[0]?.id).toBe(expected[0]);
        expect(annKnown[0]?.similarity).toBeCloseTo(flat[i]![0]!.similarity, 5);
      }
      expect(overlap / total).toBeGreaterThanOrEqual(0.9);
      // A narrow filter still finds its rows (exact fallback when the probed partitions come up short).
      const narrow = await vectorHits(store, {
        filter: filter({ keyPrefix: '/narrow/' }),
        vector: queries[3]!,
        limit: 5,
      });
      expect(narrow.map((h) => h.id)).toEqual([one!.id]);
      const odd = await vectorHits(store, { filter: filter({ tags: ['odd'] }), vector: queries[0]!, limit: 10 });
      expect(odd).toHaveLength(10);
      const oddRows = await store.getChunks(
        'acme',
        odd.map((h) => h.id),
      );
      expect(oddRows.every((r) => r.tags.includes('odd'))).toBe(true);
    }
  });

  it('optimize keeps every row, version, rating and access, and search still works', async () => {
    const uri = tempDir();
    const store = open({ maintenance: { auto: false } }, uri);
    const [v1, v2] = syntheticVectors(2, 16);
    const doc = record({ content: 'Runbook for the payments service restart', embedding: v1!, key: '/runbooks/pay' });
    await store.insertDocument([doc]);
    await store.insertDocument([record({ content: 'Unrelated lunch menu', embedding: v2! })]);
    await store.recordAccess('acme', doc.docId, '2026-03-02T00:00:00.000Z');
    await store.addRating({
      docId: doc.docId,
      space: 'acme',
      taskId: 't1',
      useful: true,
      note: 'helped',
      agentId: 'bob',
      at: NOW,
      counted: true,
    });
    await store.moveDocument(
      'acme',
      doc.docId,
      { newKey: '/runbooks/payments', updatedAt: NOW },
      {
        docId: doc.docId,
        space: 'acme',
        version: 1,
        oldContent: doc.content,
        oldKey: doc.key,
        intent: 'rename',
        agentId: 'alice',
        at: NOW,
      },
      1,
    );
    const before = await store.getDocument('acme', doc.docId);
    const versionsBefore = await store.listVersions('acme', doc.docId);
    // Upkeep is off: the full-text index exists from the start (so unindexed rows are searched with its
    // tokenizer: `Payments` finds `payments`), and optimize folds the new rows in.
    expect((await store.indexState()).fts).toMatchObject({ indexedRows: 0 });
    expect((await keywordHits(store, { filter: filter(), terms: ['Payments'], limit: 5 }))[0]?.id).toBe(doc.id);
    const report = await store.optimize({ cleanupOlderThan: new Date() });
    expect(report.indexesCreated).toEqual([]);
    expect((await store.indexState()).fts).toMatchObject({ unindexedRows: 0 });
    expect(report.compaction.knowledge_chunks).toBeDefined();
    const after = await store.getDocument('acme', doc.docId);
    expect(after).toEqual(before);
    expect(after[0]).toMatchObject({ key: '/runbooks/payments', accessCount: 1, alpha: 2, beta: 1, version: 2 });
    expect(await store.listVersions('acme', doc.docId)).toEqual(versionsBefore);
    expect((await store.stats('acme')).documents).toBe(2);
    const kw = await keywordHits(store, { filter: filter(), terms: ['payments', 'restart'], limit: 5 });
    expect(kw[0]?.id).toBe(doc.id);
    const vec = await vectorHits(store, { filter: filter(), vector: v1!, limit: 1 });
    expect(vec[0]).toMatchObject({ id: doc.id });
    expect(vec[0]!.similarity).toBeCloseTo(1, 5);
    // A second connection reads the same data.
    const other = open({}, uri);
    expect(await other.getDocument('acme', doc.docId)).toEqual(before);
  });

  it('adds the counted column to a ratings table written before it: old votes count, a new one replaces them', async () => {
    const uri = tempDir();
    const first = open({}, uri);
    const doc = record({ content: 'The payments runbook' });
    await first.insertDocument([doc]);
    await first.close();
    stores.splice(stores.indexOf(first), 1);
    // Make the table as an older package wrote it: no counted column, one vote.
    const conn = await lancedb.connect(uri);
    const ratings = await conn.openTable('knowledge_ratings');
    await ratings.dropColumns(['counted']);
    await ratings.add([
      { space: 'acme', doc_id: doc.docId, task_id: 'old', useful: false, note: null, agent_id: 'bob', at: NOW },
    ]);
    ratings.close();
    conn.close();
    const store = open({}, uri);
    expect((await store.getDocument('acme', doc.docId))[0]).toMatchObject({ alpha: 1, beta: 2 });
    const outcome = await store.addRating({
      docId: doc.docId,
      space: 'acme',
      taskId: 'new',
      useful: true,
      note: null,
      agentId: 'bob',
      at: NOW,
      counted: true,
    });
    expect(outcome).toEqual({ replaced: 1 });
    expect((await store.getDocument('acme', doc.docId))[0]).toMatchObject({ alpha: 2, beta: 1 });
  });

  it('drops the vector column of an old dimension after re-embedding, on optimize', async () => {
    const store = open();
    const [v8] = syntheticVectors(1, 8);
    const [v4] = syntheticVectors(1, 4);
    const doc = record({ content: 'to be re-embedded', embedding: v8!, embeddingModel: 'm8' });
    await store.insertDocument([doc]);
    await store.updateEmbeddings([{ id: doc.id, embedding: v4! }], { model: 'm4', dimension: 4 });
    const got = await store.getChunk('acme', doc.id);
    expect(got?.embedding).toEqual(v4);
    expect(got?.embeddingModel).toBe('m4');
    expect(await store.getEmbeddingInfo()).toEqual({ model: 'm4', dimension: 4 });
    expect(await vectorHits(store, { filter: filter(), vector: v8!, limit: 5 })).toEqual([]);
    const report = await store.optimize();
    expect(report.droppedVectorColumns).toEqual(['vec_8']);
    expect((await vectorHits(store, { filter: filter(), vector: v4!, limit: 5 }))[0]?.id).toBe(doc.id);
  });

  it('creates its folder 0700 whatever the umask (the files inside are out of reach of other users)', async () => {
    const uri = join(tempDir(), 'lancedb', 'mem');
    await withUmask(async () => {
      const store = open({}, uri);
      await store.insertDocument([record({ content: 'a private memory' })]);
      await store.close();
    });
    expect(await modeOf(uri)).toBe('700');
    expect(await modeOf(dirname(uri))).toBe('700');
    expect(readdirSync(uri).length).toBeGreaterThan(0);
  });

  it('leaves no lock file behind, and refuses a second table layout it does not know', async () => {
    const uri = tempDir();
    const store = open({}, uri);
    await store.insertDocument([record({ content: 'one' })]);
    expect(readdirSync(uri).filter((f) => f.includes('lock'))).toEqual([]);
    const foreign = open({ tableNames: { chunks: 'knowledge_meta' } }, uri);
    const error = await foreign.stats('acme').catch((e: unknown) => e);
    expect(MemError.is(error, 'STORE_CORRUPT')).toBe(true);
    await store.close();
    await expect(store.stats('acme')).rejects.toSatisfy((e) => MemError.is(e, 'STORE_UNAVAILABLE'));
  });

  it('two processes on one folder: one key winner, every rating, episode and outcome counted', async () => {
    const uri = tempDir();
    const store = open({}, uri);
    const target = record({ content: 'rated from two processes' });
    await store.insertDocument([target]);
    const procedures = createLanceProcedureStore({ uri });
    await procedures.insert(
      'acme',
      {
        id: 'shared-procedure',
        name: 'Reported from two processes',
        description: '',
        trigger: '',
        steps: [],
        successCount: 0,
        failureCount: 0,
        tags: [],
        metadata: {},
        createdAt: NOW,
        updatedAt: NOW,
      },
      null,
    );
    const child = join(here, '..', 'test', 'race-child.ts');
    const runChild = (name: string) =>
      run(process.execPath, ['--conditions=dev-source', '--import', 'tsx', child, uri, name, target.docId], {
        cwd: join(here, '..'),
        timeout: 90_000,
      });
    const [a, b] = await Promise.all([runChild('p1'), runChild('p2')]);
    const results = [JSON.parse(a.stdout), JSON.parse(b.stdout)] as { contested: string; writes: number }[];
    expect(results.map((r) => r.contested).sort()).toEqual(['KEY_TAKEN', 'won']);
    expect(results.every((r) => r.writes === 20)).toBe(true);
    expect((await store.stats('acme')).documents).toBe(1 + 1 + 40);
    expect((await store.getDocument('acme', target.docId))[0]?.alpha).toBe(1 + 20);
    expect(await procedures.get('acme', 'shared-procedure')).toMatchObject({ successCount: 10, failureCount: 10 });
    const episodes = createLanceEpisodeStore({ uri });
    expect(await episodes.byTag('acme', 'race', 100)).toHaveLength(10);
    await episodes.close();
    await procedures.close();
  });
});

describe('FileLock', () => {
  it('serialises holders and breaks the lock of a dead process', async () => {
    const dir = tempDir();
    const path = join(dir, 'w.lock');
    const lock = new FileLock(path, { staleMs: 60_000, timeoutMs: 2_000 });
    const release = await lock.acquire();
    expect(existsSync(path)).toBe(true);
    const second = new FileLock(path, { staleMs: 60_000, timeoutMs: 200 });
    await expect(second.acquire()).rejects.toSatisfy((e) => MemError.is(e, 'STORE_UNAVAILABLE'));
    await release();
    expect(existsSync(path)).toBe(false);
    // A lock left by a process that no longer exists is broken at once.
    writeFileSync(
      path,
      JSON.stringify({ token: 'dead', pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), at: NOW }),
    );
    const again = await new FileLock(path, { staleMs: 60_000, timeoutMs: 1_000 }).acquire();
    await again();
    // A silent lock (no heartbeat for staleMs) is broken too.
    writeFileSync(path, JSON.stringify({ token: 'remote', pid: 1, host: 'another-host', at: NOW }));
    const stale = new FileLock(path, { staleMs: 100, timeoutMs: 5_000 });
    const t0 = Date.now();
    const r = await stale.acquire();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(50);
    await r();
  });
});
