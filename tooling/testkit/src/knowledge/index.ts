import { createHashingEmbedder, createStack, type Stack } from '@mem/core';
import { type KnowledgeStore, ManualClock } from '@mem/core/adapter';
import { afterEach, describe } from 'vitest';
import { editAndRatingTests } from './edits-and-ratings.js';
import type { KnowledgeStoreFactory, KnowledgeStoreFixture, KnowledgeStoreSuiteOptions } from './fixture.js';
import { formationTests } from './formation.js';
import { persistenceTests } from './persistence.js';
import { recallAndDeletionTests } from './recall-and-deletion.js';
import { refusalAndSearchTests } from './refusals-and-search.js';
import { storeAndFilterTests } from './store-and-filters.js';
import { transferAndBatchTests } from './transfer-and-batch.js';

export type { KnowledgeStoreFactory, KnowledgeStoreFixture, KnowledgeStoreSuiteOptions } from './fixture.js';

/**
 * The conformance suite of the KnowledgeStore port. Every adapter runs it through a fresh store from `factory`;
 * behaviour is checked through the knowledge service of @mem/core (which is how users reach a store) and, where a
 * rule belongs to the port itself (filters before the cut), through the port directly.
 *
 * The tests live in files by theme (./store-and-filters.ts, ./edits-and-ratings.ts, ./refusals-and-search.ts,
 * ./recall-and-deletion.ts, ./transfer-and-batch.ts, ./persistence.ts, ./formation.ts), each a function given the set-up below and
 * called in this order inside the one `describe`.
 */
export function describeKnowledgeStore(
  name: string,
  factory: KnowledgeStoreFactory,
  options: KnowledgeStoreSuiteOptions = {},
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

    const suite = {
      setup,
      async open(): Promise<KnowledgeStoreFixture> {
        fixture = await factory();
        return fixture;
      },
      fixture(): KnowledgeStoreFixture {
        if (!fixture) throw new Error('the test has no store yet: call setup() or open() first');
        return fixture;
      },
      clock: () => clock,
      extra,
      options,
    };
    storeAndFilterTests(suite);
    editAndRatingTests(suite);
    refusalAndSearchTests(suite);
    recallAndDeletionTests(suite);
    transferAndBatchTests(suite);
    persistenceTests(suite);
    formationTests(suite);
  });
}
