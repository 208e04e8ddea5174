import { createInMemoryKnowledgeStore, createStack, type Principal } from '@mem/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from './index.js';

// The recall block's threshold is on a calibrated scale (the embedder's own cosines of unrelated sentences and of
// paraphrases), so it has to work with this small model: paraphrased tasks recall their memory, unrelated ones nothing.

const me: Principal = { space: 'acme', agentId: 'ops', role: 'worker' };
const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: createLocalEmbedder() });

beforeAll(async () => {
  for (const content of [
    'Standup: the whole team meets at 9:30 every weekday morning in the small meeting room.',
    'Billing retries a failed card charge three times, one day apart.',
    'The staging cluster runs on three nodes in eu-west.',
    "Ana's favourite hiking trail is the ridge above the village.",
  ])
    await stack.knowledge.store(me, { content });
}, 120_000);

describe('the recall block with the local embedder (calibrated threshold)', () => {
  it.each([
    ['when is the daily team sync', 'Standup'],
    ['how often do we retry declined payments', 'Billing retries'],
    ['where does Ana like to go walking in the hills', "Ana's favourite"],
  ])('a task worded differently from its memory recalls it: %s', async (task, start) => {
    const { block, memories } = await stack.knowledge.recall(me, task);
    expect(block).not.toBeNull();
    expect(memories[0]!.content.startsWith(start)).toBe(true);
    expect(memories[0]!.confidence).toBeGreaterThanOrEqual(0.6);
  });

  it.each([
    'what did the kids eat for breakfast',
    'which birds nest on the cliffs by the sea',
    'translate this poem into French',
  ])('an unrelated task gets no block: %s', async (task) => {
    const { block, memories } = await stack.knowledge.recall(me, task);
    expect(memories).toEqual([]);
    expect(block).toBeNull();
  });

  it('dedup-check finds a reworded memory and not a different fact about the same thing', async () => {
    const reworded = await stack.knowledge.dedupCheck(me, {
      text: 'Billing retries a failed card charge 3 times, a day apart.',
    });
    expect(reworded.isDuplicate).toBe(true);
    expect(reworded.duplicates[0]!.preview.startsWith('Billing retries')).toBe(true);
    const other = await stack.knowledge.dedupCheck(me, {
      text: 'The production cluster runs on twelve nodes in us-east.',
    });
    expect(other.isDuplicate).toBe(false);
  });
});
