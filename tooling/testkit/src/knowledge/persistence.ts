import { createHashingEmbedder, createStack, MemError } from '@mem/core';
import type { MemoryRecord, SearchFilter } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { alice, expectCode, type KnowledgeSuite } from './fixture.js';

/** A closed store, migrations held back, a second instance on the same data. */
export function persistenceTests(t: KnowledgeSuite): void {
  const { setup } = t;
  it.skipIf(t.options.unavailableWhenClosed === false)(
    'a closed store answers STORE_UNAVAILABLE, naming its adapter, on every method and changes nothing',
    async () => {
      const { knowledge: memory } = await setup();
      const fixture = t.fixture();
      const before = await memory.store(alice, { content: 'Stored before the store was closed.', key: '/kb/before' });
      const store = fixture.store;
      const [stored] = await store.getDocument('acme', before.id);
      const chunk: MemoryRecord = { ...stored!, id: 'closed-1', docId: 'closed-1', key: '/kb/after-close' };
      await store.close();
      const now = '2026-03-01T12:00:00.000Z';
      const filter: SearchFilter = { space: 'acme', viewerAgentId: 'alice', now };
      const calls: [string, () => Promise<unknown>][] = [
        ['insertDocument', () => store.insertDocument([chunk])],
        ['getChunk', () => store.getChunk('acme', 'x')],
        ['getDocument', () => store.getDocument('acme', 'x')],
        ['searchCandidates', () => store.searchCandidates({ filter, terms: ['stored'], limit: 3 })],
        [
          'searchCandidates (vector)',
          () => store.searchCandidates({ filter, terms: [], vector: new Float32Array(64).fill(1), limit: 3 }),
        ],
        ['stats', () => store.stats('acme')],
        ['getEmbeddingInfo', () => store.getEmbeddingInfo()],
        ['deleteExpired', () => store.deleteExpired(now)],
      ];
      for (const [method, call] of calls) {
        const error = await expectCode(call(), 'STORE_UNAVAILABLE');
        expect(error.message, method).toMatch(new RegExp(`^${store.name}: `));
        expect(error.message, method).toMatch(/closed/);
      }
      if (fixture.openAnother) {
        const reopened = await fixture.openAnother();
        t.extra.push(reopened);
        expect((await reopened.stats('acme')).documents).toBe(1);
        expect(await reopened.getChunk('acme', 'closed-1')).toBeNull();
      }
    },
  );

  it('with autoMigrate off, refuses work with STORE_UNAVAILABLE naming migrate() until migrate() runs', async () => {
    await setup();
    const fixture = t.fixture();
    if (!fixture.openUnmigrated) return; // no schema migrations in this store
    const store = await fixture.openUnmigrated();
    t.extra.push(store);
    for (const [method, call] of [
      ['stats', () => store.stats('acme')],
      ['getChunk', () => store.getChunk('acme', 'x')],
    ] as const) {
      const error = await expectCode(call(), 'STORE_UNAVAILABLE');
      expect(error.message, method).toMatch(new RegExp(`^${store.name}: .*migrate\\(\\)`));
    }
    expect((await store.migrate()).applied.length).toBeGreaterThan(0);
    expect((await store.migrate()).applied).toEqual([]);
    expect((await store.stats('acme')).documents).toBe(0);
    expect(await store.getChunk('acme', 'x')).toBeNull();
  });

  it('persists across instances and loses nothing when two instances write at once', async () => {
    const { knowledge: memory } = await setup();
    const fixture = t.fixture();
    if (!fixture.openAnother) return;
    const second = await fixture.openAnother();
    t.extra.push(second);
    const other = createStack({
      knowledge: second,
      embedder: createHashingEmbedder({ dimension: 64 }),
      clock: t.clock(),
    });
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      writes.push(memory.store(alice, { content: `first writer memory ${i}`, key: `/race/a-${i}` }));
      writes.push(other.knowledge.store(alice, { content: `second writer memory ${i}`, key: `/race/b-${i}` }));
    }
    // Both instances race for the same key: exactly one wins, the other gets KEY_TAKEN.
    const contested = await Promise.allSettled([
      memory.store(alice, { content: 'contested one', key: '/race/contested' }),
      other.knowledge.store(alice, { content: 'contested two', key: '/race/contested' }),
    ]);
    await Promise.all(writes);
    expect(contested.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = contested.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(MemError.is(rejected.reason, 'KEY_TAKEN')).toBe(true);
    expect((await memory.stats(alice)).documents).toBe(201);
    expect((await other.knowledge.stats(alice)).documents).toBe(201);
    // Concurrent ratings from both instances, by 20 raters: each counted once.
    const target = await memory.store(alice, { content: 'rated from two processes', scope: 'swarm' });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? memory : other.knowledge).rate(
          { space: 'acme', agentId: `rater-${i}`, role: 'worker' },
          { id: target.id, useful: true, taskId: `task-${i}` },
        ),
      ),
    );
    expect((await other.knowledge.get(alice, { id: target.id })).alpha).toBe(21);
  });
}
