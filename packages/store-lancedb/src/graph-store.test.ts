import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityRecord, GraphView } from '@mem/core/adapter';
import { graphEntity, graphObservation, graphRelation } from '@mem/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createLanceGraphStore, type LanceGraphStore } from './index.js';

const AT = '2026-03-01T12:00:00.000Z';
const S = 'acme';
const view: GraphView = { viewerAgentId: 'alice', now: '2026-03-02T00:00:00.000Z' };
const dirs: string[] = [];
const stores: LanceGraphStore[] = [];

function open(): LanceGraphStore {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lancedb-graph-'));
  dirs.push(dir);
  const store = createLanceGraphStore({ uri: dir });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// The suites' records, in this test's space, as swarm records recorded at AT.
const mine = { space: S, scope: 'swarm' as const, recordedAt: AT };
const entity = (id: string, name: string, over: Partial<EntityRecord> = {}) =>
  graphEntity(id, name, { ...mine, searchText: name.toLowerCase(), updatedAt: AT, ...over });
const observation = (id: string, entityId: string, text: string) =>
  graphObservation(id, entityId, text, { space: S, recordedAt: AT });
const relation = (id: string, fromId: string, toId: string) =>
  graphRelation(id, fromId, 'knows', toId, { ...mine, evidence: [] });

const sortedIds = (rows: readonly { id: string }[]) => rows.map((r) => r.id).sort();

describe('LanceDB graph store', () => {
  it('quotes keys, words, key prefixes and ids: quotes and backslashes are plain characters, never SQL', async () => {
    const store = open();
    const odd = `o'brien \\ ') OR 1=1 --`;
    await store.write(S, {
      entities: [
        entity('e1', odd, { keys: [odd], searchText: odd.toLowerCase() }),
        entity("e'2", 'Plain', { keys: ['plain'] }),
      ],
    });
    expect(sortedIds(await store.entities(S, { keys: [odd] }, view))).toEqual(['e1']);
    expect(sortedIds(await store.entities(S, { keys: ["') OR 1=1 --"] }, view))).toEqual([]);
    expect(sortedIds(await store.entities(S, { words: ["\\ ') or"], limit: 10 }, view))).toEqual(['e1']);
    expect(await store.keys(S, ["o'b"], 10)).toEqual([{ key: odd, entityId: 'e1' }]);
    expect(await store.keys(S, ["' OR '1'='1"], 10)).toEqual([]);
    expect(sortedIds(await store.entities(S, { ids: ["e'2"] }, view))).toEqual(["e'2"]);
    expect(sortedIds(await store.entities(`${S}' OR '1'='1`, { after: null, limit: 10 }, view))).toEqual([]);
  });

  it('reads id lists longer than one IN list (slices of 500) without missing or repeating a record', async () => {
    const store = open();
    const n = 1201;
    const name = (i: number) => `n${String(i).padStart(4, '0')}`;
    const entities = Array.from({ length: n }, (_, i) => entity(name(i), name(i)));
    await store.write(S, {
      entities,
      relations: entities.slice(1).map((e, i) => relation(`r${i}`, entities[0]!.id, e.id)),
      observations: entities.map((e, i) => observation(`o${i}`, e.id, `about ${e.name}`)),
    });
    const all = entities.map((e) => e.id);
    expect((await store.entities(S, { ids: [...all, ...all] }, view)).length).toBe(n);
    expect((await store.entities(S, { keys: entities.map((e) => e.keys[0]!) }, view)).length).toBe(n);
    expect((await store.observations(S, all, view)).length).toBe(n);
    expect((await store.relations(S, { entityIds: all, direction: 'in' }, view)).length).toBe(n - 1);
    expect((await store.relations(S, { entityIds: all, direction: 'both' }, view)).length).toBe(n - 1);
    expect((await store.keys(S, ['n1'], 1000)).length).toBe(201);
    const page = await store.entities(S, { after: name(99), limit: 3 }, view);
    expect(page.map((e) => e.id)).toEqual([name(100), name(101), name(102)]);
  });

  it('pages past records the view does not see until the page is full', async () => {
    const store = open();
    const hidden = Array.from({ length: 250 }, (_, i) =>
      entity(`a${String(i).padStart(3, '0')}`, `Hidden ${i}`, { scope: 'agent', agentId: 'bob' }),
    );
    await store.write(S, { entities: [...hidden, entity('b1', 'Seen one'), entity('b2', 'Seen two')] });
    expect((await store.entities(S, { after: null, limit: 2 }, view)).map((e) => e.id)).toEqual(['b1', 'b2']);
    expect((await store.entities(S, { words: ['seen', 'hidden'], limit: 1 }, view)).map((e) => e.id)).toEqual(['b1']);
  });

  it('concurrent writes commit together; a later write of an id replaces the earlier one', async () => {
    const store = open();
    await Promise.all([
      store.write(S, { entities: [entity('e1', 'First')] }),
      store.write(S, { entities: [entity('e1', 'Second')], observations: [observation('o1', 'e1', 'x')] }),
      store.write(S, { entities: [entity('e2', 'Other'), entity('e2', 'Other again')] }),
      ...Array.from({ length: 6 }, (_, i) => store.write(S, { entities: [entity(`c${i}`, `C${i}`)] })),
    ]);
    const found = await store.entities(S, { after: null, limit: 100 }, view);
    expect(found.map((e) => e.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'e1', 'e2']);
    expect(found.find((e) => e.id === 'e1')?.name).toBe('Second');
    expect(found.find((e) => e.id === 'e2')?.name).toBe('Other again');
  });

  it('a write that fails at a later table leaves nothing: the earlier tables are put back as they were', async () => {
    const store = open();
    await store.write(S, { entities: [entity('e1', 'Ada')], observations: [observation('o1', 'e1', 'before')] });
    // A name the schema refuses (not nullable): the entities' merge-insert, the third commit, fails.
    const broken = { ...entity('e2', 'Broken'), name: null } as unknown as EntityRecord;
    await expect(
      store.write(S, {
        observations: [observation('o1', 'e1', 'after'), observation('o2', 'e2', 'new')],
        relations: [relation('r1', 'e1', 'e2')],
        entities: [broken],
      }),
    ).rejects.toThrow();
    const h = { ...view, history: true };
    expect((await store.observations(S, ['e1', 'e2'], h)).map((o) => [o.id, o.text])).toEqual([['o1', 'before']]);
    expect(await store.relations(S, { after: null, limit: 10 }, h)).toEqual([]);
    expect(sortedIds(await store.entities(S, { after: null, limit: 10 }, h))).toEqual(['e1']);
    expect(await store.keys(S, [''], 10)).toEqual([{ key: 'ada', entityId: 'e1' }]);
  });

  it('refuses calls after close with STORE_UNAVAILABLE', async () => {
    const store = open();
    await store.ready();
    await store.close();
    await expect(store.write(S, { entities: [entity('e1', 'Ada')] })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    await expect(store.entities(S, { ids: ['e1'] }, view)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
