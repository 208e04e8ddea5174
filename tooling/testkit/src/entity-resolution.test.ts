import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
} from '@mem/core';
import { describe, expect, it } from 'vitest';
import { RESOLUTION_PAIRS, scoreResolution } from './entity-resolution.js';

const p = (space: string) => ({ space, agentId: 'agent', role: 'worker' as const });

/** Write `a`, then `b`, through the graph of a fresh stack: one entity left in the graph means `b` resolved to `a`. */
function resolver(withEmbedder: boolean) {
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    structured: createInMemoryStructuredStores(),
    ...(withEmbedder ? { embedder: createHashingEmbedder({ dimension: 256 }) } : {}),
  });
  return async (pair: (typeof RESOLUTION_PAIRS)[number], i: number) => {
    const graph = stack.graph!;
    for (const name of [pair.a, pair.b])
      await graph.createEntities(p(`s${i}`), { entities: [{ name, entityType: pair.entityType, observations: [] }] });
    return (await graph.readGraph(p(`s${i}`))).entities.length === 1;
  };
}

describe('entity resolution on the test set (docs/graph.md)', () => {
  it('joins near-duplicates and keeps look-alikes apart: precision and recall of the rules', async () => {
    const score = await scoreResolution(resolver(false));
    console.log(`entity resolution, rules only: ${JSON.stringify(score)}`);
    expect(score.pairs).toBe(RESOLUTION_PAIRS.length);
    expect(score.precision).toBeGreaterThanOrEqual(0.9);
    expect(score.recall).toBeGreaterThanOrEqual(0.7);
  });

  it('an embedder only vetoes: it never joins what the rules keep apart', async () => {
    const rules = await scoreResolution(resolver(false));
    const embedded = await scoreResolution(resolver(true));
    expect(embedded.falsePositives).toBeLessThanOrEqual(rules.falsePositives);
    expect(embedded.truePositives).toBeLessThanOrEqual(rules.truePositives);
  });
});
