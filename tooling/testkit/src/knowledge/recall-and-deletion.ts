import { expect, it } from 'vitest';
import { alice, bob, expectCode, type KnowledgeSuite, lead, longDocument, other } from './fixture.js';

/** Recall and its relatives, indexing by source path, deleting a document and forgetting an agent. */
export function recallAndDeletionTests(t: KnowledgeSuite): void {
  const { setup } = t;
  it('runs recall, dedup-check, smart-recall, task context and inject-learning', async () => {
    const { knowledge: memory } = await setup();
    const fact = await memory.store(alice, {
      content: 'The payments api uses idempotency keys on every POST request.',
      name: 'Payments idempotency',
    });
    await memory.store(alice, { content: 'Lunch is served at noon on Fridays.' });
    const dup = await memory.dedupCheck(alice, {
      text: 'The payments api uses idempotency keys on every POST request.',
    });
    expect(dup.isDuplicate).toBe(true);
    expect(dup.topSimilarity).toBeGreaterThanOrEqual(0.85);
    expect(dup.duplicates[0]?.id).toBe(fact.id);
    const notDup = await memory.dedupCheck(alice, { text: 'Kubernetes node pools autoscale on CPU.' });
    expect(notDup.isDuplicate).toBe(false);
    const block = await memory.recall(alice, 'Add idempotency keys to the payments api POST request handler');
    expect(block.block).toContain('### Relevant Past Knowledge');
    expect(block.block).toContain(`(id: ${fact.id})`);
    expect(block.block).toContain('Payments idempotency');
    expect(block.block).not.toContain('Lunch');
    expect((await memory.recall(alice, 'zzz qqq unrelated words xyzzy')).block).toBeNull();
    const smart = await memory.smartRecall(alice, {
      queries: ['payments idempotency', 'POST request keys'],
      limit: 5,
    });
    expect(smart[0]?.docId).toBe(fact.id);
    expect(smart[0]?.hits).toBe(2);
    const ctx = await memory.taskContext(alice, { task: 'Fix payments idempotency' });
    expect(ctx.memories[0]?.docId).toBe(fact.id);
    const learned = await memory.injectLearning(lead, {
      agentId: 'bob',
      learning: 'Always run migrations before deploys.',
      category: 'best-practice',
    });
    const seen = await memory.get(bob, { id: learned.id });
    // The lead who injected it is recorded (a reserved tag) and shown in the provenance of bob's recall.
    expect(seen).toMatchObject({
      scope: 'swarm',
      source: 'manual',
      agentId: 'bob',
      tags: ['best-practice', 'injected-by:lead-1'],
    });
    const bobRecall = await memory.recall(bob, 'Always run migrations before deploys', { threshold: 0 });
    expect(bobRecall.block).toMatch(/\[by bob, injected by lead lead-1, scope swarm, source manual, \d{4}-\d\d-\d\d\]/);
  });

  it('indexes a document by source path and replaces it when it changes', async () => {
    const { knowledge: memory } = await setup();
    const first = await memory.index(alice, {
      sourcePath: 'docs/Runbook.md',
      content: '# Runbook\n\nRestart the worker with systemctl.',
    });
    expect(first.status).toBe('created');
    expect(first.key).toBe('/docs/runbook.md');
    const same = await memory.index(alice, {
      sourcePath: 'docs/Runbook.md',
      content: '# Runbook\n\nRestart the worker with systemctl.',
    });
    expect(same).toMatchObject({ status: 'unchanged', id: first.id });
    const changed = await memory.index(alice, {
      sourcePath: 'docs/Runbook.md',
      content: '# Runbook\n\nRestart the worker with the deploy tool.',
    });
    expect(changed).toMatchObject({ status: 'updated', id: first.id });
    const doc = await memory.get(alice, { id: first.id });
    expect(doc.content).toContain('deploy tool');
    expect(doc.source).toBe('file_index');
    await expectCode(memory.index(alice, { sourcePath: 'longterm/company-story', content: 'x' }), 'FORBIDDEN_KEY');
  });

  it('deletes a document with every chunk', async () => {
    const { knowledge: memory, knowledgeStore: knowledge } = await setup();
    const doc = await memory.store(alice, { content: longDocument(4) });
    expect(doc.chunkCount).toBeGreaterThan(1);
    await memory.edit(alice, { id: doc.id, intent: 'touch', newKey: '/notes/handbook' });
    const res = await memory.delete(alice, { id: doc.id });
    expect(res.deletedChunks).toBe(doc.chunkCount);
    expect(await knowledge.getDocument('acme', doc.id)).toEqual([]);
    expect(await knowledge.listVersions('acme', doc.id)).toEqual([]);
    expect(await memory.search(alice, { query: 'service restarts nightly' })).toEqual([]);
  });

  it('deletes every document of one agent (forget) with its versions and ratings, and nothing else', async () => {
    const { knowledge: memory, knowledgeStore: knowledge } = await setup();
    const marker = 'zanzibar quokka';
    const mine = await memory.store(alice, { content: `Alice runs the ${marker} deploy checklist.` });
    const long = await memory.store(alice, {
      content: `${longDocument(4)}\n\nThe ${marker} appendix.`,
      scope: 'swarm',
      tags: ['handbook'],
    });
    expect(long.chunkCount).toBeGreaterThan(1);
    await memory.edit(alice, { id: mine.id, intent: 'sharpen', content: `Alice runs the ${marker} release list.` });
    await memory.rate(alice, { id: long.id, useful: true, taskId: 't1' });
    const bobOwn = await memory.store(bob, { content: 'Bob keeps the billing retry notes.' });
    const bobLong = await memory.store(bob, { content: longDocument(3), scope: 'swarm', tags: ['handbook'] });
    await memory.edit(bob, { id: bobOwn.id, intent: 'fix', content: 'Bob keeps the billing retry runbook.' });
    await memory.rate(alice, { id: bobLong.id, useful: false, taskId: 't1' });
    const elsewhere = await memory.store(other, { content: `Globex ${marker} note.`, scope: 'swarm' });

    const removed = await knowledge.deleteByAgent('acme', 'alice');
    expect(removed).toEqual({ documents: 2, chunks: 1 + long.chunkCount, versions: 1, ratings: 1 });
    expect(await knowledge.getDocument('acme', mine.id)).toEqual([]);
    expect(await knowledge.getDocument('acme', long.id)).toEqual([]);
    expect(await knowledge.listVersions('acme', mine.id)).toEqual([]);
    for (const p of [alice, bob, lead]) {
      const hits = await memory.search(p, { query: `${marker} checklist appendix` });
      expect(hits.some((h) => h.docId === mine.id || h.docId === long.id)).toBe(false);
      expect(JSON.stringify(hits)).not.toContain('quokka');
    }
    expect(await memory.search(alice, { query: 'handbook', tags: ['handbook'] })).toSatisfy((hits: unknown[]) =>
      (hits as { docId: string }[]).every((h) => h.docId === bobLong.id),
    );
    // Bob's memories (both scopes), their versions and ratings are untouched; so is the other space.
    expect((await memory.get(bob, { id: bobOwn.id })).content).toBe('Bob keeps the billing retry runbook.');
    expect(await knowledge.listVersions('acme', bobOwn.id)).toHaveLength(1);
    const bobDoc = await knowledge.getDocument('acme', bobLong.id);
    expect(bobDoc).toHaveLength(bobLong.chunkCount);
    expect(bobDoc.every((c) => c.beta === 2)).toBe(true);
    expect((await memory.search(alice, { query: 'service restarts nightly' }))[0]?.docId).toBe(bobLong.id);
    expect((await memory.get(other, { id: elsewhere.id })).content).toContain(marker);
    expect(await knowledge.stats('acme')).toMatchObject({ documents: 2, chunks: 1 + bobLong.chunkCount });
    // Nothing left to forget.
    expect(await knowledge.deleteByAgent('acme', 'alice')).toEqual({
      documents: 0,
      chunks: 0,
      versions: 0,
      ratings: 0,
    });
  });
}
