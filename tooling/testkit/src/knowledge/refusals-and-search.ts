import { createHashingEmbedder, createStack } from '@mem/core';
import { ManualClock, type SearchFilter } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { recordPortCalls } from '../port-calls.js';
import { neighbourRows } from '../search-arms.js';
import { alice, bob, expectCode, type KnowledgeSuite, lead, other } from './fixture.js';

/** Refusals of bad input, the port calls of a store and a search, neighbouring turns, vector spaces. */
export function refusalAndSearchTests(t: KnowledgeSuite): void {
  const { setup } = t;
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
    const e4 = await expectCode(memory.store(alice, { content: 'x', key: '/longterm/company-story' }), 'FORBIDDEN_KEY');
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
    const fixture = await t.open();
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
    expect(calls()).toEqual(['searchCandidates']);
  });

  it('finds the memories said right before and after, in storing order, under the search filter', async () => {
    const fixture = await t.open();
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
        (await memory.import(alice, { content: `Alice turn ${i} about the ferry timetable.`, createdAt: at, tags })).id,
      );
      // Another owner's memories said at the same moment, in between: never anyone's neighbours but their own.
      await memory.import(bob, { content: `Bob turn ${i} about the ferry timetable.`, createdAt: at });
      // Alice's own memories of another source in between (a task's notes beside a conversation): not turns of it.
      await memory.import(alice, { content: `Alice's task note ${i}.`, createdAt: at, source: 'task_completion' });
    }
    await memory.import(other, { content: 'Alice in another space.', createdAt: at });
    const later = await memory.import(alice, {
      content: 'Alice, a day later.',
      createdAt: '2025-05-02T10:00:00.000Z',
      tags: ['ferry'],
    });
    const filter: SearchFilter = { space: 'acme', viewerAgentId: 'alice', now: '2026-03-01T12:00:00.000Z' };
    const around = async (ids: string[], radius: number, f: SearchFilter = filter) =>
      (await neighbourRows(store, { filter: f, ids, radius })).map((r) => r.id).sort();
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
    const fixture = await t.open();
    const search = async (weight: number) => {
      const { knowledge: memory } = createStack({
        knowledge: t.fixture().store,
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
      knowledge: t.fixture().store,
      embedder: createHashingEmbedder({ dimension: 32 }),
      clock: t.clock(),
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
}
