import { describe, expect, it } from 'vitest';
import { recordPortCalls } from '../../../tooling/testkit/src/port-calls.js';
import { createHashingEmbedder } from '../src/adapters/hashing-embedder.js';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { MemError } from '../src/errors.js';
import { ManualClock } from '../src/ports/clock.js';
import type { KnowledgeStore } from '../src/ports/knowledge-store.js';
import { EMBEDDING_INFO_TTL_MS } from '../src/services/knowledge/embedding-space.js';
import { createStack } from '../src/stack.js';
import type { Principal } from '../src/types.js';

const alice: Principal = { space: 'acme', agentId: 'alice', role: 'worker' };

function setup(store: KnowledgeStore = createInMemoryKnowledgeStore(), embedderId = 'hash-32') {
  const clock = new ManualClock();
  const r = recordPortCalls(store);
  const embedder = { ...createHashingEmbedder({ dimension: 32 }), id: embedderId };
  const stack = createStack({ knowledge: r.port, embedder, clock });
  return { ...stack, clock, calls: r.calls, inner: store };
}

describe('port calls of one operation (in-memory store, with an embedder)', () => {
  it('a store makes 2 port calls (3 with an explicit key); a search 1; the embedding info is read once per stack', async () => {
    const { knowledge, calls } = setup();
    // The first vector write of a stack reads the store's embedder once (and records it on an empty store).
    await knowledge.store(alice, { content: 'warm up the vector space' });
    expect(calls()).toEqual(['findDocIdsByHashes', 'getEmbeddingInfo', 'setEmbeddingInfo', 'insertDocument']);

    await knowledge.store(alice, { content: 'rollback plans live in the runbook' });
    expect(calls()).toEqual(['findDocIdsByHashes', 'insertDocument']);

    await knowledge.store(alice, { content: 'deploys go out on tuesdays', key: '/notes/deploy' });
    expect(calls()).toEqual(['findDocIdsByHashes', 'findDocIdByKey', 'insertDocument']);

    const again = await knowledge.store(alice, { content: 'rollback plans live in the runbook' });
    expect(again.deduplicated).toBe(true);
    expect(calls()).toEqual(['findDocIdsByHashes', 'getDocument']);

    const results = await knowledge.search(alice, { query: 'rollback plans' });
    expect(results[0]?.content).toBe('rollback plans live in the runbook');
    expect(calls()).toEqual(['searchCandidates']);

    const batch = await knowledge.storeMany(alice, [{ content: 'one' }, { content: 'two' }, { content: 'three' }]);
    expect(batch.every((r) => !MemError.is(r) && !r.deduplicated)).toBe(true);
    expect(calls()).toEqual(['findDocIdsByHashes', 'insertDocuments']);
  });

  it('while the kept match holds, a search calls the embedder first and the store runs its keyword arm before the vector is there', async () => {
    const order: string[] = [];
    const inner = createInMemoryKnowledgeStore();
    const hashing = createHashingEmbedder({ dimension: 32 });
    let held: Promise<void> | undefined;
    const embedder = {
      ...hashing,
      async embed(texts: string[]) {
        order.push('embed');
        if (held) await held;
        order.push('embedded');
        return hashing.embed(texts);
      },
    };
    let storeCalled!: () => void;
    const called = new Promise<void>((resolve) => {
      storeCalled = resolve;
    });
    const store = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'searchCandidates') {
          return (q: Parameters<KnowledgeStore['searchCandidates']>[0]) => {
            order.push('searchCandidates');
            storeCalled();
            return target.searchCandidates(q);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    const { knowledge } = createStack({ knowledge: store, embedder, clock: new ManualClock() });
    await knowledge.store(alice, { content: 'rollback plans live in the runbook' });
    order.length = 0;
    let release!: () => void;
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pending = knowledge.search(alice, { query: 'rollback plans' });
    await called;
    // The embedder was asked and the store called while the vector was still being computed.
    expect(order).toEqual(['embed', 'searchCandidates']);
    release();
    expect((await pending)[0]?.content).toBe('rollback plans live in the runbook');
    expect(order).toEqual(['embed', 'searchCandidates', 'embedded']);
  });

  it('reads the embedding info again once its time-to-live has passed on the stack clock', async () => {
    const { knowledge, calls, clock } = setup();
    await knowledge.store(alice, { content: 'first' });
    calls();
    clock.advance(EMBEDDING_INFO_TTL_MS - 1);
    await knowledge.search(alice, { query: 'first' });
    expect(calls()).not.toContain('getEmbeddingInfo');
    clock.advance(1);
    await knowledge.search(alice, { query: 'first' });
    // The query's embedding is asked for first: the expired match is read again before it, then the keyword arm runs
    // while the query is embedded.
    expect(calls()).toEqual(['getEmbeddingInfo', 'searchCandidates']);
    await knowledge.search(alice, { query: 'first' });
    expect(calls()).toEqual(['searchCandidates']);
  });

  it('a store re-embedded by another stack is refused after the time-to-live, and nothing is written', async () => {
    const shared = createInMemoryKnowledgeStore();
    const a = setup(shared, 'model-a');
    const b = setup(shared, 'model-b');
    await a.knowledge.store(alice, { content: 'written with model a' });
    await b.knowledge.reindex();
    expect(await shared.getEmbeddingInfo()).toEqual({ model: 'model-b', dimension: 32 });
    a.clock.advance(EMBEDDING_INFO_TTL_MS);
    const before = (await shared.stats(alice.space)).chunks;
    await expect(a.knowledge.store(alice, { content: 'another fact from a' })).rejects.toMatchObject({
      code: 'EMBEDDING_MISMATCH',
    });
    await expect(a.knowledge.search(alice, { query: 'fact' })).rejects.toMatchObject({ code: 'EMBEDDING_MISMATCH' });
    expect((await shared.stats(alice.space)).chunks).toBe(before);
  });

  it('a store re-embedded to another dimension is refused at once by a search, within the time-to-live', async () => {
    const shared = createInMemoryKnowledgeStore();
    const a = setup(shared, 'model-a');
    await a.knowledge.store(alice, { content: 'vectors of thirty-two dimensions' });
    const b = createStack({ knowledge: shared, embedder: createHashingEmbedder({ dimension: 16 }), clock: a.clock });
    await b.knowledge.reindex();
    a.calls();
    // The kept answer is still fresh, but the rows found carry 16-dimension vectors: the store is read again.
    await expect(a.knowledge.search(alice, { query: 'vectors dimensions' })).rejects.toMatchObject({
      code: 'EMBEDDING_MISMATCH',
    });
    expect(a.calls()).toEqual(['searchCandidates', 'getEmbeddingInfo']);
  });

  it('a failing vector call reads the embedding info again; the store error stands when the space is still ours', async () => {
    const inner = createInMemoryKnowledgeStore();
    let failing = false;
    const flaky = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'searchCandidates' && failing)
          return async () => {
            throw new MemError('STORE_UNAVAILABLE', 'in-memory: the engine is down (test).');
          };
        return Reflect.get(target, prop, receiver);
      },
    });
    const a = setup(flaky);
    await a.knowledge.store(alice, { content: 'rollback plans live in the runbook' });
    a.calls();
    failing = true;
    await expect(a.knowledge.search(alice, { query: 'rollback' })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(a.calls()).toEqual(['searchCandidates', 'getEmbeddingInfo']);
    failing = false;
    expect((await a.knowledge.search(alice, { query: 'rollback' })).length).toBe(1);
    expect(a.calls()).toEqual(['searchCandidates']);
    // Re-embedded meanwhile by another stack (same dimension, another model): the failure is explained as a mismatch.
    await createStack({ knowledge: inner, embedder: createHashingEmbedder({ dimension: 32 }) }).knowledge.reindex();
    failing = true;
    await expect(a.knowledge.search(alice, { query: 'rollback' })).rejects.toMatchObject({
      code: 'EMBEDDING_MISMATCH',
    });
  });

  it('a mismatch is never kept: once the store is re-embedded with this stack embedder, it works at once', async () => {
    const shared = createInMemoryKnowledgeStore();
    const b = setup(shared, 'model-b');
    await b.knowledge.store(alice, { content: 'written with model b' });
    const a = setup(shared, 'model-a');
    await expect(a.knowledge.search(alice, { query: 'model' })).rejects.toMatchObject({ code: 'EMBEDDING_MISMATCH' });
    a.calls();
    await expect(a.knowledge.search(alice, { query: 'model' })).rejects.toMatchObject({ code: 'EMBEDDING_MISMATCH' });
    // The embedding space is read first; the store's keyword arm had started meanwhile (a read; its hits are dropped);
    // no vector search, nothing written.
    expect(a.calls()).toEqual(['getEmbeddingInfo', 'searchCandidates']);
    // Another stack with a's embedder re-embeds; a notices on its next call, without waiting for the time-to-live.
    await setup(shared, 'model-a').knowledge.reindex();
    expect((await a.knowledge.search(alice, { query: 'model' })).length).toBe(1);
  });

  it("this stack's reindex records the new info and keeps it: the next vector operation reads nothing", async () => {
    const shared = createInMemoryKnowledgeStore();
    await setup(shared, 'model-b').knowledge.store(alice, { content: 'written with model b' });
    const a = setup(shared, 'model-a');
    await a.knowledge.reindex();
    expect(a.calls()).toEqual(['scan', 'updateEmbeddings', 'setEmbeddingInfo']);
    await a.knowledge.search(alice, { query: 'model' });
    expect(a.calls()).toEqual(['searchCandidates']);
  });
});
