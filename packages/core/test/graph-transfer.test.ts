/**
 * The graph lines of `mem export` / `mem import` at the service (docs/graph.md#export-and-import): a stack without a
 * graph, a worker's limits (its own records, what it sees), times from the future. The round trip through the CLI on
 * SQLite is apps/cli/test/cli-graph-transfer.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../src/adapters/hashing-embedder.js';
import { createInMemoryKnowledgeStore } from '../src/adapters/in-memory-knowledge.js';
import { createInMemoryStructuredStores } from '../src/adapters/in-memory-structured-stores.js';
import { MemError } from '../src/errors.js';
import { ManualClock } from '../src/ports/clock.js';
import { exportJsonLines, importJsonLines } from '../src/services/transfer.js';
import { createStack, type Stack } from '../src/stack.js';
import type { Principal } from '../src/types.js';

const ana: Principal = { space: 'acme', agentId: 'ana', role: 'worker' };
const bob: Principal = { space: 'acme', agentId: 'bob', role: 'worker' };
const lead: Principal = { space: 'acme', agentId: 'boss', role: 'lead' };

function stack(graph = true): Stack {
  return createStack({
    knowledge: createInMemoryKnowledgeStore(),
    embedder: createHashingEmbedder({ dimension: 16 }),
    clock: new ManualClock('2026-03-01T12:00:00.000Z'),
    ...(graph ? { structured: createInMemoryStructuredStores() } : {}),
  });
}

async function lines(s: Stack, p: Principal): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const l of exportJsonLines(s, p)) out.push(JSON.parse(JSON.stringify(l)));
  return out;
}

const jsonl = (rows: readonly unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

async function refused(promise: Promise<unknown>, code: string): Promise<string> {
  try {
    await promise;
  } catch (e) {
    expect(MemError.is(e), String(e)).toBe(true);
    expect((e as MemError).code, (e as MemError).message).toBe(code);
    return (e as MemError).message;
  }
  throw new Error(`expected ${code}`);
}

/** A source stack: ana's private entity with an observation, bob's private entity, a swarm one of bob. */
async function source(): Promise<Stack> {
  const s = stack();
  await s.knowledge.store(ana, { content: 'A memory of ana.' });
  await s.graph!.createEntities(ana, { entities: [{ name: 'Ada', entityType: 'person', observations: ['Counts'] }] });
  await s.graph!.createEntities(bob, { entities: [{ name: 'Secret Lab', entityType: 'place', observations: [] }] });
  await s.graph!.createEntities(
    bob,
    { entities: [{ name: 'Shared Hall', entityType: 'place', observations: [] }] },
    { scope: 'swarm' },
  );
  return s;
}

describe('graph lines of export and import', () => {
  it('refuses graph lines on a stack without a graph, writing nothing; memories alone import as before', async () => {
    const from = await lines(await source(), lead);
    expect(from.filter((l) => typeof l.type === 'string')).toHaveLength(8);
    const bare = stack(false);
    const message = await refused(importJsonLines(bare, lead, jsonl(from)), 'CAPABILITY_MISSING');
    expect(message).toContain('line 2: the file has 8 graph line(s)');
    expect(await lines(bare, lead)).toEqual([]);
    const report = await importJsonLines(bare, lead, jsonl(from.filter((l) => l.type === undefined)));
    expect(report).toMatchObject({
      imported: 1,
      skipped: 0,
      graph: { entities: 0, observations: 0, relations: 0, log: 0, duplicates: 0 },
    });
    expect((await lines(bare, lead)).map((l) => l.content)).toEqual(['A memory of ana.']);
  });

  it('lets a worker import its own records, not those of another agent or user, nor onto what it cannot see', async () => {
    const src = await source();
    const mine = (await lines(src, ana)).filter((l) => typeof l.type === 'string');
    // ana sees her entity and bob's swarm one; she imports what is hers into a fresh stack.
    expect(mine.filter((l) => l.type === 'graph-entity').map((l) => l.name)).toEqual(['Ada', 'Shared Hall']);
    const own = mine.filter((l) => l.agentId === 'ana');
    const to = stack();
    expect((await importJsonLines(to, ana, jsonl(own))).graph).toEqual({
      entities: 1,
      observations: 1,
      relations: 0,
      log: 2,
      duplicates: 0,
    });
    expect(await to.graph!.readGraph(ana)).toEqual(await src.graph!.readGraph({ ...ana }).then(onlyAda));
    const bobs = (await lines(src, lead)).find((l) => l.name === 'Secret Lab')!;
    await refused(importJsonLines(stack(), ana, jsonl([bobs])), 'FORBIDDEN');
    const aboutU1 = { ...own.find((l) => l.type === 'graph-entity')!, id: 'e-u1', userId: 'u1' };
    expect(await refused(importJsonLines(stack(), ana, jsonl([aboutU1])), 'FORBIDDEN')).toContain(
      'line 1: graph-entity.userId',
    );
    // An observation of ana onto bob's private entity, by its id: the id is bob's (left as it is), ana cannot see it.
    const onto = {
      type: 'graph-observation',
      id: 'o-new',
      entityId: bobs.id,
      text: 'Planted',
      agentId: 'ana',
      recordedAt: '2026-03-01T11:00:00.000Z',
      invalidatedAt: null,
      evidence: [],
    };
    const taken = { ...bobs, agentId: 'ana', name: 'Ana Lab' };
    const message = await refused(importJsonLines(src, ana, jsonl([taken, onto])), 'INVALID_INPUT');
    expect(message).toContain(`line 2: graph-observation.entityId: "${bobs.id}" names no entity`);
    const history = await src.graph!.history(bob, { name: 'Secret Lab' });
    expect(history.observations).toEqual([]);
    expect(history.entities.map((e) => e.name)).toEqual(['Secret Lab']);
  });

  it('refuses a system time from the future and a log line about a record of another kind', async () => {
    const from = (await lines(await source(), lead)).filter((l) => typeof l.type === 'string');
    const i = from.findIndex((l) => l.type === 'graph-entity');
    const later = from.map((l, j) => (j === i ? { ...l, recordedAt: '2027-01-01T00:00:00.000Z' } : l));
    const to = stack();
    expect(await refused(importJsonLines(to, lead, jsonl(later)), 'INVALID_INPUT')).toContain(
      `line ${i + 1}: graph-entity.recordedAt: 2027-01-01T00:00:00.000Z is in the future`,
    );
    const k = from.findIndex((l) => l.type === 'graph-log' && l.kind === 'entity');
    const wrongKind = from.map((l, j) => (j === k ? { ...l, kind: 'relation' } : l));
    expect(await refused(importJsonLines(to, lead, jsonl(wrongKind)), 'INVALID_INPUT')).toContain(
      `line ${k + 1}: graph-log.recordId`,
    );
    expect(await lines(to, lead)).toEqual([]);
    expect((await importJsonLines(to, lead, jsonl(from))).graph.entities).toBe(3);
  });
});

/** ana's view of the source without bob's swarm entity (she imported only her own records). */
function onlyAda(g: { entities: { name: string }[]; relations: unknown[] }) {
  return { ...g, entities: g.entities.filter((e) => e.name === 'Ada') };
}
