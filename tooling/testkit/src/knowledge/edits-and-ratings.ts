import { MemError } from '@mem/core';
import { contentHash } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { alice, bob, expectCode, type KnowledgeSuite, lead, longDocument } from './fixture.js';

/** Moves and edits with their versions, ratings and votes, one copy per owner and scope, exact contents. */
export function editAndRatingTests(t: KnowledgeSuite): void {
  const { setup } = t;
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
    const store = t.fixture().store;
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
      'Joined 👩\u200D💻 and combining é (e\u0301)',
    ];
    for (const t of texts) {
      const r = await memory.store(alice, { content: t });
      expect((await memory.get(alice, { id: r.id })).content).toBe(t);
    }
    // What a reader sees is what is kept: a character that renders as nothing (here a zero-width space) is dropped.
    const hidden = await memory.store(alice, { content: 'Zero\u200Bwidth space' });
    expect((await memory.get(alice, { id: hidden.id })).content).toBe('Zerowidth space');
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
}
