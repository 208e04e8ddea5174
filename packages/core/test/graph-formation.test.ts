/**
 * Distillation feeds the graph (docs/graph.md): the user's residence, employer, people and pets become edges from the
 * user's entity, with the memory's evidence; a change of mind closes the old edge and opens the new one, a retraction
 * closes it, and other memories stay out of the graph.
 */
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  forget,
} from '@mem/core';
import { ManualClock } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';

const ben = { space: 'acme', agentId: 'travel', role: 'worker' as const, userId: 'ben' };

describe('distillation feeds the graph', () => {
  it('residence, employer, a sister and a dog become edges; moving closes the old one; a dislike stays a memory', async () => {
    const clock = new ManualClock('2026-05-01T09:00:00.000Z');
    const stack = createStack({
      knowledge: createInMemoryKnowledgeStore(),
      structured: createInMemoryStructuredStores(),
      embedder: createHashingEmbedder(),
      clock,
    });
    const say = (id: string, content: string) =>
      stack.distill(ben, { messages: [{ role: 'user', content, id, at: clock.now().toISOString() }] });
    await say('m1', 'I live in Lisbon.');
    await say('m2', 'I work at Globex.');
    await say('m3', 'My sister is called Maria.');
    await say('m4', 'I have a dog named Rex.');
    await say('m5', 'I hate jazz.');
    const graph = stack.graph!;
    const me = await graph.openNodes(ben, { names: ['User ben'] });
    expect(me.relations.map((r) => `${r.relationType} ${r.to}`).sort()).toEqual([
      'has_pet Rex',
      'has_sister Maria',
      'lives_in Lisbon',
      'works_at Globex',
    ]);
    expect((await graph.readGraph(ben)).entities.map((e) => e.name).sort()).toEqual([
      'Globex',
      'Lisbon',
      'Maria',
      'Rex',
      'User ben',
    ]);
    expect((await graph.openNodes(ben, { names: ['Lisbon'] })).entities[0]!.observations).toEqual([
      'User lives in Lisbon.',
    ]);
    const history = await graph.history(ben, { name: 'Lisbon' });
    expect(history.log.find((l) => l.kind === 'relation')?.evidence).toEqual(['m1']);

    clock.set('2026-06-01T09:00:00.000Z');
    await say('m6', 'I moved to Porto last week.');
    const now = await graph.openNodes(ben, { names: ['User ben'] });
    expect(now.relations.filter((r) => r.relationType === 'lives_in').map((r) => r.to)).toEqual(['Porto']);
    const before = await graph.readGraph(ben, {}, { asOf: '2026-05-15T00:00:00.000Z' });
    expect(before.relations.filter((r) => r.relationType === 'lives_in').map((r) => r.to)).toEqual(['Lisbon']);
    // Another user sees none of it.
    expect((await graph.readGraph({ ...ben, userId: 'ann' })).entities).toEqual([]);

    // Forgetting the message that said it forgets the edge and the place it alone brought; the user stays.
    const report = await forget(stack, { space: 'acme', agentId: 'lead', role: 'lead' }, { messages: ['m1'] });
    expect(report.removed.graph).toMatchObject({ entities: 1, relations: 1 });
    const then = await graph.readGraph(ben, {}, { asOf: '2026-05-15T00:00:00.000Z' });
    expect(then.entities.map((e) => e.name)).not.toContain('Lisbon');
    expect(then.entities.map((e) => e.name)).toContain('User ben');
  });
});
