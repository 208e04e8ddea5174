import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { createHashingEmbedder, createStack, MemError } from '@mem/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLanceStore, type LanceKnowledgeStore } from './index.js';
import { TailRows, tailRow } from './tail-rows.js';

// The write lookups (content hash before a store, keys and ids inside the insert) read the indexed part of the
// chunks table with `fastSearch` and this connection's newer rows from memory; any commit the connection does not
// know of sends them back to the full scan.

const dirs: string[] = [];
const stores: LanceKnowledgeStore[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-tail-'));
  dirs.push(dir);
  return dir;
}

/** A store on `uri` with its own LanceDB connection (a second one is another writer, as another process is). */
function open(uri: string, upkeepDelayMs?: number) {
  const knowledge = createLanceStore({ uri, maintenance: { background: false, upkeepDelayMs } });
  stores.push(knowledge);
  return { knowledge, stack: createStack({ knowledge, embedder: createHashingEmbedder() }) };
}

const alice = { space: 'acme', agentId: 'alice', role: 'worker' } as const;
const row = (id: string, over: Record<string, unknown> = {}) =>
  tailRow({
    space: 's',
    scope: 'agent',
    agent_id: 'a',
    key: `k-${id}`,
    doc_id: id,
    id,
    content_hash: `h-${id}`,
    ...over,
  });

describe('TailRows', () => {
  it('follows only an unbroken chain of known commits', () => {
    const tail = new TailRows();
    expect(tail.snapshot()).toBeNull();
    tail.appended(3, [row('x')]);
    expect(tail.snapshot()).toBeNull(); // no version known yet
    tail.covered(5);
    tail.appended(6, [row('a')]);
    tail.carried(6, 8); // an index rebuilt: rows kept
    tail.appended(9, [row('b'), row('c')]);
    const snap = tail.snapshot()!;
    expect(snap.version).toBe(9);
    expect(snap.rows.slice(0, snap.length).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    // Another writer's commit (10) came first: the append made 11, and the tail no longer knows the table.
    tail.appended(11, [row('d')]);
    expect(tail.snapshot()).toBeNull();
    tail.covered(12);
    tail.carried(13, 14); // not from the tail's version
    expect(tail.snapshot()).toBeNull();
    // A snapshot taken before a reset keeps its rows.
    expect(snap.rows.slice(0, snap.length)).toHaveLength(3);
  });

  it('drops itself past its size limit and keeps strings as stored', () => {
    const tail = new TailRows(3);
    tail.covered(1);
    tail.appended(2, [row('a'), row('b')]);
    tail.appended(3, [row('c'), row('d')]);
    expect(tail.snapshot()).toBeNull();
    expect(tailRow({ key: 'lone \uD800 surrogate', id: 'x', content: 'not kept' })).toEqual({
      key: 'lone \uFFFD surrogate',
      id: 'x',
      space: undefined,
      scope: undefined,
      agent_id: undefined,
      doc_id: undefined,
      content_hash: undefined,
      created_at: undefined,
    });
  });
});

describe('lancedb write lookups', () => {
  it('use the indexed part and the tail, before and after the upkeep folds the tail in', async () => {
    const uri = tempDir();
    const { knowledge, stack } = open(uri, 600_000);
    const fast = vi.spyOn(lancedb.Query.prototype, 'fastSearch');
    const where = vi.spyOn(lancedb.Query.prototype, 'where');
    const first = await stack.knowledge.store(alice, { content: 'Note 0 on the release train.' });
    const ids = [first.id];
    for (let i = 1; i < 12; i++)
      ids.push((await stack.knowledge.store(alice, { content: `Note ${i} on the release train.` })).id);
    // Every content is found again while its row is still in the tail; the table was empty when its indexes were
    // made, so the tail is all of it and no lookup queries LanceDB.
    for (let i = 0; i < 12; i++) {
      const again = await stack.knowledge.store(alice, { content: `Note ${i} on the release train.` });
      expect(again).toMatchObject({ deduplicated: true, id: ids[i] });
    }
    await expect(stack.knowledge.store(alice, { content: 'Another note.', key: first.key })).rejects.toMatchObject({
      code: 'KEY_TAKEN',
    });
    expect(fast).not.toHaveBeenCalled();
    expect(where.mock.calls.filter(([w]) => /content_hash IN|\(key IN/.test(String(w)))).toEqual([]);
    // … and once the upkeep compacted the table and refreshed its indexes (the tail is empty then).
    await knowledge.indexState();
    const conn = await lancedb.connect(uri, { readConsistencyInterval: 0 });
    const table = await conn.openTable('knowledge_chunks');
    for (const column of ['content_hash', 'key', 'doc_id', 'id', 'space', 'scope', 'agent_id']) {
      expect((await table.indexStats(`${column}_idx`))?.numUnindexedRows).toBe(0);
    }
    conn.close();
    fast.mockClear();
    for (let i = 0; i < 12; i++) {
      const again = await stack.knowledge.store(alice, { content: `Note ${i} on the release train.` });
      expect(again).toMatchObject({ deduplicated: true, id: ids[i] });
    }
    expect(fast).toHaveBeenCalled();
    await expect(stack.knowledge.store(alice, { content: 'Another note.', key: first.key })).rejects.toMatchObject({
      code: 'KEY_TAKEN',
    });
  });

  it("see another connection's rows that their indexes have not seen", async () => {
    const uri = tempDir();
    // No upkeep meanwhile: it would fold b's rows into the indexes.
    const a = open(uri, 600_000);
    const b = open(uri, 600_000);
    for (let i = 0; i < 6; i++) await a.stack.knowledge.store(alice, { content: `A's note ${i}.` });
    await a.knowledge.indexState(); // the indexes now cover these rows (an index that covers none is not used)
    for (let i = 6; i < 8; i++) await a.stack.knowledge.store(alice, { content: `A's note ${i}.` });
    // b writes after a's last write: a's tail does not know these rows, and no index has them yet.
    const theirs = await b.stack.knowledge.store(alice, { content: 'Written by the other connection.' });
    const keyed = await b.stack.knowledge.store(alice, { content: 'Keyed by the other one.', key: '/shared/key' });
    const again = await a.stack.knowledge.store(alice, { content: 'Written by the other connection.' });
    expect(again).toMatchObject({ deduplicated: true, id: theirs.id });
    const clash = await a.stack.knowledge
      .store(alice, { content: 'Same key, other content.', key: '/shared/key' })
      .catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(MemError);
    expect(clash).toMatchObject({ code: 'KEY_TAKEN' });
    expect(JSON.stringify((clash as MemError).message)).toContain(keyed.id);
  });

  it("see another connection's rows while this one's tail is the whole table", async () => {
    const uri = tempDir();
    const a = open(uri, 600_000);
    const b = open(uri, 600_000);
    await a.stack.knowledge.store(alice, { content: "A's first note." });
    const theirs = await b.stack.knowledge.store(alice, { content: "B's note.", key: '/b/note' });
    expect(await a.stack.knowledge.store(alice, { content: "B's note." })).toMatchObject({
      deduplicated: true,
      id: theirs.id,
    });
    await expect(a.stack.knowledge.store(alice, { content: 'Other.', key: '/b/note' })).rejects.toMatchObject({
      code: 'KEY_TAKEN',
    });
  });

  it('see a forget and a key move of this connection at once', async () => {
    const uri = tempDir();
    const { stack } = open(uri);
    const gone = await stack.knowledge.store(alice, { content: 'To be forgotten.', key: '/notes/gone' });
    const moved = await stack.knowledge.store(alice, { content: 'To be moved.', key: '/notes/old' });
    await stack.knowledge.delete(alice, { id: gone.id });
    // The forgotten memory's key and content are free again.
    const back = await stack.knowledge.store(alice, { content: 'To be forgotten.', key: '/notes/gone' });
    expect(back.deduplicated).toBe(false);
    expect(back.id).not.toBe(gone.id);
    await stack.knowledge.edit(alice, { id: moved.id, intent: 'rename', newKey: '/notes/new' });
    const reused = await stack.knowledge.store(alice, { content: 'Takes the old key.', key: '/notes/old' });
    expect(reused.deduplicated).toBe(false);
    await expect(
      stack.knowledge.store(alice, { content: 'Wants the new key.', key: '/notes/new' }),
    ).rejects.toMatchObject({
      code: 'KEY_TAKEN',
    });
  });
});
