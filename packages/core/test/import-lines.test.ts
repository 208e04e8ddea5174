import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../src/adapters/hashing-embedder.js';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { MemError } from '../src/errors.js';
import { ManualClock } from '../src/ports/clock.js';
import { createStack } from '../src/stack.js';
import type { Principal } from '../src/types.js';

const alice: Principal = { space: 'acme', agentId: 'alice', role: 'worker' };

function stack() {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder({ dimension: 16 }),
    clock: new ManualClock('2026-03-01T12:00:00.000Z'),
  });
}

describe('importLines in batches', () => {
  it('reports each bad line by its number across batch boundaries, and imports the rest', async () => {
    const { knowledge: memory } = stack();
    const lines: string[] = [];
    for (let i = 0; i < 12; i++) lines.push(JSON.stringify({ content: `fact number ${i}` }));
    lines[2] = '{not json';
    lines[5] = JSON.stringify({ content: 'fact number 0' });
    lines[7] = JSON.stringify({ content: 'x', key: '/same/key' });
    lines[8] = '';
    lines[9] = JSON.stringify({ content: 'y', key: '/same/key' });
    lines[10] = JSON.stringify({ content: 'z', agentId: 'bob' });
    const seen: number[] = [];
    const report = await memory.importLines(alice, lines.join('\n'), {
      batchSize: 4,
      onLine: (done, total) => {
        seen.push(done);
        expect(total).toBe(11);
      },
    });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(report.errors.map((e) => [e.line, e.code])).toEqual([
      [3, 'INVALID_INPUT'],
      [10, 'KEY_TAKEN'],
      [11, 'FORBIDDEN'],
    ]);
    expect(report).toMatchObject({ imported: 7, duplicates: 1, skipped: 3 });
    expect((await memory.stats(alice)).documents).toBe(7);
  });

  it('storeMany dedups within the batch and returns one entry per input', async () => {
    const { knowledge: memory } = stack();
    const results = await memory.storeMany(alice, [{ content: 'same' }, { content: 'same' }, { content: '' }]);
    expect(results).toHaveLength(3);
    const [a, b, c] = results;
    expect(MemError.is(a)).toBe(false);
    expect(b).toMatchObject({ id: (a as { id: string }).id, deduplicated: true });
    expect(MemError.is(c, 'INVALID_INPUT')).toBe(true);
  });
});
