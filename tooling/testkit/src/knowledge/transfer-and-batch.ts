import { MemError } from '@mem/core';
import type { SearchFilter } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { expectPlainTerms, PLAIN_TERM_TEXTS } from '../query-syntax.js';
import { keywordHits } from '../search-arms.js';
import { alice, bob, expectCode, type KnowledgeSuite, lead, longDocument } from './fixture.js';

/** Export, batch writes and the plain reading of keyword terms. */
export function transferAndBatchTests(t: KnowledgeSuite): void {
  const { setup } = t;
  it('exports with original timestamps, in order', async () => {
    const { knowledge: memory } = await setup();
    await memory.import(alice, { content: 'Old memory.', createdAt: '2025-01-02T03:04:05.000Z', tags: ['old'] });
    await memory.store(alice, { content: longDocument(3), name: 'Doc' });
    await memory.store(bob, { content: 'Bob private.' });
    const lines = [];
    for await (const r of memory.export(alice)) lines.push(r);
    expect(lines.map((l) => l.name)).toEqual(['Old memory.', 'Doc']);
    expect(lines[0]).toMatchObject({ createdAt: '2025-01-02T03:04:05.000Z', tags: ['old'], agentId: 'alice' });
    expect(lines[1]?.content).toBe(longDocument(3));
    const all = [];
    for await (const r of memory.export(lead)) all.push(r);
    expect(all).toHaveLength(3);
  });

  it('stores a batch with per-item results, and a batch write is all or nothing', async () => {
    const { knowledge: memory } = await setup();
    const held = await memory.store(alice, { content: 'Held key before the batch.', key: '/batch/held' });
    const stored = await memory.store(alice, { content: 'Stored before the batch.' });
    const inputs: unknown[] = [];
    for (let i = 0; i < 300; i++) {
      inputs.push({ content: `Batch memory number ${i} about service ${i % 17}.`, tags: [`t${i % 5}`] });
    }
    inputs[10] = { content: 'bad key item', key: 'no-leading-slash' };
    inputs[50] = { content: 'aws key AKIAIOSFODNN7EXAMPLE in the batch' };
    inputs[90] = { content: 'Batch memory number 3 about service 3.', tags: ['t3'] };
    inputs[120] = { content: 'Wants a taken key.', key: '/batch/held' };
    inputs[150] = { content: 'Stored before the batch.' };
    inputs[200] = { content: 'First claim of a batch key.', key: '/batch/twice' };
    inputs[201] = { content: 'Second claim of a batch key.', key: '/batch/twice' };
    inputs[250] = { content: 5 };
    const results = await memory.storeMany(alice, inputs);
    expect(results).toHaveLength(300);
    const code = (i: number) => {
      const r = results[i];
      return MemError.is(r) ? r.code : undefined;
    };
    expect(code(10)).toBe('INVALID_KEY');
    expect(code(50)).toBe('SECRET_DETECTED');
    expect(code(120)).toBe('KEY_TAKEN');
    expect(code(201)).toBe('KEY_TAKEN');
    expect(code(250)).toBe('INVALID_INPUT');
    const ok = (i: number) => {
      const r = results[i];
      if (r === undefined || MemError.is(r)) throw new Error(`item ${i} failed: ${String(r)}`);
      return r;
    };
    expect(ok(90)).toMatchObject({ id: ok(3).id, deduplicated: true });
    expect(ok(150)).toMatchObject({ id: stored.id, deduplicated: true });
    expect(ok(200).key).toBe('/batch/twice');
    const failed = [10, 50, 120, 201, 250];
    const fresh = results.filter((r) => !MemError.is(r) && !r.deduplicated);
    expect(results.filter((r) => MemError.is(r))).toHaveLength(failed.length);
    expect(fresh).toHaveLength(300 - failed.length - 2);
    expect(new Set(fresh.map((r) => (r as { id: string }).id)).size).toBe(fresh.length);
    expect((await memory.stats(alice)).documents).toBe(2 + fresh.length);
    expect((await memory.get(alice, { id: ok(7).id })).content).toBe('Batch memory number 7 about service 7.');
    expect((await memory.get(alice, { key: '/batch/held' })).id).toBe(held.id);
    expect((await memory.get(alice, { key: '/batch/twice' })).content).toBe('First claim of a batch key.');
    expect((await memory.search(alice, { query: 'batch memory number 42' })).map((r) => r.docId)).toContain(ok(42).id);

    // The port: a batch where one document wants a taken key writes nothing.
    const store = t.fixture().store;
    const template = (await store.getDocument(alice.space, ok(0).id))[0]!;
    const doc = (id: string, key: string, content: string) => [
      { ...template, id, docId: id, key, content, contentHash: `hash-${id}`, tags: [] },
    ];
    const before = await memory.stats(alice);
    await expectCode(
      store.insertDocuments([
        doc('batchdoc000000000000000001', '/batch/free-1', 'free one'),
        doc('batchdoc000000000000000002', '/batch/held', 'taken'),
        doc('batchdoc000000000000000003', '/batch/free-3', 'free three'),
      ]),
      'KEY_TAKEN',
    );
    expect(await memory.stats(alice)).toEqual(before);
    expect(await store.getChunk(alice.space, 'batchdoc000000000000000001')).toBeNull();
    expect(await store.findDocIdByKey(alice.space, 'agent', alice.agentId, '/batch/free-3')).toBeNull();
    await store.insertDocuments([
      doc('batchdoc000000000000000001', '/batch/free-1', 'free one'),
      doc('batchdoc000000000000000003', '/batch/free-3', 'free three'),
    ]);
    expect((await memory.stats(alice)).documents).toBe(before.documents + 2);
    await expectCode(
      store.insertDocuments([
        doc('batchdoc000000000000000004', '/batch/free-4', 'x'),
        doc('batchdoc000000000000000001', '/batch/free-5', 'y'),
      ]),
      'CONFLICT',
    );
    expect(await store.getChunk(alice.space, 'batchdoc000000000000000004')).toBeNull();
  });

  it('takes keyword terms as plain words: no query syntax of any engine widens, breaks or escapes a search', async () => {
    const { knowledge: memory } = await setup();
    const stored = async (content: string) => (await memory.store(alice, { content })).id;
    const ids = {
      deploy: await stored(PLAIN_TERM_TEXTS.deploy),
      lunch: await stored(PLAIN_TERM_TEXTS.lunch),
      ops: await stored(PLAIN_TERM_TEXTS.ops),
    };
    const store = t.fixture().store;
    const filter: SearchFilter = { space: 'acme', viewerAgentId: 'alice', now: '2026-03-01T12:00:00.000Z' };
    await expectPlainTerms(
      async (terms) => (await keywordHits(store, { filter, terms, limit: 10 })).map((h) => h.id),
      ids,
    );
    expect((await store.stats('acme')).documents).toBe(3);
  });
}
