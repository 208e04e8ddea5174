import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { type Episode, MemError, type Procedure } from '@mem/core';
import { afterEach, describe, expect, it } from 'vitest';
import { EPISODE_SCHEMA, episodeSchema } from './candidate-schema.js';
import {
  createLanceEpisodeStore,
  createLanceProcedureStore,
  createLanceStore,
  createLanceStores,
  type LanceStoreOptions,
} from './index.js';
import { arrow } from './schema.js';

const NOW = '2026-03-01T12:00:00.000Z';
const dirs: string[] = [];
const closers: { close(): Promise<void> }[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-cand-'));
  dirs.push(dir);
  return dir;
}

function track<S extends { close(): Promise<void> }>(store: S): S {
  closers.push(store);
  return store;
}

const episodes = (options: Partial<LanceStoreOptions> = {}, uri = tempDir()) =>
  track(createLanceEpisodeStore({ uri, ...options }));
const procedures = (options: Partial<LanceStoreOptions> = {}, uri = tempDir()) =>
  track(createLanceProcedureStore({ uri, ...options }));

afterEach(async () => {
  for (const s of closers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function episode(id: string, summary: string, extra: Partial<Episode> = {}): Episode {
  return {
    id,
    summary,
    keyDecisions: [],
    toolsUsed: [],
    outcome: 'success',
    sessionId: null,
    timestamp: NOW,
    tags: [],
    metadata: {},
    ...extra,
  };
}

function procedure(id: string, name: string, extra: Partial<Procedure> = {}): Procedure {
  return {
    id,
    name,
    description: '',
    trigger: '',
    steps: [],
    successCount: 0,
    failureCount: 0,
    tags: [],
    metadata: {},
    createdAt: NOW,
    updatedAt: NOW,
    ...extra,
  };
}

const unit = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

const isCode = (code: string) => (e: unknown) => MemError.is(e) && e.code === code;

describe('lancedb episode and procedure stores', () => {
  it('tags, terms, spaces and models are plain text: nothing widens a query or breaks it', async () => {
    const store = episodes();
    const hostileSpace = "acme' OR '1'='1";
    const tags = ["it's", '%', 'a_b', 'back\\slash', "' OR '1'='1", '東京'];
    await store.insert('acme', episode('deploy', 'The deploy script restarts the api', { tags }), {
      vector: unit(1, 0, 0),
      model: 'm',
    });
    await store.insert('acme', episode('lunch', 'Lunch is served at noon', { tags: ['axb', 'abc'] }), null);
    await store.insert('acme', episode('ops', 'Operators AND OR NOT are words here too'), null);
    await store.insert(hostileSpace, episode('deploy', 'deploy in a hostile space'), {
      vector: unit(1, 0, 0),
      model: 'm',
    });
    for (const tag of tags) expect((await store.byTag('acme', tag, 10)).map((e) => e.id)).toEqual(['deploy']);
    for (const tag of ['a%', "it''s", 'A_B', 'a', '', "'"]) expect(await store.byTag('acme', tag, 10)).toEqual([]);
    expect(await store.byTag(hostileSpace, "it's", 10)).toEqual([]);
    expect(await store.count(hostileSpace)).toBe(1);
    expect((await store.recent(hostileSpace, 10)).map((e) => e.summary)).toEqual(['deploy in a hostile space']);

    const search = async (terms: string[], space = 'acme') =>
      (await store.keywordSearch(space, terms, 10)).map((h) => h.id).sort();
    expect(await search(['"deploy" OR "lunch"'])).toEqual(['deploy', 'lunch', 'ops']);
    expect(await search(['deploy*'])).toEqual(['deploy']);
    expect(await search(['fts_text:lunch', 'summary:zebra'])).toEqual(['lunch']);
    // Quotes and `=` are not syntax: these are the words "or", "1", "1" (in `ops`, and in a tag of `deploy`).
    expect(await search(["' OR '1'='1"])).toEqual(['deploy', 'ops']);
    // Stemming and case folding come from the index tokenizer; tags are part of the search text.
    expect(await search(['Restarting', 'APIs'])).toEqual(['deploy']);
    expect(await search(['東京'])).toEqual(['deploy']);
    expect(await search(['deploy'], hostileSpace)).toEqual(['deploy']);
    expect((await store.keywordSearch(hostileSpace, ['deploy'], 10))[0]?.score).toBeGreaterThan(0);

    expect((await store.vectorSearch('acme', unit(1, 0, 0), 'm', 10)).map((h) => h.id)).toEqual(['deploy']);
    expect(await store.vectorSearch('acme', unit(1, 0, 0), "m' OR '1'='1", 10)).toEqual([]);
    expect(await store.vectorSearch('acme', unit(1, 0, 0, 0), 'm', 10)).toEqual([]);
    expect(await store.vectorSearch('acme', new Float32Array(0), 'm', 10)).toEqual([]);
    expect((await store.vectorSearch(hostileSpace, unit(1, 0, 0), 'm', 10)).map((h) => h.id)).toEqual(['deploy']);
  });

  it('lists everything for an infinite limit, nothing for zero, and batches long id lists', async () => {
    const store = episodes();
    for (let i = 0; i < 4; i++) await store.insert('acme', episode(`e${i}`, `task ${i}`, { tags: ['t'] }), null);
    expect(await store.recent('acme', Number.POSITIVE_INFINITY)).toHaveLength(4);
    expect(await store.byTag('acme', 't', Number.POSITIVE_INFINITY)).toHaveLength(4);
    expect(await store.keywordSearch('acme', ['task'], Number.POSITIVE_INFINITY)).toHaveLength(4);
    expect(await store.recent('acme', 0)).toEqual([]);
    expect(await store.recent('acme', Number.NaN)).toEqual([]);
    expect(await store.keywordSearch('acme', ['task'], -1)).toEqual([]);
    const ids = [...Array.from({ length: 1200 }, (_, i) => `missing-${i}`), 'e3', 'e1', 'e3'];
    expect((await store.getMany('acme', ids)).map((e) => e.id)).toEqual(['e3', 'e1', 'e3']);
    expect(await store.getMany('acme', [])).toEqual([]);
  });

  it('keeps the full-text index exact across outcome updates; optimize keeps every row', async () => {
    const store = procedures();
    await store.insert('acme', procedure('p1', 'Rotate certificates', { tags: ['tls'] }), {
      vector: unit(1, 0),
      model: 'm',
    });
    await store.insert('acme', procedure('p2', 'Order lunch'), { vector: unit(0, 1), model: 'm' });
    for (let i = 0; i < 3; i++) await store.incrementOutcome('acme', 'p1', i !== 1, NOW);
    // The updates rewrote the row: it is searched once (no stale copy), and the index covers it again.
    expect(await store.keywordSearch('acme', ['certificates'], 10)).toEqual([{ id: 'p1', score: expect.any(Number) }]);
    expect((await store.indexState()).fts).toMatchObject({ unindexedRows: 0 });
    const before = await store.get('acme', 'p1');
    expect(before).toMatchObject({ successCount: 2, failureCount: 1, tags: ['tls'] });
    const report = await store.optimize({ cleanupOlderThan: new Date() });
    expect(Object.keys(report.compaction)).toEqual(['procedures']);
    expect(await store.get('acme', 'p1')).toEqual(before);
    expect(await store.count('acme')).toBe(2);
    expect((await store.vectorSearch('acme', unit(1, 0), 'm', 1))[0]).toMatchObject({ id: 'p1' });
    expect((await store.keywordSearch('acme', ['lunch'], 10)).map((h) => h.id)).toEqual(['p2']);
  });

  it('with upkeep off, new rows are searched with the index tokenizer until optimize folds them in', async () => {
    const store = episodes({ maintenance: { auto: false } });
    await store.insert('acme', episode('e1', 'Rollback of the friday releases'), null);
    await store.insert('acme', episode('e2', 'Lunch order'), null);
    expect((await store.indexState()).fts).toEqual({ indexedRows: 0, unindexedRows: 2 });
    expect((await store.keywordSearch('acme', ['rollback', 'release'], 10)).map((h) => h.id)).toEqual(['e1']);
    expect((await store.optimize()).indexesCreated).toEqual([]);
    expect((await store.indexState()).fts).toEqual({ indexedRows: 2, unindexedRows: 0 });
    expect((await store.keywordSearch('acme', ['rollback', 'release'], 10)).map((h) => h.id)).toEqual(['e1']);
  });

  it('createLanceStores: four ports on one connection; a store closes alone; tables appear on first use', async () => {
    const uri = tempDir();
    const stores = createLanceStores({ uri });
    await stores.episodes.insert('acme', episode('e1', 'first episode'), null);
    expect(readdirSync(uri).filter((f) => f.endsWith('.lance'))).toEqual(['episodes.lance']);
    await stores.ready();
    // Six knowledge tables, episodes, procedures and the graph's five.
    expect(readdirSync(uri).filter((f) => f.endsWith('.lance')).length).toBe(13);
    await stores.procedures.insert('acme', procedure('p1', 'Deploy'), null);
    expect(Object.keys(await stores.optimize())).toEqual(['knowledge', 'episodes', 'procedures', 'graph']);
    await stores.knowledge.close();
    await expect(stores.knowledge.stats('acme')).rejects.toSatisfy(isCode('STORE_UNAVAILABLE'));
    expect(await stores.episodes.count('acme')).toBe(1);
    expect((await stores.procedures.incrementOutcome('acme', 'p1', true, NOW)).successCount).toBe(1);
    await stores.close();
    await expect(stores.episodes.count('acme')).rejects.toSatisfy(isCode('STORE_UNAVAILABLE'));
    expect(readdirSync(uri).filter((f) => f.includes('lock'))).toEqual([]);
    // A new connection sees everything.
    const again = track(createLanceStores({ uri }));
    expect((await again.procedures.get('acme', 'p1'))?.successCount).toBe(1);
    expect((await again.knowledge.stats('acme')).documents).toBe(0);
  });

  it('refuses a table that is not one of ours, and one written by a newer schema version', async () => {
    const uri = tempDir();
    await track(createLanceStore({ uri })).ready();
    const foreign = episodes({ tableNames: { episodes: 'knowledge_meta' } }, uri);
    await expect(foreign.count('acme')).rejects.toSatisfy(isCode('STORE_CORRUPT'));
    const conn = await lancedb.connect(uri);
    const schema = episodeSchema();
    const newer = new arrow.Schema(schema.fields, new Map([[EPISODE_SCHEMA.key, '99']]));
    (await conn.createEmptyTable('episodes_v99', newer)).close();
    conn.close();
    const future = episodes({ tableNames: { episodes: 'episodes_v99' } }, uri);
    const error = await future.count('acme').catch((e: unknown) => e);
    expect(MemError.is(error, 'STORE_UNAVAILABLE') && error.message).toMatch(/newer/);
  });

  it('without any write lock, concurrent outcome reports are still all counted (LanceDB re-runs the update)', async () => {
    // Two connections that share neither the lock file nor the in-process queue (a second path to the folder):
    // the situation of two processes on object storage. Index upkeep is off to isolate the update itself.
    const uri = tempDir();
    const alias = join(tempDir(), 'alias');
    symlinkSync(uri, alias, 'dir');
    const options = { lock: false, maintenance: { auto: false } } as const;
    const a = procedures(options, uri);
    const b = procedures(options, alias);
    await a.insert('acme', procedure('p1', 'Contested'), null);
    await Promise.all(
      Array.from({ length: 15 }, (_, i) => [
        a.incrementOutcome('acme', 'p1', true, NOW),
        b.incrementOutcome('acme', 'p1', i % 3 === 0, NOW),
      ]).flat(),
    );
    expect(await b.get('acme', 'p1')).toMatchObject({ successCount: 20, failureCount: 10 });
  });
});
