import { createHashingEmbedder, createStack, forget } from '@mem/core';
import { authoredEpisode, readTreeText, tempDir } from '@mem/testkit';
import { expect, it } from 'vitest';
import { createLanceStores } from './index.js';

const SPACE = 'acme';
const bob = { space: SPACE, agentId: 'bob', role: 'worker' as const };
const alice = { space: SPACE, agentId: 'alice', role: 'worker' as const };

// LanceDB's compaction leaves a fragment alone when under 10 % of its rows are deleted and it has no neighbour to
// merge with: after `optimize` folded everything into one fragment, a forgotten row would stay in its data file.
it('forget erases a row that shares its fragment with many kept rows (after optimize merged them)', async () => {
  const dir = tempDir('lancedb-fragments');
  const stores = createLanceStores({ uri: dir.path });
  const stack = createStack({ stores, embedder: createHashingEmbedder({ dimension: 32 }) });
  try {
    const notes = (tag: string) =>
      Array.from({ length: 40 }, (_, i) => ({ content: `Bob ${tag} ${i} qzxbobmarker`, scope: 'swarm' as const }));
    await stack.knowledge.storeMany(bob, notes('note'));
    const kept = await stack.knowledge.store(alice, { content: 'Alice keeps qzxalicemarker', scope: 'swarm' });
    await stack.knowledge.rate(bob, { id: kept.id, useful: true, taskId: 't-1', note: 'rated qzxalicemarker' });
    await stack.knowledge.storeMany(bob, notes('again'));
    for (let i = 0; i < 30; i++)
      await stores.episodes.insert(SPACE, authoredEpisode(`b${i}`, 'bob shipped qzxbobmarker', 'bob'), null);
    await stores.episodes.insert(SPACE, authoredEpisode('a1', 'alice shipped qzxalicemarker', 'alice'), null);
    await stores.optimize({ cleanupOlderThan: new Date() });
    expect(readTreeText(dir.path).includes('qzxalicemark'), 'the scan sees the row before forget').toBe(true);

    const report = await forget(stack, { space: SPACE, agentId: 'lead', role: 'lead' }, { agentId: 'alice' });
    expect(report.removed.memories.documents).toBe(1);
    expect(report.removed.episodes).toBe(1);
    const raw = readTreeText(dir.path);
    expect(raw.includes('qzxbobmarker'), 'the scan sees the rows kept').toBe(true);
    expect(raw.includes('qzxalicemark'), 'a forgotten row stayed in a LanceDB data or index file').toBe(false);
    // The rewritten rows are all there and searchable.
    expect(await stores.knowledge.stats(SPACE)).toMatchObject({ documents: 80 });
    expect(await stores.episodes.count(SPACE)).toBe(30);
    expect((await stores.episodes.keywordSearch(SPACE, ['qzxbobmarker'], 50)).length).toBe(30);
  } finally {
    await stack.close();
    dir.remove();
  }
});
