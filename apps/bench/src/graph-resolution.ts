/**
 * Entity resolution on the test set of @mem/testkit (issue 34): each pair written into a fresh space of an in-memory
 * graph, once with the rules alone and once with the local embedder confirming similar names (the default stack's).
 * Precision and recall of "one entity", with the pairs each got wrong.
 */
import { createInMemoryKnowledgeStore, createInMemoryStructuredStores, createStack } from '@mem/core';
import type { Embedder } from '@mem/core/adapter';
import { createLocalEmbedder } from '@mem/embed-local';
import { type ResolutionPair, type ResolutionScore, scoreResolution } from '@mem/testkit';

async function score(embedder: Embedder | undefined): Promise<ResolutionScore> {
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    structured: createInMemoryStructuredStores(),
    ...(embedder ? { embedder } : {}),
  });
  try {
    const graph = stack.service('graph');
    return await scoreResolution(async (pair: ResolutionPair, i: number) => {
      const p = { space: `pair-${i}`, agentId: 'bench', role: 'worker' as const };
      for (const name of [pair.a, pair.b])
        await graph.createEntities(p, { entities: [{ name, entityType: pair.entityType, observations: [] }] });
      return (await graph.readGraph(p)).entities.length === 1;
    });
  } finally {
    await stack.close();
  }
}

/** The two scores: the rules alone, and with the local embedder. */
export async function resolutionScores(): Promise<{ rules: ResolutionScore; localEmbedder: ResolutionScore }> {
  return { rules: await score(undefined), localEmbedder: await score(createLocalEmbedder({ thread: false })) };
}
