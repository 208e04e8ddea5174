import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack } from '@mem/core';
import { contentHash } from '@mem/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { createLanceStore, type LanceKnowledgeStore } from './index.js';
import { ReadGroup } from './read-group.js';

// Grouped reads: the grouping itself, and the content-hash lookups of the knowledge store on a real LanceDB folder.

const dirs: string[] = [];
const stores: LanceKnowledgeStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('ReadGroup', () => {
  it('runs a lone lookup at once and the lookups made meanwhile together in the next query, each answered in order', async () => {
    const queries: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((ok) => (release = ok));
    const group = new ReadGroup<number, string>(async (lookups) => {
      queries.push([...lookups]);
      if (queries.length === 1) await gate;
      return lookups.map((n) => `answer ${n}`);
    });
    const first = group.submit([1]);
    expect(queries).toEqual([[1]]); // no wait for company
    const later = [group.submit([2, 3]), group.submit([]), group.submit([4])];
    release();
    expect(await first).toEqual(['answer 1']);
    expect(await Promise.all(later)).toEqual([['answer 2', 'answer 3'], [], ['answer 4']]);
    expect(queries).toEqual([[1], [2, 3, 4]]);
  });

  it('fails every lookup of a failed query with its error, and the next group runs afresh', async () => {
    let fail = true;
    const group = new ReadGroup<number, number>(async (lookups) => {
      if (fail) throw new Error('scan failed');
      return lookups.map((n) => n * 2);
    });
    const a = group.submit([1]);
    const b = group.submit([2]);
    await expect(a).rejects.toThrow('scan failed');
    await expect(b).rejects.toThrow('scan failed');
    fail = false;
    expect(await group.submit([5])).toEqual([10]);
  });
});

describe('lancedb content-hash lookups made concurrently', () => {
  it('answer each lookup with its own document, and see every write acknowledged before them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-readgroup-'));
    dirs.push(dir);
    const knowledge = createLanceStore({ uri: dir, maintenance: { background: false } });
    stores.push(knowledge);
    const stack = createStack({ knowledge, embedder: createHashingEmbedder() });
    const alice = { space: 'acme', agentId: 'alice', role: 'worker' } as const;
    const n = 24;
    const contents = Array.from({ length: n }, (_, i) => `Deploy note ${i}: region r${i} drained before the cut-over.`);
    const stored = await Promise.all(contents.map((content) => stack.knowledge.store(alice, { content })));
    // Concurrent lookups (known hashes, an unknown one, another agent's view), each with its own answer.
    const answers = await Promise.all([
      ...contents.map((c) =>
        knowledge.findDocIdsByHashes('acme', [{ scope: 'agent', agentId: 'alice', contentHash: contentHash(c) }]),
      ),
      knowledge.findDocIdsByHashes('acme', [{ scope: 'agent', agentId: 'alice', contentHash: contentHash('never') }]),
      knowledge.findDocIdsByHashes('acme', [
        { scope: 'agent', agentId: 'bob', contentHash: contentHash(contents[0]!) },
      ]),
      knowledge.findDocIdsByHashes('other', [
        { scope: 'agent', agentId: 'alice', contentHash: contentHash(contents[0]!) },
      ]),
    ]);
    expect(answers.slice(0, n)).toEqual(stored.map((r) => [r.id]));
    expect(answers.slice(n)).toEqual([[null], [null], [null]]);
    // Stores racing each other: every one acknowledged is found by a lookup made after it, and a store of the
    // same content again is deduplicated onto it.
    const more = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const content = `Second wave ${i}: queue q${i} paused.`;
        const r = await stack.knowledge.store(alice, { content });
        const [found] = await knowledge.findDocIdsByHashes('acme', [
          { scope: 'agent', agentId: 'alice', contentHash: contentHash(content) },
        ]);
        const again = await stack.knowledge.store(alice, { content });
        return { id: r.id, found, again };
      }),
    );
    for (const m of more) {
      expect(m.found).toBe(m.id);
      expect(m.again).toMatchObject({ id: m.id, deduplicated: true });
    }
  });
});
