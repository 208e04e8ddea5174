import type { EntityRecord, GraphStore, GraphView, ObservationRecord, RelationRecord } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { describeGraphService } from './graph-service.js';
import { at, type PortFactory, type PortSuiteOptions, withFixture } from './port-fixture.js';
import { A, B } from './structured/shared.js';

const view = (over: Partial<GraphView> = {}): GraphView => ({ viewerAgentId: 'alice', now: at(100), ...over });

/** An entity record of the suites (space A, agent alice, recorded at `at(1)`), changed by `over`. */
export function entity(id: string, name: string, over: Partial<EntityRecord> = {}): EntityRecord {
  return {
    id,
    space: A,
    scope: 'agent',
    agentId: 'alice',
    userId: null,
    name,
    entityType: 'person',
    aliases: [],
    keys: [name.toLowerCase()],
    searchText: `${name.toLowerCase()}\nperson`,
    mergedInto: null,
    validFrom: null,
    validTo: null,
    recordedAt: at(1),
    invalidatedAt: null,
    evidence: [],
    updatedAt: at(1),
    ...over,
  };
}

/** A relation record of the suites, changed by `over`. */
export const relation = (
  id: string,
  fromId: string,
  relationType: string,
  toId: string,
  over: Partial<RelationRecord> = {},
): RelationRecord => ({
  id,
  space: A,
  scope: 'agent',
  agentId: 'alice',
  userId: null,
  fromId,
  relationType,
  toId,
  validFrom: null,
  validTo: null,
  recordedAt: at(1),
  invalidatedAt: null,
  evidence: ['m1'],
  ...over,
});

/** An observation record of the suites, changed by `over`. */
export const observation = (
  id: string,
  entityId: string,
  text: string,
  over: Partial<ObservationRecord> = {},
): ObservationRecord => ({
  id,
  space: A,
  entityId,
  text,
  agentId: 'alice',
  recordedAt: at(1),
  invalidatedAt: null,
  evidence: [],
  ...over,
});

const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id).sort();

export function describeGraphStore(
  name: string,
  factory: PortFactory<GraphStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`GraphStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('keeps every field of entities, observations, relations and log lines exactly', () =>
      withFixture(factory, async ({ store }) => {
        const e = entity('e1', 'Ada Lovelace', {
          aliases: ['Countess of Lovelace', 'Ada'],
          keys: ['ada lovelace', 'countess of lovelace', 'ada'],
          userId: 'u1',
          scope: 'swarm',
          validFrom: at(0),
          evidence: ['m1', 'm2'],
          searchText: 'ada lovelace\n東京 ünïcode',
        });
        const o = observation('o1', 'e1', 'Wrote the first program — 1843 🎉', { evidence: ['m2'] });
        const r = relation('r1', 'e1', 'works_with', 'e1', { userId: 'u1', scope: 'swarm' });
        const log = {
          id: 'l1',
          space: A,
          recordId: 'e1',
          kind: 'entity' as const,
          decision: 'add' as const,
          at: at(1),
          by: 'create_entities',
          agentId: 'alice',
          evidence: ['m1'],
          detail: { name: 'Ada Lovelace', nested: { n: 1, list: [true, null] } },
        };
        await store.write(A, { entities: [e], observations: [o], relations: [r], log: [log] });
        const v = view({ userId: 'u1' });
        expect(await store.entities(A, { ids: ['e1'] }, v)).toEqual([e]);
        expect(await store.observations(A, ['e1'], v)).toEqual([o]);
        expect(await store.relations(A, { entityIds: ['e1'], direction: 'both' }, v)).toEqual([r]);
        expect(await store.log(A, ['e1'])).toEqual([log]);
      }));

    it('finds entities by any of their keys, an upsert replaces the keys', () =>
      withFixture(factory, async ({ store }) => {
        await store.write(A, {
          entities: [
            entity('e1', 'Acme Inc.', { keys: ['acme', 'acme corporation'] }),
            entity('e2', 'Globex', { keys: ['globex'] }),
          ],
        });
        expect(ids(await store.entities(A, { keys: ['acme corporation'] }, view()))).toEqual(['e1']);
        expect(ids(await store.entities(A, { keys: ['globex', 'acme', 'nobody'] }, view()))).toEqual(['e1', 'e2']);
        await store.write(A, { entities: [entity('e1', 'Acme Inc.', { keys: ['acme'] })] });
        expect(await store.entities(A, { keys: ['acme corporation'] }, view())).toEqual([]);
        expect(ids(await store.entities(A, { keys: ['acme'] }, view()))).toEqual(['e1']);
        expect(await store.entities(A, { keys: [] }, view())).toEqual([]);
      }));

    it('reads resolution keys by prefix: case and wildcards exact, in their space, at most limit per prefix', () =>
      withFixture(factory, async ({ store }) => {
        await store.write(A, {
          entities: [
            entity('e1', 'Katherine Ng', { keys: ['katherine ng', 'kat'] }),
            entity('e2', 'Kathy', { keys: ['kathy'] }),
            entity('e3', 'Kim', { keys: ['kim'] }),
            entity('e4', 'C++', { keys: ['c++'] }),
            entity('e5', 'Kate%', { keys: ['kat%e'] }),
          ],
        });
        await store.write(B, { entities: [entity('e9', 'Kath', { space: B, keys: ['kath'] })] });
        const keys = (xs: { key: string; entityId: string }[]) => xs.map((k) => `${k.key}:${k.entityId}`);
        expect(keys(await store.keys(A, ['kat'], 10))).toEqual(['kat:e1', 'kat%e:e5', 'katherine ng:e1', 'kathy:e2']);
        expect(keys(await store.keys(A, ['kath', 'c+'], 10))).toEqual(['katherine ng:e1', 'kathy:e2', 'c++:e4']);
        expect(keys(await store.keys(A, ['kat', 'ki'], 2))).toEqual(['kat:e1', 'kat%e:e5', 'kim:e3']);
        expect(await store.keys(A, ['KAT', 'k_t', 'k%', 'k*'], 10)).toEqual([]);
        expect(await store.keys(A, [], 10)).toEqual([]);
      }));

    it('shows swarm records and the viewer agent’s own, about no user or the viewer’s user', () =>
      withFixture(factory, async ({ store }) => {
        await store.write(A, {
          entities: [
            entity('e1', 'Mine'),
            entity('e2', 'Bobs', { agentId: 'bob' }),
            entity('e3', 'Shared', { agentId: 'bob', scope: 'swarm' }),
            entity('e4', 'About u1', { userId: 'u1', scope: 'swarm', agentId: 'bob' }),
          ],
          relations: [relation('r1', 'e1', 'knows', 'e3'), relation('r2', 'e3', 'knows', 'e1', { agentId: 'bob' })],
        });
        const all = ['e1', 'e2', 'e3', 'e4'];
        expect(ids(await store.entities(A, { ids: all }, view()))).toEqual(['e1', 'e3']);
        expect(ids(await store.entities(A, { ids: all }, view({ viewerAgentId: 'bob' })))).toEqual(['e2', 'e3']);
        expect(ids(await store.entities(A, { ids: all }, view({ userId: 'u1' })))).toEqual(['e1', 'e3', 'e4']);
        expect(ids(await store.entities(A, { ids: all }, view({ userId: 'u2' })))).toEqual(['e1', 'e3']);
        expect(ids(await store.relations(A, { entityIds: ['e1'], direction: 'both' }, view()))).toEqual(['r1']);
        expect(
          ids(await store.relations(A, { entityIds: ['e1'], direction: 'both' }, view({ viewerAgentId: 'bob' }))),
        ).toEqual(['r2']);
      }));

    it('sees every owner with everyOwner, and reads relations, observations and log lines by their own ids', () =>
      withFixture(factory, async ({ store }) => {
        const line = (id: string, recordId: string, kind: 'entity' | 'relation' | 'observation') => ({
          id,
          space: A,
          recordId,
          kind,
          decision: 'add' as const,
          at: at(1),
          by: 'suite',
          agentId: 'bob',
          evidence: [],
          detail: {},
        });
        await store.write(A, {
          entities: [
            entity('e1', 'Mine'),
            entity('e2', 'Bobs', { agentId: 'bob' }),
            entity('e3', 'About u1', { agentId: 'bob', userId: 'u1', invalidatedAt: at(5) }),
          ],
          relations: [
            relation('r1', 'e1', 'knows', 'e2', { agentId: 'bob' }),
            relation('r2', 'e2', 'knows', 'e3', { agentId: 'bob', userId: 'u1' }),
          ],
          observations: [observation('o1', 'e2', 'one'), observation('o2', 'e3', 'two', { invalidatedAt: at(5) })],
          log: [line('l1', 'e2', 'entity'), line('l2', 'r2', 'relation'), line('l3', 'o2', 'observation')],
        });
        await store.write(B, { relations: [relation('r9', 'e1', 'knows', 'e2', { space: B })] });
        const every = view({ everyOwner: true, history: true });
        expect(ids(await store.entities(A, { ids: ['e1', 'e2', 'e3'] }, every))).toEqual(['e1', 'e2', 'e3']);
        expect(ids(await store.entities(A, { after: null, limit: 10 }, view({ everyOwner: true })))).toEqual([
          'e1',
          'e2',
        ]);
        expect(ids(await store.relations(A, { ids: ['r1', 'r2', 'r9'] }, every))).toEqual(['r1', 'r2']);
        expect(ids(await store.relations(A, { ids: ['r1', 'r2'] }, view()))).toEqual([]);
        expect(ids(await store.relations(A, { ids: ['r2'] }, view({ viewerAgentId: 'bob', userId: 'u1' })))).toEqual([
          'r2',
        ]);
        expect(ids(await store.relations(A, { ids: [] }, every))).toEqual([]);
        expect(ids(await store.observations(A, { ids: ['o2', 'o1', 'e2'] }, every))).toEqual(['o1', 'o2']);
        expect(ids(await store.observations(A, { ids: ['o1', 'o2'] }, view()))).toEqual(['o1']);
        expect(ids(await store.observations(B, { ids: ['o1'] }, every))).toEqual([]);
        expect(ids(await store.log(A, { ids: ['l3', 'l1', 'e2'] }))).toEqual(['l1', 'l3']);
        expect(ids(await store.log(A, ['e2', 'o2']))).toEqual(['l1', 'l3']);
        expect(await store.log(B, { ids: ['l1'] })).toEqual([]);
      }));

    it('reads what is current, what held at a time, or every record', () =>
      withFixture(factory, async ({ store }) => {
        await store.write(A, {
          entities: [
            entity('e1', 'Open'),
            entity('e2', 'Closed', { recordedAt: at(1), invalidatedAt: at(50), validTo: at(50) }),
            entity('e3', 'Merged', { mergedInto: 'e1' }),
            entity('e4', 'Later', { recordedAt: at(60) }),
            entity('e5', 'Ended', { validTo: at(90) }),
          ],
          relations: [
            relation('r1', 'e1', 'was', 'e2', { invalidatedAt: at(50), validTo: at(50) }),
            relation('r2', 'e1', 'is', 'e4', { recordedAt: at(60) }),
          ],
          observations: [
            observation('o1', 'e1', 'old', { invalidatedAt: at(50) }),
            observation('o2', 'e1', 'new', { recordedAt: at(60) }),
          ],
        });
        const every = ['e1', 'e2', 'e3', 'e4', 'e5'];
        expect(ids(await store.entities(A, { ids: every }, view()))).toEqual(['e1', 'e4']);
        expect(ids(await store.entities(A, { ids: every }, view({ now: at(80) })))).toEqual(['e1', 'e4', 'e5']);
        expect(ids(await store.entities(A, { ids: every }, view({ asOf: at(10) })))).toEqual(['e1', 'e2', 'e3', 'e5']);
        expect(ids(await store.entities(A, { ids: every }, view({ history: true })))).toEqual(every);
        expect(ids(await store.relations(A, { entityIds: ['e1'], direction: 'out' }, view()))).toEqual(['r2']);
        expect(ids(await store.relations(A, { entityIds: ['e1'], direction: 'out' }, view({ asOf: at(10) })))).toEqual([
          'r1',
        ]);
        expect((await store.observations(A, ['e1'], view())).map((o) => o.text)).toEqual(['new']);
        expect((await store.observations(A, ['e1'], view({ asOf: at(10) }))).map((o) => o.text)).toEqual(['old']);
        expect((await store.observations(A, ['e1'], view({ history: true }))).map((o) => o.text)).toEqual([
          'old',
          'new',
        ]);
      }));

    it('word search matches inside the search text (wildcards literal), pages go by id', () =>
      withFixture(factory, async ({ store }) => {
        const many = Array.from({ length: 12 }, (_, i) =>
          entity(`e${String(i).padStart(2, '0')}`, `N${i}`, {
            searchText: i % 3 === 0 ? `speaks portuguese ${i}` : `n${i} 100%_done`,
          }),
        );
        await store.write(A, { entities: many });
        expect(ids(await store.entities(A, { words: ['portug'], limit: 10 }, view()))).toEqual([
          'e00',
          'e03',
          'e06',
          'e09',
        ]);
        expect(ids(await store.entities(A, { words: ['portug'], limit: 2 }, view()))).toEqual(['e00', 'e03']);
        expect((await store.entities(A, { words: ['%_'], limit: 20 }, view())).length).toBe(8);
        expect(await store.entities(A, { words: ['o%e'], limit: 20 }, view())).toEqual([]);
        const first = await store.entities(A, { after: null, limit: 5 }, view());
        const second = await store.entities(A, { after: first.at(-1)!.id, limit: 5 }, view());
        const third = await store.entities(A, { after: second.at(-1)!.id, limit: 5 }, view());
        expect([...first, ...second, ...third].map((e) => e.id)).toEqual(many.map((e) => e.id));
        await store.write(A, {
          relations: many
            .slice(1)
            .map((e, i) => relation(`r${String(i).padStart(2, '0')}`, many[0]!.id, 'knows', e.id)),
        });
        const page = await store.relations(A, { after: 'r04', limit: 3 }, view());
        expect(page.map((r) => r.id)).toEqual(['r05', 'r06', 'r07']);
        expect(ids(await store.relations(A, { entityIds: ['e05'], direction: 'in' }, view()))).toEqual(['r04']);
        expect(await store.relations(A, { entityIds: ['e05'], direction: 'out' }, view())).toEqual([]);
      }));

    it('forgets an agent or a user for good: their records, relations touching them, observations, log; spaces apart', () =>
      withFixture(factory, async ({ store }) => {
        const write = (space: string) =>
          store.write(space, {
            entities: [
              entity('e1', 'Alices', { space }),
              entity('e2', 'Bobs', { space, agentId: 'bob', scope: 'swarm' }),
              entity('e3', 'About u1', { space, agentId: 'bob', scope: 'swarm', userId: 'u1' }),
            ],
            relations: [
              relation('r1', 'e2', 'knows', 'e1', { space, agentId: 'bob' }),
              relation('r2', 'e2', 'knows', 'e3', { space, agentId: 'bob' }),
            ],
            observations: [
              observation('o1', 'e2', 'alice said so', { space }),
              observation('o2', 'e2', 'bob said so', { space, agentId: 'bob' }),
            ],
            log: ['e1', 'e2', 'r1', 'o1', 'o2'].map((recordId, i) => ({
              id: `l${i}`,
              space,
              recordId,
              kind: 'entity' as const,
              decision: 'add' as const,
              at: at(i),
              by: 'suite',
              agentId: 'alice',
              evidence: [],
              detail: {},
            })),
          });
        await write(A);
        await write(B);
        expect(await store.deleteOwner(A, { agentId: 'alice' })).toEqual({
          entities: 1,
          observations: 1,
          relations: 1,
          log: 3,
        });
        const h = view({ history: true, viewerAgentId: 'bob', userId: 'u1' });
        expect(ids(await store.entities(A, { ids: ['e1', 'e2', 'e3'] }, h))).toEqual(['e2', 'e3']);
        expect(ids(await store.relations(A, { entityIds: ['e2'], direction: 'both' }, h))).toEqual(['r2']);
        expect((await store.observations(A, ['e2'], h)).map((o) => o.id)).toEqual(['o2']);
        // What alice said of bob's entity leaves its search text too.
        expect((await store.entities(A, { ids: ['e2'] }, h))[0]!.searchText).toBe('bobs\nperson\nbob said so');
        expect(ids(await store.log(A, ['e1', 'e2', 'r1', 'o1', 'o2']))).toEqual(['l1', 'l4']);
        expect(await store.entities(A, { keys: ['alices'] }, h)).toEqual([]);
        expect(await store.deleteOwner(A, { userId: 'u1' })).toEqual({
          entities: 1,
          observations: 0,
          relations: 1,
          log: 0,
        });
        expect(ids(await store.entities(A, { ids: ['e1', 'e2', 'e3'] }, h))).toEqual(['e2']);
        expect(ids(await store.entities(B, { ids: ['e1', 'e2', 'e3'] }, h))).toEqual(
          ['e1', 'e2', 'e3'].filter((e) => e !== 'e1' || true).slice(1),
        );
        expect(ids(await store.entities(B, { ids: ['e1'] }, view({ history: true })))).toEqual(['e1']);
      }));

    it('forgets by message: what rests only on those messages, with what hangs on a removed entity; the rest stays', () =>
      withFixture(factory, async ({ store }) => {
        await store.write(A, {
          entities: [
            entity('e1', 'Lisbon', { evidence: ['m1'] }),
            entity('e2', 'User', { evidence: ['m1', 'm2'] }),
            entity('e3', 'Hand made', { evidence: [] }),
          ],
          relations: [
            relation('r1', 'e2', 'lives_in', 'e1', { evidence: ['m1'] }),
            relation('r2', 'e2', 'likes', 'e3', { evidence: ['m2', 'm3'] }),
            relation('r3', 'e3', 'near', 'e1', { evidence: ['m9'] }),
          ],
          observations: [
            observation('o1', 'e2', 'said in m1', { evidence: ['m1'] }),
            observation('o2', 'e2', 'said in m2', { evidence: ['m2'] }),
          ],
        });
        await store.write(B, { entities: [entity('e1', 'Lisbon', { space: B, evidence: ['m1'] })] });
        expect(await store.deleteByEvidence(A, ['m1', 'm3'])).toEqual({
          entities: 1,
          observations: 1,
          relations: 2,
          log: 0,
        });
        const h = view({ history: true });
        expect(ids(await store.entities(A, { ids: ['e1', 'e2', 'e3'] }, h))).toEqual(['e2', 'e3']);
        expect(ids(await store.relations(A, { after: null, limit: 10 }, h))).toEqual(['r2']);
        expect((await store.observations(A, ['e2'], h)).map((o) => o.id)).toEqual(['o2']);
        expect((await store.entities(A, { ids: ['e2'] }, h))[0]!.searchText).toBe('user\nperson\nsaid in m2');
        expect(ids(await store.entities(B, { ids: ['e1'] }, h))).toEqual(['e1']);
        expect(await store.deleteByEvidence(A, [])).toEqual({ entities: 0, observations: 0, relations: 0, log: 0 });
      }));

    it('another connection sees what was written', () =>
      withFixture(factory, async ({ store, openAnother }) => {
        if (!openAnother) return;
        await store.write(A, { entities: [entity('e1', 'Ada')], observations: [observation('o1', 'e1', 'math')] });
        const other = await openAnother();
        expect(ids(await other.entities(A, { keys: ['ada'] }, view()))).toEqual(['e1']);
        expect((await other.observations(A, ['e1'], view())).map((o) => o.text)).toEqual(['math']);
      }));

    describeGraphService(factory);
  });
}
