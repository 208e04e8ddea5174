import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { createHashingEmbedder, createStack, MemError } from '@mem/core';
import type { MemoryRecord } from '@mem/core/adapter';
import { keywordHits, memoryRecord } from '@mem/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLanceStore, type LanceKnowledgeStore, type LanceStoreOptions } from './index.js';
import { indexSettings } from './options.js';
import { ManagedTable } from './upkeep.js';

// Group commit of concurrent inserts and the background compaction, on real LanceDB folders.

const dirs: string[] = [];
const stores: LanceKnowledgeStore[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-group-'));
  dirs.push(dir);
  return dir;
}

function open(uri: string, options: Partial<LanceStoreOptions> = {}): LanceKnowledgeStore {
  const store = createLanceStore({ uri, ...options });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const record = (over: Partial<MemoryRecord> & { content: string }) => memoryRecord(over, 'gdoc');

/** The chunks table as LanceDB sees it, on a connection of its own. */
async function chunksTable(uri: string): Promise<lancedb.Table> {
  const conn = await lancedb.connect(uri, { readConsistencyInterval: 0 });
  return conn.openTable('knowledge_chunks');
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A check may race the cleanup it waits for (a version listed, then removed before it is read): try again.
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const alice = { space: 'acme', agentId: 'alice', role: 'worker' } as const;

describe('lancedb group commit', () => {
  it('concurrent stores share commits: every one readable afterwards, far fewer table versions than writes', async () => {
    const uri = tempDir();
    const knowledge = open(uri, { maintenance: { background: false } });
    const stack = createStack({ knowledge, embedder: createHashingEmbedder() });
    await stack.knowledge.store(alice, { content: 'A first note so that the tables exist.' });
    await knowledge.indexState(); // the upkeep of that first write is done
    const table = await chunksTable(uri);
    const before = await table.version();
    const n = 40;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        stack.knowledge.store(alice, { content: `Rollout note ${i}: canary widened to zone z${i}.` }),
      ),
    );
    const after = await table.version();
    // One append per batch plus the index upkeep they share, instead of one version (or two) per write.
    expect(after - before).toBeLessThan(n / 4);
    expect(await table.countRows()).toBe(n + 1);
    for (const [i, r] of results.entries()) {
      const doc = await knowledge.getDocument('acme', r.id);
      expect(doc.map((c) => c.content)).toEqual([`Rollout note ${i}: canary widened to zone z${i}.`]);
    }
    // Read after write by the same caller: the keyword arm sees the rows the batch just wrote.
    const hits = await keywordHits(knowledge, {
      terms: ['z17'],
      filter: { space: 'acme', viewerAgentId: 'alice', now: new Date().toISOString() },
      limit: 5,
    });
    expect(hits.map((h) => h.id)).toEqual([results[17]!.ids[0]]);
    table.close();
  });

  it('checks each write of a batch on its own: a taken key or a used id refuses that write only', async () => {
    const uri = tempDir();
    const store = open(uri, { maintenance: { background: false } });
    const existing = record({ content: 'already there' });
    await store.insertDocument([existing]);
    const table = await chunksTable(uri);
    const before = await table.version();
    const first = record({ content: 'first claim', key: '/agent/shared' });
    const second = record({ content: 'second claim', key: '/agent/shared' });
    const reused = record({ content: 'reuses an id', docId: existing.docId });
    const fine = Array.from({ length: 5 }, (_, i) => record({ content: `fine ${i}` }));
    const settled = await Promise.allSettled([
      store.insertDocument([first]),
      store.insertDocument([second]),
      store.insertDocument([reused]),
      ...fine.map((r) => store.insertDocument([r])),
    ]);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const reason = (i: number) => (settled[i] as PromiseRejectedResult).reason;
    expect(MemError.is(reason(1), 'KEY_TAKEN')).toBe(true);
    expect((reason(1) as MemError).message).toContain(first.docId);
    expect(MemError.is(reason(2), 'CONFLICT')).toBe(true);
    // The accepted writes went in together.
    expect((await table.version()) - before).toBe(1);
    expect(await store.findDocIdByKey('acme', 'agent', 'alice', '/agent/shared')).toBe(first.docId);
    for (const r of fine) expect(await store.getDocument('acme', r.docId)).toHaveLength(1);
    expect((await store.getDocument('acme', existing.docId)).map((c) => c.content)).toEqual(['already there']);
    expect((await store.stats('acme')).documents).toBe(1 + 1 + 5);
    table.close();
  });

  it('a commit that fails rejects every write in it with the same error and changes nothing', async () => {
    const uri = tempDir();
    const store = open(uri, { maintenance: { background: false } });
    await store.insertDocument([record({ content: 'before the failure' })]);
    await store.indexState();
    const table = await chunksTable(uri);
    const version = await table.version();
    // LanceDB writes a transaction file for every commit: with `_transactions` turned into a plain file, every
    // commit fails for real (reads, and so the checks before the append, still work).
    const txns = join(uri, 'knowledge_chunks.lance', '_transactions');
    renameSync(txns, `${txns}.aside`);
    writeFileSync(txns, 'not a folder');
    const doomed = Array.from({ length: 6 }, (_, i) => record({ content: `doomed ${i}` }));
    const settled = await Promise.allSettled(doomed.map((r) => store.insertDocument([r])));
    rmSync(txns);
    renameSync(`${txns}.aside`, txns);
    const errors = settled.map((s) => (s.status === 'rejected' ? s.reason : null));
    expect(errors.every((e) => MemError.is(e, 'STORE_UNAVAILABLE'))).toBe(true);
    expect(new Set(errors).size).toBe(1); // one error, shared by the whole batch
    expect((errors[0] as MemError).message).toMatch(/^lancedb: insertDocuments failed: /);
    expect(await table.version()).toBe(version);
    expect(await table.countRows()).toBe(1);
    for (const r of doomed) expect(await store.getDocument('acme', r.docId)).toEqual([]);
    // The store keeps working once the folder is whole again.
    const later = record({ content: 'after the failure' });
    await store.insertDocument([later]);
    expect(await store.getDocument('acme', later.docId)).toHaveLength(1);
    table.close();
  });

  it('close while writes are queued settles them: each is committed, and later calls are refused', async () => {
    const uri = tempDir();
    const store = createLanceStore({ uri });
    await store.insertDocument([record({ content: 'opens the tables' })]);
    const queued = Array.from({ length: 12 }, (_, i) => record({ content: `queued ${i}` }));
    const writes = queued.map((r) => store.insertDocument([r]));
    const closing = store.close();
    const settled = await Promise.allSettled(writes);
    await closing;
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    await expect(store.insertDocument([record({ content: 'too late' })])).rejects.toSatisfy((e) =>
      MemError.is(e, 'STORE_UNAVAILABLE'),
    );
    // Every acknowledged write is there for the next opener, and close ran the index upkeep it owed.
    const reopened = open(uri);
    for (const r of queued) expect(await reopened.getDocument('acme', r.docId)).toHaveLength(1);
    const table = await chunksTable(uri);
    const stats = await table.indexStats('fts_text_idx');
    expect(stats?.numUnindexedRows).toBe(0);
    table.close();
  });

  it('compacts table versions in the background after N commits, and stops on close', async () => {
    const uri = tempDir();
    const warnings: unknown[] = [];
    const store = open(uri, {
      maintenance: { background: { everyCommits: 5, everyMs: 60_000, keepVersionsMs: 0 } },
      logger: { warn: (message, fields) => warnings.push({ message, fields }) },
    });
    await store.ready();
    const table = await chunksTable(uri);
    for (let i = 0; i < 5; i++) await store.insertDocument([record({ content: `one at a time ${i}` })]);
    // Each sequential write committed its own version; the compaction then removes the old ones.
    await until('old versions removed', async () => (await table.listVersions()).length <= 3);
    expect(await table.countRows()).toBe(5);
    expect((await table.stats()).fragmentStats.numFragments, 'fragments merged by the compaction').toBeLessThanOrEqual(
      2,
    );
    expect(warnings).toEqual([]);
    await store.close();
    // Nothing of the store runs after close: the folder can go away at once without a late error.
    expect(warnings).toEqual([]);
    table.close();
  });

  it('the background compaction skips a table no commit changed once nothing older is left to remove', async () => {
    const conn = await lancedb.connect(tempDir(), { readConsistencyInterval: 0 });
    const table = await conn.createTable('plain', [{ id: 'a', n: 1 }]);
    const managed = new ManagedTable('plain', table, indexSettings({}), false);
    const optimize = vi.spyOn(table, 'optimize');
    const version = async () => table.version();
    // Nothing kept: the first run can remove every older version, so an unchanged table is then left alone.
    const all = () => new Date(Date.now() + 60_000);
    await managed.compactVersions(all());
    const settled = await version();
    await managed.compactVersions(all());
    expect(optimize).toHaveBeenCalledTimes(1);
    expect(await version()).toBe(settled);
    await table.add([{ id: 'b', n: 2 }]);
    await managed.compactVersions(all());
    expect(optimize).toHaveBeenCalledTimes(2);
    // Kept 10 s: versions younger than that may remain, so the unchanged table is compacted again next time.
    await table.add([{ id: 'c', n: 3 }]);
    await managed.compactVersions(new Date(Date.now() - 10_000));
    await managed.compactVersions(new Date(Date.now() - 10_000));
    expect(optimize).toHaveBeenCalledTimes(4);
    expect(await table.countRows()).toBe(3);
    conn.close();
  });

  it('refuses bad maintenance settings with a clear error, before touching the folder', () => {
    const uri = join(tempDir(), 'never-created');
    for (const maintenance of [
      { background: { everyCommits: 0 } },
      { background: { everyMs: Number.NaN } },
      { background: { keepVersionsMs: -1 } },
      { upkeepDelayMs: -5 },
    ]) {
      let caught: unknown;
      try {
        createLanceStore({ uri, maintenance });
      } catch (error) {
        caught = error;
      }
      expect(MemError.is(caught, 'INVALID_INPUT')).toBe(true);
      expect((caught as MemError).message).toMatch(/^maintenance\.(background\.)?\w+ must be a number/);
    }
    expect(existsSync(uri)).toBe(false);
  });
});
