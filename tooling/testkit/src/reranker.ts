/**
 * The conformance suite of the `Reranker` port: what every reranker adapter must do, whatever model it calls. The
 * factory gives a reranker whose model ranks a text that answers the query above unrelated ones (any real
 * cross-encoder does; a test's fake service must too).
 */
import type { Reranker } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { expectMemError } from './port-fixture.js';

export function describeReranker(name: string, make: () => Reranker | Promise<Reranker>): void {
  describe(`Reranker conformance: ${name}`, () => {
    it('answers one finite score per document, in the order given, the answering text first', async () => {
      const reranker = await make();
      expect(typeof reranker.id).toBe('string');
      const documents = [
        'Lunch is served in the cafeteria at noon.',
        'The staging database resets every Sunday at 02:00 UTC.',
        'Our office plants are watered on Fridays.',
      ];
      const { scores } = await reranker.rerank({ query: 'when does the staging database reset', documents });
      expect(scores).toHaveLength(3);
      for (const s of scores) expect(Number.isFinite(s)).toBe(true);
      expect(scores[1]).toBeGreaterThan(scores[0]!);
      expect(scores[1]).toBeGreaterThan(scores[2]!);
      // The same documents in another order: the scores follow the documents.
      const again = await reranker.rerank({
        query: 'when does the staging database reset',
        documents: [...documents].reverse(),
      });
      expect(again.scores[1]).toBeGreaterThan(again.scores[0]!);
      expect(again.scores[1]).toBeGreaterThan(again.scores[2]!);
    });

    it('answers no scores for no documents', async () => {
      expect((await (await make()).rerank({ query: 'anything', documents: [] })).scores).toEqual([]);
    });

    it('refuses bad input with INVALID_INPUT', async () => {
      const reranker = await make();
      await expectMemError(reranker.rerank({ query: '', documents: ['a'] }), 'INVALID_INPUT');
      await expectMemError(reranker.rerank({ query: 'q', documents: [7 as never] }), 'INVALID_INPUT');
      await expectMemError(reranker.rerank({ query: 'q', documents: 'a' as never }), 'INVALID_INPUT');
    });
  });
}
