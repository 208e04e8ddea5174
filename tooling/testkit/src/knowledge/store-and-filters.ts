import { createHashingEmbedder } from '@mem/core';
import type { SearchFilter } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { keywordHits, vectorHits } from '../search-arms.js';
import { alice, bob, expectCode, type KnowledgeSuite, lead, other } from './fixture.js';

/** Writes and reads, the walls between spaces and owners, the search filters, expiry by source tier. */
export function storeAndFilterTests(t: KnowledgeSuite): void {
  const { setup } = t;
  it('round-trips a memory: store, get, search', async () => {
    const { knowledge: memory } = await setup();
    const stored = await memory.store(alice, {
      content: 'The billing service retries failed invoices three times before paging.',
      name: 'Billing retries',
      tags: ['billing', 'ops'],
    });
    expect(stored.chunkCount).toBe(1);
    expect(stored.key).toBe(`/agent/manual/${stored.id}`);
    const doc = await memory.get(alice, { id: stored.id });
    expect(doc.content).toBe('The billing service retries failed invoices three times before paging.');
    expect(doc.name).toBe('Billing retries');
    expect(doc.tags).toEqual(['billing', 'ops']);
    expect(doc.scope).toBe('agent');
    expect(doc.source).toBe('manual');
    expect(doc.expiresAt).toBeNull();
    expect(doc.accessCount).toBe(1);
    const again = await memory.get(alice, { key: stored.key });
    expect(again.accessCount).toBe(2);
    const results = await memory.search(alice, { query: 'invoice retries billing' });
    expect(results[0]?.docId).toBe(stored.id);
    expect(results[0]?.similarity).not.toBeNull();
    expect(results[0]?.keywordRank).toBe(1);
    expect(results[0]?.relevance).toBeGreaterThan(0.9);
    expect(results[0]?.score).toBeGreaterThan(0);
  });

  it('never crosses spaces', async () => {
    const { knowledge: memory } = await setup();
    const a = await memory.store(alice, {
      content: 'Globex must never see the acme launch plan for the rocket.',
      scope: 'swarm',
    });
    expect(await memory.search(other, { query: 'acme launch plan rocket' })).toEqual([]);
    await expectCode(memory.get(other, { id: a.id }), 'NOT_FOUND');
    await expectCode(memory.delete(other, { id: a.id }), 'NOT_FOUND');
    await expectCode(memory.edit(other, { id: a.id, intent: 'x', content: 'changed' }), 'NOT_FOUND');
    // The same content in another space is a separate memory.
    const b = await memory.store(other, {
      content: 'Globex must never see the acme launch plan for the rocket.',
      scope: 'swarm',
    });
    expect(b.id).not.toBe(a.id);
    expect(b.deduplicated).toBe(false);
    expect((await memory.search(alice, { query: 'launch plan rocket' })).map((r) => r.docId)).toEqual([a.id]);
    expect((await memory.stats(other)).documents).toBe(1);
  });

  it('agent scope is private to its owner; swarm scope is shared', async () => {
    const { knowledge: memory } = await setup();
    const priv = await memory.store(alice, {
      content: 'Alice prefers the staging cluster in eu-west for experiments.',
    });
    const shared = await memory.store(alice, {
      content: 'The staging cluster in eu-west is rebuilt every Sunday.',
      scope: 'swarm',
    });
    const bobSees = (await memory.search(bob, { query: 'staging cluster eu-west' })).map((r) => r.docId);
    expect(bobSees).toEqual([shared.id]);
    const aliceSees = (await memory.search(alice, { query: 'staging cluster eu-west' })).map((r) => r.docId).sort();
    expect(aliceSees).toEqual([priv.id, shared.id].sort());
    await expectCode(memory.get(bob, { id: priv.id }), 'NOT_FOUND');
    expect((await memory.get(bob, { id: shared.id })).content).toContain('rebuilt every Sunday');
    expect((await memory.search(alice, { query: 'staging cluster', scope: 'swarm' })).map((r) => r.docId)).toEqual([
      shared.id,
    ]);
    // bob cannot change alice's swarm memory; a lead can.
    await expectCode(memory.edit(bob, { id: shared.id, intent: 'x', content: 'nope' }), 'FORBIDDEN');
    await memory.edit(lead, {
      id: shared.id,
      intent: 'correct the day',
      content: 'The staging cluster in eu-west is rebuilt every Saturday.',
    });
    expect((await memory.get(alice, { id: shared.id })).content).toContain('Saturday');
  });

  it('applies keyPrefix, tags, source and scope inside each arm before the top-k cut', async () => {
    const { knowledge: memory, knowledgeStore: knowledge } = await setup();
    // 40 strong matches outside the folder, 3 weaker ones inside it.
    for (let i = 0; i < 40; i++) {
      await memory.store(alice, {
        content: `Deploy deploy deploy: rollout checklist number ${i} for the deploy train.`,
        key: `/projects/other/item-${i}`,
        tags: ['noise'],
      });
    }
    const inside: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await memory.store(alice, {
        content: `A note about the deploy window, entry ${i}.`,
        key: `/kb/facts/release/entry-${i}`,
        tags: ['release', `n${i}`],
        source: 'task_completion',
      });
      inside.push(r.id);
    }
    await memory.store(alice, { content: 'A deploy note in a sibling folder.', key: '/kb/facts-archive/x' });
    const filter: SearchFilter = {
      space: 'acme',
      viewerAgentId: 'alice',
      now: t.clock().now().toISOString(),
      keyPrefix: '/kb/facts/',
    };
    const kw = await keywordHits(knowledge, { filter, terms: ['deploy'], limit: 3 });
    expect(kw.map((h) => h.id).sort()).toEqual([...inside].sort());
    const [qv] = await createHashingEmbedder({ dimension: 64 }).embed(['deploy deploy deploy rollout checklist']);
    const vec = await vectorHits(knowledge, { filter, vector: qv!, limit: 3 });
    expect(vec.map((h) => h.id).sort()).toEqual([...inside].sort());
    const viaService = await memory.search(alice, {
      query: 'deploy rollout checklist',
      keyPrefix: '/kb/facts/',
      limit: 3,
    });
    expect(viaService.map((r) => r.docId).sort()).toEqual([...inside].sort());
    // Tags: every tag listed must be present, exact match.
    const tagged = await memory.search(alice, { query: 'deploy', tags: ['release', 'n1'] });
    expect(tagged.map((r) => r.docId)).toEqual([inside[1]]);
    expect(await memory.search(alice, { query: 'deploy', tags: ['releas'] })).toEqual([]);
    // Source filter.
    const bySource = await memory.search(alice, { query: 'deploy', source: 'task_completion', limit: 50 });
    expect(bySource.map((r) => r.docId).sort()).toEqual([...inside].sort());
    // Prefix is literal and case-sensitive: no wildcard meaning for % or _.
    expect(await memory.search(alice, { query: 'deploy', keyPrefix: '/kb/fact%' })).toEqual([]);
    expect(await memory.search(alice, { query: 'deploy', keyPrefix: '/KB/' })).toEqual([]);
    expect(await memory.search(alice, { query: 'deploy', keyPrefix: '/projects/other/item_1' })).toEqual([]);
  });

  it('expires memories by source tier; /longterm never expires; gc deletes the expired', async () => {
    const { knowledge: memory } = await setup();
    const task = await memory.store(alice, {
      content: 'Task 17 finished: the cache warmer now runs hourly.',
      source: 'task_completion',
    });
    const kept = await memory.store(alice, {
      content: 'Task 18 finished: the cache warmer keeps 2 GB.',
      source: 'task_completion',
      key: '/longterm/facts/cache/warmer-size',
    });
    const manual = await memory.store(alice, { content: 'The cache warmer is owned by the platform team.' });
    expect((await memory.get(alice, { id: task.id })).expiresAt).toBe('2026-03-08T12:00:00.000Z');
    expect((await memory.get(alice, { id: kept.id })).expiresAt).toBeNull();
    t.clock().advanceDays(7.5);
    const ids = (await memory.search(alice, { query: 'cache warmer', limit: 50 })).map((r) => r.docId).sort();
    expect(ids).toEqual([kept.id, manual.id].sort());
    await expectCode(memory.get(alice, { id: task.id }), 'NOT_FOUND');
    const gc = await memory.gc(alice);
    expect(gc.deletedChunks).toBe(1);
    // An expired memory awaiting gc never blocks its content or its key.
    const keyed = await memory.store(alice, {
      content: 'Keyed and short-lived.',
      key: '/notes/short',
      source: 'session_summary',
    });
    t.clock().advanceDays(4);
    const fresh = await memory.store(alice, {
      content: 'Keyed and short-lived.',
      key: '/notes/short',
      source: 'session_summary',
    });
    expect(fresh.deduplicated).toBe(false);
    expect(fresh.id).not.toBe(keyed.id);
    expect((await memory.get(alice, { key: '/notes/short' })).id).toBe(fresh.id);
    await memory.delete(alice, { id: fresh.id });
    expect((await memory.gc(alice)).deletedChunks).toBe(0);
    expect((await memory.stats(alice)).documents).toBe(2);
  });
}
