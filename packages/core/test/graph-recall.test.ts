/**
 * Recall that follows links (docs/graph.md): a question about an entity's neighbour finds the memory about that
 * neighbour through the graph, which neither arm finds from the question's words alone.
 */
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  type Principal,
} from '@mem/core';
import { nameRuns } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';

const me: Principal = { space: 'home', agentId: 'assistant', role: 'worker' };
const MEMORIES = [
  'Ann moved to Boston last spring and loves the harbour.',
  'Caroline is planning a hiking trip with colleagues in October.',
  'Caroline likes painting sunsets on weekends.',
  'Where to live is a hard question for anyone who moves a lot.',
  'The team lives by its sprint calendar.',
  'Caroline asked where the nearest bakery is.',
];

async function stackWith(hops: number) {
  const stack = createStack({
    knowledge: createInMemoryKnowledgeStore(),
    structured: createInMemoryStructuredStores(),
    embedder: createHashingEmbedder({ dimension: 256 }),
    knowledgeOptions: { graphRecall: { hops, weight: 0.5, depth: 5 } },
  });
  for (const [i, content] of MEMORIES.entries())
    await stack.knowledge.store(me, { key: `/longterm/facts/home/n${i}`, content });
  const graph = stack.graph!;
  await graph.createEntities(me, {
    entities: [
      { name: 'Caroline', entityType: 'person', observations: [] },
      { name: 'Ann', entityType: 'person', observations: [] },
      { name: 'Boston', entityType: 'place', observations: [] },
    ],
  });
  await graph.createRelations(me, {
    relations: [
      { from: 'Caroline', to: 'Ann', relationType: 'has_sister' },
      { from: 'Ann', to: 'Boston', relationType: 'lives_in' },
    ],
  });
  return stack;
}

const rankOf = async (hops: number, query: string) => {
  const stack = await stackWith(hops);
  const found = await stack.knowledge.search(me, { query, limit: 6 });
  await stack.close();
  return found.findIndex((r) => r.content.startsWith('Ann moved to Boston'));
};

describe('recall that follows links', () => {
  it('the memory about the entity two hops away joins the top three; without the graph it is last', async () => {
    const question = "Where does Caroline's sister live now?";
    const without = await rankOf(0, question);
    const withGraph = await rankOf(2, question);
    expect(withGraph).toBeGreaterThanOrEqual(0);
    expect(withGraph).toBeLessThanOrEqual(2);
    expect(without === -1 || without > withGraph + 1).toBe(true);
    // A question that names no entity of the graph searches as before.
    expect(await rankOf(2, 'harbour')).toBe(await rankOf(0, 'harbour'));
  });

  it('reads runs of one to three words as names, never a filler word at either end', () => {
    const runs = nameRuns("Where does Caroline's sister live in New York City?");
    expect(runs).toContain('Caroline');
    expect(runs).toContain('New York City');
    expect(runs).toContain('York');
    expect(runs).not.toContain('Where does');
    expect(runs.some((r) => /^(in|does|where)\b/i.test(r))).toBe(false);
  });
});
