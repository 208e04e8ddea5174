import { createHashingEmbedder, createStack, MemError, type Principal, type Stack } from '@mem/core';
import { contentHash, type KnowledgeStore, ManualClock, type MemoryRecord, type SearchFilter } from '@mem/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { recordPortCalls } from './port-calls.js';
import { expectMemError } from './port-fixture.js';
import { expectPlainTerms, PLAIN_TERM_TEXTS } from './query-syntax.js';

/** What a factory gives the suite: a fresh, empty store and how to clean it up. */
export interface KnowledgeStoreFixture {
  store: KnowledgeStore;
  cleanup: () => Promise<void>;
  /** Open another, independent instance on the same database (for persistence and concurrency tests). */
  openAnother?: () => Promise<KnowledgeStore>;
  /**
   * Open a store with `autoMigrate: false` on a database nothing has migrated yet (a new file or schema); a store
   * without schema migrations leaves it out. The suite closes it; `cleanup` removes its data.
   */
  openUnmigrated?: () => Promise<KnowledgeStore & { migrate(): Promise<{ applied: readonly unknown[] }> }>;
}

export type KnowledgeStoreFactory = () => Promise<KnowledgeStoreFixture>;

const lead: Principal = { space: 'acme', agentId: 'lead-1', role: 'lead' };
const alice: Principal = { space: 'acme', agentId: 'alice', role: 'worker' };
const bob: Principal = { space: 'acme', agentId: 'bob', role: 'worker' };
const other: Principal = { space: 'globex', agentId: 'alice', role: 'worker' };

const expectCode = expectMemError;

function longDocument(sections: number, paragraphsPer = 6): string {
  const parts: string[] = ['# Operations handbook\n\nThis handbook collects how the platform team runs production.\n'];
  for (let s = 0; s < sections; s++) {
    parts.push(`\n## Section ${s}: service ${s}\n\n`);
    for (let p = 0; p < paragraphsPer; p++) {
      parts.push(
        `Paragraph ${p} of section ${s}. The service number ${s} restarts nightly, logs to the central collector, and pages the on-call engineer when latency passes the budget. Owners review dashboards weekly.\n\n`,
      );
    }
  }
  return parts.join('');
}

/**
 * The conformance suite of the KnowledgeStore port. Every adapter runs it through a fresh store from `factory`;
 * behaviour is checked through the knowledge service of @mem/core (which is how users reach a store) and, where a
 * rule belongs to the port itself (filters before the cut), through the port directly.
 */
export function describeKnowledgeStore(
  name: string,
  factory: KnowledgeStoreFactory,
  options: {
    timeoutMs?: number;
    /**
     * Whether a closed store refuses every call with `STORE_UNAVAILABLE` (default true: every store with a database
     * behind it). A store in process memory has nothing to lose and keeps working; it passes false.
     */
    unavailableWhenClosed?: boolean;
  } = {},
): void {
  describe(`KnowledgeStore conformance: ${name}`, { timeout: options.timeoutMs ?? 120_000 }, () => {
    let fixture: KnowledgeStoreFixture | undefined;
    const extra: KnowledgeStore[] = [];
    let clock: ManualClock;

    async function setup(embedderDim = 64): Promise<Stack> {
      fixture = await factory();
      clock = new ManualClock('2026-03-01T12:00:00.000Z');
      return createStack({
        knowledge: fixture.store,
        embedder: createHashingEmbedder({ dimension: embedderDim }),
        clock,
      });
    }

    afterEach(async () => {
      for (const s of extra.splice(0)) await s.close();
      if (fixture) {
        await fixture.cleanup();
        fixture = undefined;
      }
    });

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
        now: clock.now().toISOString(),
        keyPrefix: '/kb/facts/',
      };
      const kw = await knowledge.keywordSearch({ filter, terms: ['deploy'], limit: 3 });
      expect(kw.map((h) => h.id).sort()).toEqual([...inside].sort());
      const [qv] = await createHashingEmbedder({ dimension: 64 }).embed(['deploy deploy deploy rollout checklist']);
      const vec = await knowledge.vectorSearch({ filter, vector: qv!, limit: 3 });
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
      clock.advanceDays(7.5);
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
      clock.advanceDays(4);
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

    it('moves every chunk of a document in one step, keeping id, ratings, access counts and author', async () => {
      const { knowledge: memory, knowledgeStore: knowledge } = await setup();
      const content = longDocument(6);
      const doc = await memory.store(alice, { content, key: '/runbooks/ops', source: 'file_index' });
      expect(doc.chunkCount).toBeGreaterThan(2);
      await memory.get(alice, { id: doc.id });
      await knowledge.addRating({
        docId: doc.id,
        space: 'acme',
        taskId: 't1',
        useful: true,
        note: null,
        agentId: 'bob',
        at: new Date().toISOString(),
        counted: true,
      });
      const before = await knowledge.getDocument('acme', doc.id);
      expect(before.every((c) => c.expiresAt !== null)).toBe(true);
      const moved = await memory.edit(alice, {
        id: doc.id,
        intent: 'promote to long-term facts',
        newKey: '/longterm/facts/ops/handbook',
      });
      expect(moved.action).toBe('moved');
      const after = await knowledge.getDocument('acme', doc.id);
      expect(after.map((c) => c.id)).toEqual(before.map((c) => c.id));
      expect(after.every((c) => c.key === '/longterm/facts/ops/handbook')).toBe(true);
      expect(after.every((c) => c.expiresAt === null)).toBe(true);
      expect(after.every((c) => c.alpha === 2 && c.accessCount === 1 && c.agentId === 'alice')).toBe(true);
      await expectCode(memory.get(alice, { key: '/runbooks/ops' }), 'NOT_FOUND');
      const got = await memory.get(alice, { key: '/longterm/facts/ops/handbook' });
      expect(got.content).toBe(content);
      // Moving out of /longterm does not bring an expiry back.
      await memory.edit(alice, { id: doc.id, intent: 'file it back', newKey: '/runbooks/ops-v2' });
      expect((await knowledge.getDocument('acme', doc.id)).every((c) => c.expiresAt === null)).toBe(true);
      const versions = await memory.versions(alice, { id: doc.id });
      expect(versions.map((v) => v.oldKey)).toEqual(['/runbooks/ops', '/longterm/facts/ops/handbook']);
    });

    it('versions every edit with its intent; exact edits need exactly one occurrence', async () => {
      const { knowledge: memory } = await setup();
      const m = await memory.store(alice, {
        content: 'Standup is at 9:30 in room Blue. Room Blue has a projector.',
        name: 'Standup',
      });
      await memory.edit(alice, { id: m.id, intent: 'standup moved', mode: 'exact', oldText: '9:30', newText: '10:00' });
      const e0 = await expectCode(
        memory.edit(alice, { id: m.id, intent: 'x', oldText: 'Room Red', newText: 'Room Green' }),
        'INVALID_INPUT',
      );
      expect(e0.message).toMatch(/not found/);
      const e2 = await expectCode(
        memory.edit(alice, { id: m.id, intent: 'x', oldText: 'Blue', newText: 'Green' }),
        'INVALID_INPUT',
      );
      expect(e2.message).toMatch(/occurs 2 times/);
      await memory.edit(alice, {
        id: m.id,
        intent: 'rewrite',
        mode: 'replace',
        content: 'Standup is at 10:00 in room Green.',
      });
      const doc = await memory.get(alice, { id: m.id });
      expect(doc.content).toBe('Standup is at 10:00 in room Green.');
      expect(doc.version).toBe(3);
      const versions = await memory.versions(alice, { id: m.id });
      expect(versions.map((v) => [v.version, v.intent, v.oldContent])).toEqual([
        [1, 'standup moved', 'Standup is at 9:30 in room Blue. Room Blue has a projector.'],
        [2, 'rewrite', 'Standup is at 10:00 in room Blue. Room Blue has a projector.'],
      ]);
      expect(versions.every((v) => v.agentId === 'alice')).toBe(true);
      const found = await memory.search(alice, { query: 'standup room green' });
      expect(found[0]?.docId).toBe(m.id);
      // The old passage is gone from the keyword arm (the vector arm always offers nearest neighbours).
      expect((await memory.search(alice, { query: 'projector' })).every((r) => r.keywordRank === null)).toBe(true);
    });

    it('counts a rating once per memory per task, and ratings move a memory up and down', async () => {
      const { knowledge: memory } = await setup();
      const a = await memory.store(alice, {
        content: 'Use the blue-green deploy script for the api service.',
        scope: 'swarm',
      });
      const b = await memory.store(alice, {
        content: 'Use the canary deploy script for the api service.',
        scope: 'swarm',
      });
      const r1 = await memory.rate(bob, { id: a.id, useful: true, taskId: 'task-1', note: 'worked' });
      expect(r1).toMatchObject({ alpha: 2, counted: true, replaced: 0 });
      await expectCode(memory.rate(bob, { id: a.id, useful: true, taskId: 'task-1' }), 'ALREADY_RATED');
      await memory.rate(lead, { id: a.id, useful: true, taskId: 'task-2' });
      await memory.rate(bob, { id: b.id, useful: false, taskId: 'task-1' });
      await memory.rate(lead, { id: b.id, useful: false, taskId: 'task-2' });
      const results = await memory.search(alice, { query: 'deploy script api service' });
      expect(results.map((r) => r.docId)).toEqual([a.id, b.id]);
      expect(results[0]!.score / results[1]!.score).toBeGreaterThan(2);
      const doc = await memory.get(alice, { id: a.id });
      expect([doc.alpha, doc.beta]).toEqual([3, 1]);
    });

    it('counts one vote per (memory, rater), the latest, and never the author on its own memory', async () => {
      const { knowledge: memory } = await setup();
      const learning = await memory.injectLearning(lead, {
        agentId: 'bob',
        learning: 'Run the schema migrations before every deploy of the api service.',
        category: 'best-practice',
      });
      const own = await memory.store(alice, {
        content: 'Deploy the api service straight away, migrations can wait.',
        scope: 'swarm',
      });
      // The attack of issue 15: 40 "not useful" on the lead's learning, each in a new task, and 40 "useful" by the
      // author on its own memory.
      let last: Awaited<ReturnType<typeof memory.rate>> | undefined;
      for (let i = 0; i < 40; i++) {
        last = await memory.rate(alice, { id: learning.id, useful: false, taskId: `stuff-${i}` });
        await memory.rate(alice, { id: own.id, useful: true, taskId: `stuff-${i}` });
      }
      expect(last).toMatchObject({ counted: true, replaced: 1, alpha: 1, beta: 2 });
      const learned = await memory.get(bob, { id: learning.id });
      expect([learned.alpha, learned.beta]).toEqual([1, 2]);
      const mine = await memory.get(alice, { id: own.id });
      expect([mine.alpha, mine.beta]).toEqual([1, 1]);
      const authorVote = await memory.rate(alice, { id: own.id, useful: true, taskId: 'one-more' });
      expect(authorVote.counted).toBe(false);
      expect(authorVote.note).toMatch(/not counted/);
      // The lead injected the learning: its votes on it are an author's too; bob (the owner) counts as a reader.
      expect((await memory.rate(lead, { id: learning.id, useful: true, taskId: 'lead-1' })).counted).toBe(false);
      // The latest vote replaces the earlier one: alice changes her mind, bob adds his.
      const changed = await memory.rate(alice, { id: learning.id, useful: true, taskId: 'changed' });
      expect(changed).toMatchObject({ counted: true, replaced: 1, alpha: 2, beta: 1 });
      const bobVote = await memory.rate(bob, { id: learning.id, useful: true, taskId: 'bob-1' });
      expect(bobVote).toMatchObject({ counted: true, replaced: 0, alpha: 3, beta: 1 });
      const hits = await memory.search(bob, { query: 'deploy the api service migrations' });
      expect(hits[0]?.docId).toBe(learning.id);
    });

    it('keeps one copy of the same content per owner and scope', async () => {
      const { knowledge: memory } = await setup();
      const a = await memory.store(alice, { content: 'Redis runs on port 6380 in staging.' });
      const b = await memory.store(alice, { content: 'Redis runs on port 6380 in staging.', tags: ['x'] });
      expect(b.id).toBe(a.id);
      expect(b.deduplicated).toBe(true);
      const c = await memory.store(alice, { content: 'Redis runs on port 6380 in staging.', scope: 'swarm' });
      expect(c.id).not.toBe(a.id);
      const d = await memory.store(bob, { content: 'Redis runs on port 6380 in staging.' });
      expect(d.id).not.toBe(a.id);
      expect((await memory.stats(alice)).documents).toBe(3);
      // A batch finds the stored copies as single stores do (both ask findDocIdsByHashes).
      const batch = await memory.storeMany(alice, [
        { content: 'Redis runs on port 6380 in staging.' },
        { content: 'Redis runs on port 6380 in staging.', scope: 'swarm' },
        { content: 'Postgres runs on port 5433 in staging.' },
        { content: 'Postgres runs on port 5433 in staging.' },
      ]);
      expect(batch.map((r) => (MemError.is(r) ? r.code : [r.id, r.deduplicated]))).toEqual([
        [a.id, true],
        [c.id, true],
        [expect.any(String), false],
        [(batch[2] as { id: string }).id, true],
      ]);
      const store = fixture!.store;
      const lookups = [
        {
          scope: 'agent' as const,
          agentId: alice.agentId,
          contentHash: contentHash('Redis runs on port 6380 in staging.'),
        },
        {
          scope: 'swarm' as const,
          agentId: alice.agentId,
          contentHash: contentHash('Redis runs on port 6380 in staging.'),
        },
        {
          scope: 'agent' as const,
          agentId: bob.agentId,
          contentHash: contentHash('Redis runs on port 6380 in staging.'),
        },
        { scope: 'agent' as const, agentId: alice.agentId, contentHash: contentHash('never stored') },
        {
          scope: 'agent' as const,
          agentId: alice.agentId,
          contentHash: contentHash('Redis runs on port 6380 in staging.'),
        },
      ];
      // Answers in the order asked, a repeated lookup answered again, an unknown hash null.
      expect(await store.findDocIdsByHashes(alice.space, lookups)).toEqual([a.id, c.id, d.id, null, a.id]);
      expect(await store.findDocIdsByHashes(alice.space, lookups.slice(3))).toEqual([null, a.id]);
      expect(await store.findDocIdsByHashes('another-space', lookups)).toEqual([null, null, null, null, null]);
      expect(await store.findDocIdsByHashes(alice.space, [])).toEqual([]);
    });

    it('stores Unicode (emoji, CJK, RTL) and very long content exactly', async () => {
      const { knowledge: memory } = await setup();
      const texts = [
        'Team offsite 🎉🚀 in Lisbon — café ☕',
        '東京タワーに行った 東京 会議',
        'مرحبا بالعالم — שלום עולם',
        'Zero\u200Bwidth and combining é (e\u0301)',
      ];
      for (const t of texts) {
        const r = await memory.store(alice, { content: t });
        expect((await memory.get(alice, { id: r.id })).content).toBe(t);
      }
      expect((await memory.search(alice, { query: 'Lisbon offsite' }))[0]?.content).toBe(texts[0]);
      expect((await memory.search(alice, { query: '東京' })).map((r) => r.content)).toContain(texts[1]);
      const big = longDocument(1100, 5);
      expect(big.length).toBeGreaterThan(1_000_000);
      const r = await memory.store(alice, { content: big, name: 'Handbook' });
      expect(r.chunkCount).toBeGreaterThan(500);
      const doc = await memory.get(alice, { id: r.id });
      expect(doc.content.length).toBe(big.length);
      expect(doc.content === big).toBe(true);
      expect(doc.chunks.every((c) => c.content.length <= 2100)).toBe(true);
      const hit = await memory.search(alice, { query: 'section 317 service 317' });
      expect(hit[0]?.docId).toBe(r.id);
      expect(hit[0]?.content).toContain('service 317');
    });

    it('refuses bad input with a stable code and changes nothing', async () => {
      const { knowledge: memory } = await setup();
      const a = await memory.store(alice, { content: 'Original fact.', key: '/notes/original' });
      const snapshot = async () => JSON.stringify(await Promise.all([memory.stats(alice), memory.stats(lead)]));
      const before = await snapshot();
      const e1 = await expectCode(memory.store(alice, { content: 'x', key: 'notes/no-slash' }), 'INVALID_KEY');
      expect(e1.message).toMatch(/Example: /);
      await expectCode(memory.store(alice, { content: 'x', key: '/Notes/Upper' }), 'INVALID_KEY');
      await expectCode(memory.store(alice, { content: 'x', key: '/notes/trailing/' }), 'INVALID_KEY');
      await expectCode(memory.store(alice, { content: 'x', key: `/${'a'.repeat(200)}` }), 'INVALID_KEY');
      const e2 = await expectCode(memory.store(alice, { content: 'x', key: '/longterm/gossip/x' }), 'INVALID_KEY');
      expect(e2.message).toContain('/longterm/facts');
      const e3 = await expectCode(
        memory.store(lead, { content: 'x', key: '/longterm/entities/vendors/x' }),
        'INVALID_KEY',
      );
      expect(e3.message).toMatch(/people, customers/);
      const e4 = await expectCode(
        memory.store(alice, { content: 'x', key: '/longterm/company-story' }),
        'FORBIDDEN_KEY',
      );
      expect(e4.message).toMatch(/A worker may write under .*\/longterm\/facts/);
      await expectCode(memory.store(alice, { content: 'x', name: '/longterm/timeline/2026/launch' }), 'FORBIDDEN_KEY');
      await expectCode(memory.store(alice, { content: 'x', name: '/longterm/nope' }), 'INVALID_KEY');
      const taken = await expectCode(
        memory.store(alice, { content: 'Another fact.', key: '/notes/original' }),
        'KEY_TAKEN',
      );
      expect(taken.message).toMatch(/memory-edit/);
      const b = await memory.store(alice, { content: 'Second fact.', key: '/notes/second' });
      const mid = await snapshot();
      await expectCode(memory.edit(alice, { id: b.id, intent: 'move', newKey: '/notes/original' }), 'KEY_TAKEN');
      await expectCode(
        memory.edit(alice, { id: b.id, intent: 'move', newKey: '/longterm/company-story' }),
        'FORBIDDEN_KEY',
      );
      await expectCode(memory.store(alice, { content: '   ' }), 'INVALID_INPUT');
      await expectCode(memory.store(alice, { content: '' }), 'INVALID_INPUT');
      await expectCode(memory.store(alice, { content: 5 }), 'INVALID_INPUT');
      await expectCode(memory.store(alice, { content: 'x', bogus: 1 }), 'INVALID_INPUT');
      await expectCode(memory.search(alice, { query: 'x', limit: 0 }), 'INVALID_INPUT');
      await expectCode(memory.search(alice, { query: 'x', limit: 51 }), 'INVALID_INPUT');
      const secrets = [
        'aws key AKIAIOSFODNN7EXAMPLE in the env',
        'token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI',
        '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
        'db is postgres://admin:s3cretPass@db.internal:5432/app',
      ];
      for (const s of secrets) {
        const e = await expectCode(memory.store(alice, { content: s }), 'SECRET_DETECTED');
        expect(e.message).not.toContain('AKIAIOSFODNN7EXAMPLE');
        expect(e.message).not.toContain('ghp_abcdefghij');
        expect(e.message).not.toContain('s3cretPass');
        expect(e.message).not.toContain('MIIEpAIBAAKCAQEA');
        expect(e.message).toMatch(/line \d+, column \d+/);
      }
      await expectCode(
        memory.edit(alice, { id: a.id, intent: 'x', content: 'now with AKIAIOSFODNN7EXAMPLE' }),
        'SECRET_DETECTED',
      );
      await expectCode(memory.get(alice, { id: 'no-such-id' }), 'NOT_FOUND');
      await expectCode(memory.delete(alice, { id: 'no-such-id' }), 'NOT_FOUND');
      await expectCode(memory.rate(alice, { id: 'no-such-id', useful: true, taskId: 't' }), 'NOT_FOUND');
      await expectCode(
        memory.rate(alice, { id: a.id, useful: true, taskId: 't', note: 'x'.repeat(281) }),
        'INVALID_INPUT',
      );
      await expectCode(
        memory.injectLearning(alice, { agentId: 'bob', learning: 'x', category: 'best-practice' }),
        'FORBIDDEN',
      );
      expect(await snapshot()).toBe(mid);
      expect((await memory.get(alice, { id: a.id })).content).toBe('Original fact.');
      expect((await memory.get(alice, { id: b.id })).key).toBe('/notes/second');
      expect(before).not.toBe(mid);
    });

    it('one store crosses the port twice (three times with an explicit key), one search four times', async () => {
      fixture = await factory();
      const { port, calls } = recordPortCalls(fixture.store);
      const { knowledge: memory } = createStack({
        knowledge: port,
        embedder: createHashingEmbedder({ dimension: 64 }),
        clock: new ManualClock('2026-03-01T12:00:00.000Z'),
      });
      // The first vector operation of a stack reads the store's embedder (and records it on an empty store).
      await memory.store(alice, { content: 'The deploy window opens at nine.' });
      expect(calls()).toEqual(['findDocIdsByHashes', 'getEmbeddingInfo', 'setEmbeddingInfo', 'insertDocument']);
      const stored = await memory.store(alice, { content: 'Rollback plans live in the runbook.' });
      expect(calls()).toEqual(['findDocIdsByHashes', 'insertDocument']);
      await memory.store(alice, { content: 'Deploys go out on Tuesdays.', key: '/notes/deploy-day' });
      expect(calls()).toEqual(['findDocIdsByHashes', 'findDocIdByKey', 'insertDocument']);
      const hits = await memory.search(alice, { query: 'rollback plans runbook' });
      expect(hits[0]?.id).toBe(stored.id);
      expect(calls()).toEqual(['keywordSearch', 'vectorSearch', 'getChunks', 'neighbours']);
    });

    it('finds the memories said right before and after, in storing order, under the search filter', async () => {
      fixture = await factory();
      const store = fixture.store;
      const { knowledge: memory } = createStack({
        knowledge: store,
        clock: new ManualClock('2026-03-01T12:00:00.000Z'),
      });
      const at = '2025-05-01T10:00:00.000Z';
      const turns: string[] = [];
      for (let i = 0; i < 6; i++) {
        const tags = i === 5 ? ['ferry'] : [];
        turns.push(
          (await memory.import(alice, { content: `Alice turn ${i} about the ferry timetable.`, createdAt: at, tags }))
            .id,
        );
        // Another owner's memories said at the same moment, in between: never anyone's neighbours but their own.
        await memory.import(bob, { content: `Bob turn ${i} about the ferry timetable.`, createdAt: at });
      }
      await memory.import(other, { content: 'Alice in another space.', createdAt: at });
      const later = await memory.import(alice, {
        content: 'Alice, a day later.',
        createdAt: '2025-05-02T10:00:00.000Z',
        tags: ['ferry'],
      });
      const filter: SearchFilter = { space: 'acme', viewerAgentId: 'alice', now: '2026-03-01T12:00:00.000Z' };
      const around = async (ids: string[], radius: number, f: SearchFilter = filter) =>
        (await store.neighbours({ filter: f, ids, radius })).map((r) => r.id).sort();
      const sorted = (ids: string[]) => [...ids].sort();
      expect(await around([turns[2]!], 1)).toEqual(sorted([turns[1]!, turns[3]!]));
      expect(await around([turns[2]!, turns[3]!], 2)).toEqual(sorted(turns));
      expect(await around([turns[0]!], 1)).toEqual([turns[1]!]);
      expect(await around([turns[5]!], 1)).toEqual(sorted([turns[4]!, later.id]));
      // The filter holds for the neighbours as for the arms: tags skip the untagged turns, bob sees none of alice's.
      expect(await around([later.id], 1, { ...filter, tags: ['ferry'] })).toEqual([turns[5]!]);
      expect(await around([turns[2]!], 1, { ...filter, viewerAgentId: 'bob' })).toEqual([]);
      expect(await around(['no-such-id'], 1)).toEqual([]);
      expect(await around([turns[2]!], 1, { ...filter, space: 'globex' })).toEqual([]);
    });

    it('brings the turn after a strong match into the results (the neighbouring-turn rule)', async () => {
      fixture = await factory();
      const search = async (weight: number) => {
        const { knowledge: memory } = createStack({
          knowledge: fixture!.store,
          clock: new ManualClock('2026-03-01T12:00:00.000Z'),
          knowledgeOptions: { neighbours: { weight, radius: 1, depth: 10 } },
        });
        return (await memory.search(alice, { query: 'when does the ferry to the island leave' })).map((r) => r.docId);
      };
      const { knowledge: memory } = createStack({
        knowledge: fixture.store,
        clock: new ManualClock('2026-03-01T12:00:00.000Z'),
      });
      const ask = await memory.import(alice, {
        content: 'Alice: When does the ferry to the island leave?',
        createdAt: '2025-05-01T10:00:00.000Z',
      });
      const answer = await memory.import(alice, {
        content: 'Bob: Half past seven, from pier four.',
        createdAt: '2025-05-01T10:00:00.000Z',
      });
      await memory.import(alice, {
        content: 'Bob: Bring a jacket, the deck is cold.',
        createdAt: '2025-05-01T10:00:00.000Z',
      });
      // Without vectors only the keyword arm finds candidates: the answer shares no word with the question.
      expect(await search(0)).toEqual([ask.id]);
      const found = await search(0.5);
      expect(found[0]).toBe(ask.id);
      expect(found).toContain(answer.id);
    });

    it('refuses to mix vector spaces and re-embeds on reindex', async () => {
      const { knowledge: memory } = await setup(64);
      await memory.store(alice, { content: 'Vectors from the 64-dimension hashing embedder.' });
      const other = createStack({
        knowledge: fixture!.store,
        embedder: createHashingEmbedder({ dimension: 32 }),
        clock,
      });
      const e = await expectCode(
        other.knowledge.store(alice, { content: 'A 32-dimension write.' }),
        'EMBEDDING_MISMATCH',
      );
      expect(e.message).toMatch(/mem reindex/);
      await expectCode(other.knowledge.search(alice, { query: 'vectors' }), 'EMBEDDING_MISMATCH');
      const done = await other.knowledge.reindex();
      expect(done).toMatchObject({ chunks: 1, dimension: 32 });
      const hits = await other.knowledge.search(alice, { query: 'hashing embedder vectors' });
      expect(hits[0]?.similarity).toBeGreaterThan(0.3);
      await expectCode(memory.search(alice, { query: 'vectors' }), 'EMBEDDING_MISMATCH');
    });

    it('runs recall, dedup-check, smart-recall, task context and inject-learning', async () => {
      const { knowledge: memory } = await setup();
      const fact = await memory.store(alice, {
        content: 'The payments api uses idempotency keys on every POST request.',
        name: 'Payments idempotency',
      });
      await memory.store(alice, { content: 'Lunch is served at noon on Fridays.' });
      const dup = await memory.dedupCheck(alice, {
        text: 'The payments api uses idempotency keys on every POST request.',
      });
      expect(dup.isDuplicate).toBe(true);
      expect(dup.topSimilarity).toBeGreaterThanOrEqual(0.85);
      expect(dup.duplicates[0]?.id).toBe(fact.id);
      const notDup = await memory.dedupCheck(alice, { text: 'Kubernetes node pools autoscale on CPU.' });
      expect(notDup.isDuplicate).toBe(false);
      const block = await memory.recall(alice, 'Add idempotency keys to the payments api POST request handler');
      expect(block.block).toContain('### Relevant Past Knowledge');
      expect(block.block).toContain(`(id: ${fact.id})`);
      expect(block.block).toContain('Payments idempotency');
      expect(block.block).not.toContain('Lunch');
      expect((await memory.recall(alice, 'zzz qqq unrelated words xyzzy')).block).toBeNull();
      const smart = await memory.smartRecall(alice, {
        queries: ['payments idempotency', 'POST request keys'],
        limit: 5,
      });
      expect(smart[0]?.docId).toBe(fact.id);
      expect(smart[0]?.hits).toBe(2);
      const ctx = await memory.taskContext(alice, { task: 'Fix payments idempotency' });
      expect(ctx.memories[0]?.docId).toBe(fact.id);
      const learned = await memory.injectLearning(lead, {
        agentId: 'bob',
        learning: 'Always run migrations before deploys.',
        category: 'best-practice',
      });
      const seen = await memory.get(bob, { id: learned.id });
      // The lead who injected it is recorded (a reserved tag) and shown in the provenance of bob's recall.
      expect(seen).toMatchObject({
        scope: 'swarm',
        source: 'manual',
        agentId: 'bob',
        tags: ['best-practice', 'injected-by:lead-1'],
      });
      const bobRecall = await memory.recall(bob, 'Always run migrations before deploys', { threshold: 0 });
      expect(bobRecall.block).toMatch(
        /\[by bob, injected by lead lead-1, scope swarm, source manual, \d{4}-\d\d-\d\d\]/,
      );
    });

    it('indexes a document by source path and replaces it when it changes', async () => {
      const { knowledge: memory } = await setup();
      const first = await memory.index(alice, {
        sourcePath: 'docs/Runbook.md',
        content: '# Runbook\n\nRestart the worker with systemctl.',
      });
      expect(first.status).toBe('created');
      expect(first.key).toBe('/docs/runbook.md');
      const same = await memory.index(alice, {
        sourcePath: 'docs/Runbook.md',
        content: '# Runbook\n\nRestart the worker with systemctl.',
      });
      expect(same).toMatchObject({ status: 'unchanged', id: first.id });
      const changed = await memory.index(alice, {
        sourcePath: 'docs/Runbook.md',
        content: '# Runbook\n\nRestart the worker with the deploy tool.',
      });
      expect(changed).toMatchObject({ status: 'updated', id: first.id });
      const doc = await memory.get(alice, { id: first.id });
      expect(doc.content).toContain('deploy tool');
      expect(doc.source).toBe('file_index');
      await expectCode(memory.index(alice, { sourcePath: 'longterm/company-story', content: 'x' }), 'FORBIDDEN_KEY');
    });

    it('deletes a document with every chunk', async () => {
      const { knowledge: memory, knowledgeStore: knowledge } = await setup();
      const doc = await memory.store(alice, { content: longDocument(4) });
      expect(doc.chunkCount).toBeGreaterThan(1);
      await memory.edit(alice, { id: doc.id, intent: 'touch', newKey: '/notes/handbook' });
      const res = await memory.delete(alice, { id: doc.id });
      expect(res.deletedChunks).toBe(doc.chunkCount);
      expect(await knowledge.getDocument('acme', doc.id)).toEqual([]);
      expect(await knowledge.listVersions('acme', doc.id)).toEqual([]);
      expect(await memory.search(alice, { query: 'service restarts nightly' })).toEqual([]);
    });

    it('deletes every document of one agent (forget) with its versions and ratings, and nothing else', async () => {
      const { knowledge: memory, knowledgeStore: knowledge } = await setup();
      const marker = 'zanzibar quokka';
      const mine = await memory.store(alice, { content: `Alice runs the ${marker} deploy checklist.` });
      const long = await memory.store(alice, {
        content: `${longDocument(4)}\n\nThe ${marker} appendix.`,
        scope: 'swarm',
        tags: ['handbook'],
      });
      expect(long.chunkCount).toBeGreaterThan(1);
      await memory.edit(alice, { id: mine.id, intent: 'sharpen', content: `Alice runs the ${marker} release list.` });
      await memory.rate(alice, { id: long.id, useful: true, taskId: 't1' });
      const bobOwn = await memory.store(bob, { content: 'Bob keeps the billing retry notes.' });
      const bobLong = await memory.store(bob, { content: longDocument(3), scope: 'swarm', tags: ['handbook'] });
      await memory.edit(bob, { id: bobOwn.id, intent: 'fix', content: 'Bob keeps the billing retry runbook.' });
      await memory.rate(alice, { id: bobLong.id, useful: false, taskId: 't1' });
      const elsewhere = await memory.store(other, { content: `Globex ${marker} note.`, scope: 'swarm' });

      const removed = await knowledge.deleteByAgent('acme', 'alice');
      expect(removed).toEqual({ documents: 2, chunks: 1 + long.chunkCount, versions: 1, ratings: 1 });
      expect(await knowledge.getDocument('acme', mine.id)).toEqual([]);
      expect(await knowledge.getDocument('acme', long.id)).toEqual([]);
      expect(await knowledge.listVersions('acme', mine.id)).toEqual([]);
      for (const p of [alice, bob, lead]) {
        const hits = await memory.search(p, { query: `${marker} checklist appendix` });
        expect(hits.some((h) => h.docId === mine.id || h.docId === long.id)).toBe(false);
        expect(JSON.stringify(hits)).not.toContain('quokka');
      }
      expect(await memory.search(alice, { query: 'handbook', tags: ['handbook'] })).toSatisfy((hits: unknown[]) =>
        (hits as { docId: string }[]).every((h) => h.docId === bobLong.id),
      );
      // Bob's memories (both scopes), their versions and ratings are untouched; so is the other space.
      expect((await memory.get(bob, { id: bobOwn.id })).content).toBe('Bob keeps the billing retry runbook.');
      expect(await knowledge.listVersions('acme', bobOwn.id)).toHaveLength(1);
      const bobDoc = await knowledge.getDocument('acme', bobLong.id);
      expect(bobDoc).toHaveLength(bobLong.chunkCount);
      expect(bobDoc.every((c) => c.beta === 2)).toBe(true);
      expect((await memory.search(alice, { query: 'service restarts nightly' }))[0]?.docId).toBe(bobLong.id);
      expect((await memory.get(other, { id: elsewhere.id })).content).toContain(marker);
      expect(await knowledge.stats('acme')).toMatchObject({ documents: 2, chunks: 1 + bobLong.chunkCount });
      // Nothing left to forget.
      expect(await knowledge.deleteByAgent('acme', 'alice')).toEqual({
        documents: 0,
        chunks: 0,
        versions: 0,
        ratings: 0,
      });
    });

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
      expect((await memory.search(alice, { query: 'batch memory number 42' })).map((r) => r.docId)).toContain(
        ok(42).id,
      );

      // The port: a batch where one document wants a taken key writes nothing.
      const store = fixture!.store;
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
      const store = fixture!.store;
      const filter: SearchFilter = { space: 'acme', viewerAgentId: 'alice', now: '2026-03-01T12:00:00.000Z' };
      await expectPlainTerms(
        async (terms) => (await store.keywordSearch({ filter, terms, limit: 10 })).map((h) => h.id),
        ids,
      );
      expect((await store.stats('acme')).documents).toBe(3);
    });

    it.skipIf(options.unavailableWhenClosed === false)(
      'a closed store answers STORE_UNAVAILABLE, naming its adapter, on every method and changes nothing',
      async () => {
        const { knowledge: memory } = await setup();
        const before = await memory.store(alice, { content: 'Stored before the store was closed.', key: '/kb/before' });
        const store = fixture!.store;
        const [stored] = await store.getDocument('acme', before.id);
        const chunk: MemoryRecord = { ...stored!, id: 'closed-1', docId: 'closed-1', key: '/kb/after-close' };
        await store.close();
        const now = '2026-03-01T12:00:00.000Z';
        const filter: SearchFilter = { space: 'acme', viewerAgentId: 'alice', now };
        const calls: [string, () => Promise<unknown>][] = [
          ['insertDocument', () => store.insertDocument([chunk])],
          ['getChunk', () => store.getChunk('acme', 'x')],
          ['getDocument', () => store.getDocument('acme', 'x')],
          ['keywordSearch', () => store.keywordSearch({ filter, terms: ['stored'], limit: 3 })],
          ['vectorSearch', () => store.vectorSearch({ filter, vector: new Float32Array(64).fill(1), limit: 3 })],
          ['stats', () => store.stats('acme')],
          ['getEmbeddingInfo', () => store.getEmbeddingInfo()],
          ['deleteExpired', () => store.deleteExpired(now)],
        ];
        for (const [method, call] of calls) {
          const error = await expectCode(call(), 'STORE_UNAVAILABLE');
          expect(error.message, method).toMatch(new RegExp(`^${store.name}: `));
          expect(error.message, method).toMatch(/closed/);
        }
        if (fixture!.openAnother) {
          const reopened = await fixture!.openAnother();
          extra.push(reopened);
          expect((await reopened.stats('acme')).documents).toBe(1);
          expect(await reopened.getChunk('acme', 'closed-1')).toBeNull();
        }
      },
    );

    it('with autoMigrate off, refuses work with STORE_UNAVAILABLE naming migrate() until migrate() runs', async () => {
      await setup();
      if (!fixture!.openUnmigrated) return; // no schema migrations in this store
      const store = await fixture!.openUnmigrated();
      extra.push(store);
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
      if (!fixture!.openAnother) return;
      const second = await fixture!.openAnother();
      extra.push(second);
      const other = createStack({ knowledge: second, embedder: createHashingEmbedder({ dimension: 64 }), clock });
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
  });
}
