import { createInMemoryKnowledgeStore, createStack, MemError, type Principal } from '@mem/core';
import { STRUCTURED_PORTS, type StoreBundle } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';

/** A fresh bundle of an adapter package (`createXStores(options)`) and how to clean up after it. */
export interface StoreBundleFixture {
  bundle: StoreBundle;
  /** True when the bundle's ports refuse calls with STORE_UNAVAILABLE once closed (false for plain files). */
  unavailableAfterClose: boolean;
  cleanup(): Promise<void>;
}

export type StoreBundleFactory = () => Promise<StoreBundleFixture>;

const SPACE = 'acme';
const alice: Principal = { space: SPACE, agentId: 'alice', role: 'worker' };
const AT = '2026-03-01T12:00:00.000Z';

async function rejectsUnavailable(call: () => Promise<unknown>): Promise<void> {
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(MemError.is(error, 'STORE_UNAVAILABLE'), `expected STORE_UNAVAILABLE, got ${String(error)}`).toBe(true);
}

/**
 * The store bundle shape every adapter package shares: the ports it serves and its `capabilities` agree, a stack
 * assembled from it (`createStack({ stores })`) serves each port for real, and `close()` is idempotent (concurrent and
 * repeated calls resolve; the stack's close closes the bundle too).
 */
export function describeStoreBundle(name: string, factory: StoreBundleFactory): void {
  describe(`${name}: store bundle`, () => {
    it('declares the capabilities of exactly the ports it serves', async () => {
      const f = await factory();
      try {
        const { bundle } = f;
        const caps = bundle.capabilities;
        expect(caps.knowledge !== undefined).toBe(bundle.knowledge !== undefined);
        expect(caps.transcripts !== undefined).toBe(bundle.transcripts !== undefined);
        expect(caps.notebooks !== undefined).toBe(bundle.notebooks !== undefined);
        const served = STRUCTURED_PORTS.filter((p) => bundle.structured?.[p] !== undefined);
        expect([...caps.structured]).toEqual(served);
        expect(caps.episodes !== undefined).toBe(served.includes('episodes'));
        expect(caps.procedures !== undefined).toBe(served.includes('procedures'));
        if (bundle.knowledge) expect(caps.knowledge).toEqual({ ...bundle.knowledge.capabilities });
        if (bundle.transcripts) expect(caps.transcripts).toEqual({ ...bundle.transcripts.capabilities });
        expect(Object.isFrozen(caps)).toBe(true);
      } finally {
        await f.bundle.close();
        await f.cleanup();
      }
    });

    it('serves every port through createStack({ stores }), then closes once however often it is asked', async () => {
      const f = await factory();
      const { bundle } = f;
      try {
        const stack = createStack({
          stores: bundle,
          ...(bundle.knowledge ? {} : { knowledge: createInMemoryKnowledgeStore() }),
        });
        expect(stack.capabilities.structured).toEqual(bundle.capabilities.structured);
        if (bundle.knowledge) {
          expect(stack.knowledgeStore).toBe(bundle.knowledge);
          const { id } = await stack.knowledge.store(alice, { content: 'Invoices are retried three times.' });
          expect((await stack.knowledge.get(alice, { id })).content).toBe('Invoices are retried three times.');
        }
        if (bundle.transcripts) {
          await stack.conversations!.open({ space: SPACE, agentId: 'alice' }).add('user', 'hello bundle', { at: AT });
          const again = await stack.conversations!.open({ space: SPACE, agentId: 'alice' }).messages();
          expect(again.map((m) => m.content)).toEqual(['hello bundle']);
        }
        if (bundle.notebooks) {
          const scope = { space: SPACE, agent: 'alice' };
          await bundle.notebooks.write(scope, 'MEMORY.md', '# notes', { expectedVersion: null, at: AT });
          expect((await bundle.notebooks.read(scope, 'MEMORY.md'))?.content).toBe('# notes');
        }
        if (bundle.structured?.facts) {
          await stack.port('facts').upsert(SPACE, {
            user: 'u1',
            topic: null,
            key: 'plan',
            value: 'pro',
            source: 'user',
            at: AT,
          });
          expect((await stack.port('facts').get(SPACE, 'u1')).map((x) => x.value)).toEqual(['pro']);
        }
        if (bundle.structured?.episodes) {
          const episode = {
            id: 'ep-1',
            summary: 'deployed the billing service',
            keyDecisions: [],
            toolsUsed: [],
            outcome: 'success' as const,
            sessionId: null,
            timestamp: AT,
            tags: [],
            metadata: {},
          };
          await stack.port('episodes').insert(SPACE, episode, null);
          expect((await stack.port('episodes').get(SPACE, 'ep-1'))?.summary).toBe(episode.summary);
        }
        await Promise.all([stack.close(), bundle.close(), bundle.close()]);
        await bundle.close();
        if (f.unavailableAfterClose) {
          if (bundle.knowledge) await rejectsUnavailable(() => stack.knowledge.get(alice, { id: 'nope' }));
          if (bundle.transcripts) await rejectsUnavailable(() => bundle.transcripts!.read(SPACE, 'alice'));
          if (bundle.structured?.facts) await rejectsUnavailable(() => bundle.structured!.facts!.get(SPACE, 'u1'));
          if (bundle.structured?.episodes) await rejectsUnavailable(() => bundle.structured!.episodes!.count(SPACE));
        }
      } finally {
        await bundle.close();
        await f.cleanup();
      }
    });
  });
}
