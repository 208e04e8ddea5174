/**
 * The graph conformance suite's flows through the graph service (docs/graph.md): the MCP memory server's operations,
 * closing and as-of, merge and unmerge, neighbours and history, and the JSONL round trip, on the store under test.
 */
import type { Principal } from '@mem/core';
import { GraphService, type GraphStore, ManualClock } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { expectMemError, type PortFactory, withFixture } from './port-fixture.js';
import { A } from './structured/shared.js';

export function describeGraphService(factory: PortFactory<GraphStore>): void {
  describe('the MCP memory server’s operations on it', () => {
    const alice: Principal = { space: A, agentId: 'alice', role: 'worker' };
    const service = (store: GraphStore, clock = new ManualClock('2026-03-01T10:00:00.000Z')) =>
      new GraphService({ store, clock });

    it('create, add, relate, open, search, read: the answers that server gives', () =>
      withFixture(factory, async ({ store }) => {
        const g = service(store);
        const created = await g.createEntities(alice, {
          entities: [
            { name: 'Ada Lovelace', entityType: 'person', observations: ['Wrote the first program'] },
            { name: 'Analytical Engine', entityType: 'machine', observations: [] },
          ],
        });
        expect(created.entities.map((e) => e.name)).toEqual(['Ada Lovelace', 'Analytical Engine']);
        expect(
          (
            await g.createEntities(alice, {
              entities: [{ name: 'Ada Lovelace', entityType: 'person', observations: [] }],
            })
          ).entities,
        ).toEqual([]);
        expect(
          await g.createRelations(alice, {
            relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }],
          }),
        ).toEqual({ relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }] });
        expect(
          (
            await g.createRelations(alice, {
              relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }],
            })
          ).relations,
        ).toEqual([]);
        expect(
          await g.addObservations(alice, {
            observations: [{ entityName: 'Ada Lovelace', contents: ['Born 1815', 'Wrote the first program'] }],
          }),
        ).toEqual({
          results: [{ entityName: 'Ada Lovelace', addedObservations: ['Born 1815'] }],
        });
        await expectMemError(
          g.addObservations(alice, { observations: [{ entityName: 'Nobody', contents: ['x'] }] }),
          'NOT_FOUND',
        );
        expect(await g.openNodes(alice, { names: ['Ada Lovelace'] })).toEqual({
          entities: [
            { name: 'Ada Lovelace', entityType: 'person', observations: ['Wrote the first program', 'Born 1815'] },
          ],
          relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }],
        });
        expect((await g.searchNodes(alice, { query: '1815' })).entities.map((e) => e.name)).toEqual(['Ada Lovelace']);
        expect((await g.searchNodes(alice, { query: 'machine' })).entities.map((e) => e.name)).toEqual([
          'Analytical Engine',
        ]);
        const graph = await g.readGraph(alice);
        expect(graph.entities.map((e) => e.name)).toEqual(['Ada Lovelace', 'Analytical Engine']);
        expect(graph.relations).toHaveLength(1);
        expect(await g.readGraph({ ...alice, agentId: 'bob' })).toEqual({ entities: [], relations: [] });
      }));

    it('deleting closes (the graph as of before still has it), names resolve by their normalised form', () =>
      withFixture(factory, async ({ store }) => {
        const clock = new ManualClock('2026-03-01T10:00:00.000Z');
        const g = service(store, clock);
        await g.createEntities(alice, {
          entities: [
            { name: 'Acme Inc.', entityType: 'organization', observations: ['Makes anvils'] },
            { name: 'Wile E. Coyote', entityType: 'person', observations: [] },
          ],
        });
        await g.createRelations(alice, {
          relations: [{ from: 'Wile E. Coyote', to: 'ACME', relationType: 'buys_from' }],
        });
        expect((await g.openNodes(alice, { names: ['acme'] })).relations).toEqual([
          { from: 'Wile E. Coyote', to: 'Acme Inc.', relationType: 'buys_from' },
        ]);
        clock.set('2026-03-02T10:00:00.000Z');
        await g.deleteObservations(alice, {
          deletions: [{ entityName: 'Acme Inc.', observations: ['Makes anvils'] }],
        });
        await g.deleteEntities(alice, { entityNames: ['Wile E. Coyote'] });
        expect(await g.readGraph(alice)).toEqual({
          entities: [{ name: 'Acme Inc.', entityType: 'organization', observations: [] }],
          relations: [],
        });
        const before = await g.readGraph(alice, {}, { asOf: '2026-03-01T12:00:00.000Z' });
        expect(before.entities.map((e) => e.name)).toEqual(['Acme Inc.', 'Wile E. Coyote']);
        expect(before.entities[0]!.observations).toEqual(['Makes anvils']);
        expect(before.relations).toHaveLength(1);
      }));

    it('merge moves observations, relations and names; unmerge gives the graph back; neighbours and history', () =>
      withFixture(factory, async ({ store }) => {
        const clock = new ManualClock('2026-03-01T10:00:00.000Z');
        const g = service(store, clock);
        await g.createEntities(alice, {
          entities: [
            { name: 'Acme Inc.', entityType: 'organization', observations: ['Makes anvils'] },
            { name: 'ACME Anvils', entityType: 'organization', observations: ['Ships by rocket', 'Makes anvils'] },
            { name: 'Wile E. Coyote', entityType: 'person', observations: [] },
            { name: 'Arizona', entityType: 'place', observations: [] },
          ],
        });
        await g.createRelations(alice, {
          relations: [
            { from: 'Wile E. Coyote', to: 'ACME Anvils', relationType: 'buys_from' },
            { from: 'ACME Anvils', to: 'Arizona', relationType: 'located_in' },
          ],
        });
        const sorted = (x: { entities: { name: string }[]; relations: { from: string; relationType: string }[] }) => ({
          entities: [...x.entities].sort((a, b) => a.name.localeCompare(b.name)),
          relations: [...x.relations].sort((a, b) => (a.from + a.relationType).localeCompare(b.from + b.relationType)),
        });
        const before = sorted(await g.readGraph(alice));
        clock.advance(60_000);
        expect(await g.merge(alice, { entity: 'ACME Anvils', into: 'Acme Inc.' })).toEqual({
          entity: 'ACME Anvils',
          into: 'Acme Inc.',
          observations: 1,
          relations: 2,
        });
        expect(await g.openNodes(alice, { names: ['acme anvils'] })).toEqual({
          entities: [
            { name: 'Acme Inc.', entityType: 'organization', observations: ['Makes anvils', 'Ships by rocket'] },
          ],
          relations: [
            { from: 'Wile E. Coyote', to: 'Acme Inc.', relationType: 'buys_from' },
            { from: 'Acme Inc.', to: 'Arizona', relationType: 'located_in' },
          ],
        });
        expect((await g.readGraph(alice)).entities.map((e) => e.name).sort()).toEqual([
          'Acme Inc.',
          'Arizona',
          'Wile E. Coyote',
        ]);
        const around = await g.neighbours(alice, { name: 'Wile E. Coyote', hops: 2 });
        expect(around.entities.map((e) => [e.name, e.hops])).toEqual([
          ['Wile E. Coyote', 0],
          ['Acme Inc.', 1],
          ['Arizona', 2],
        ]);
        expect((await g.neighbours(alice, { name: 'Wile E. Coyote' })).entities.map((e) => e.name)).toEqual([
          'Wile E. Coyote',
          'Acme Inc.',
        ]);
        await expectMemError(g.merge(alice, { entity: 'Acme Inc.', into: 'acme anvils' }), 'INVALID_INPUT');
        await expectMemError(g.merge(alice, { entity: 'Nobody', into: 'Acme Inc.' }), 'NOT_FOUND');

        clock.advance(60_000);
        expect(await g.unmerge(alice, { entity: 'ACME Anvils' })).toEqual({
          entity: 'ACME Anvils',
          from: 'Acme Inc.',
        });
        expect(sorted(await g.readGraph(alice))).toEqual(before);
        await expectMemError(g.unmerge(alice, { entity: 'ACME Anvils' }), 'NOT_FOUND');
        const history = await g.history(alice, { name: 'ACME Anvils' });
        expect(history.log.filter((l) => l.kind === 'entity').map((l) => l.decision)).toEqual([
          'add',
          'merge',
          'unmerge',
        ]);
        expect(history.relations.length).toBeGreaterThanOrEqual(2);
      }));

    it('a new name that is another form of a known one (same type) is merged into it, logged and undoable', () =>
      withFixture(factory, async ({ store }) => {
        const clock = new ManualClock('2026-03-01T10:00:00.000Z');
        const g = service(store, clock);
        await g.createEntities(alice, {
          entities: [
            { name: 'Philadelphia', entityType: 'place', observations: ['Where Sam grew up'] },
            { name: 'Emily Stone', entityType: 'person', observations: [] },
          ],
        });
        clock.advance(1000);
        const created = await g.createEntities(alice, {
          entities: [
            { name: 'Philadephia', entityType: 'place', observations: ['Has the Liberty Bell'] },
            { name: 'Emma Stone', entityType: 'person', observations: [] },
            { name: 'Dr. Emily Stone', entityType: 'organization', observations: [] },
          ],
        });
        // The answer lists what was written, as the memory server's does; the graph shows one Philadelphia.
        expect(created.entities.map((e) => e.name)).toEqual(['Philadephia', 'Emma Stone', 'Dr. Emily Stone']);
        expect((await g.readGraph(alice)).entities.map((e) => e.name).sort()).toEqual([
          'Dr. Emily Stone',
          'Emily Stone',
          'Emma Stone',
          'Philadelphia',
        ]);
        expect(await g.openNodes(alice, { names: ['Philadephia'] })).toEqual({
          entities: [
            {
              name: 'Philadelphia',
              entityType: 'place',
              observations: ['Where Sam grew up', 'Has the Liberty Bell'],
            },
          ],
          relations: [],
        });
        const merge = (await g.history(alice, { name: 'Philadephia' })).log.find((l) => l.decision === 'merge');
        expect(merge?.detail).toMatchObject({ resolution: 'similar', matched: 'similar', kind: 'spelling' });
        expect(await g.unmerge(alice, { entity: 'Philadephia' })).toEqual({
          entity: 'Philadephia',
          from: 'Philadelphia',
        });
        expect((await g.openNodes(alice, { names: ['Philadephia'] })).entities).toEqual([
          { name: 'Philadephia', entityType: 'place', observations: ['Has the Liberty Bell'] },
        ]);
        // Off for a write that asks for it so (the memory server's import asks for exact names only).
        const off = { entities: [{ name: 'Philladelphia', entityType: 'place', observations: [] }] };
        await g.createEntities(alice, off, { similar: false });
        expect((await g.openNodes(alice, { names: ['Philladelphia'] })).entities.map((e) => e.name)).toEqual([
          'Philladelphia',
        ]);
      }));

    it('aliases: a known entity gains names it resolves by, logged; an unknown one is NOT_FOUND', () =>
      withFixture(factory, async ({ store }) => {
        const g = service(store);
        await g.createEntities(alice, { entities: [{ name: 'User u1', entityType: 'person', observations: [] }] });
        expect(await g.addAliases(alice, 'User u1', ['u1', 'Ada', 'ada'])).toEqual(['u1', 'Ada']);
        expect(await g.addAliases(alice, 'user u1', ['ADA'])).toEqual([]);
        expect((await g.openNodes(alice, { names: ['ada'] })).entities.map((e) => e.name)).toEqual(['User u1']);
        const log = (await g.history(alice, { name: 'User u1' })).log.map((l) => l.detail);
        expect(log).toContainEqual({ aliasesAdded: ['u1', 'Ada'] });
        await expectMemError(g.addAliases(alice, 'Nobody', ['x']), 'NOT_FOUND');
        await expectMemError(g.addAliases(alice, 'User u1', ['!!!']), 'INVALID_INPUT');
      }));

    it('JSONL import then export gives the same file back', () =>
      withFixture(factory, async ({ store }) => {
        const g = service(store);
        const file = [
          '{"type":"entity","name":"alice","entityType":"person","observations":["likes tea"]}',
          '{"type":"entity","name":"Alice","entityType":"person","observations":[]}',
          '{"type":"entity","name":"Bob","entityType":"person","observations":["a","b"]}',
          '{"type":"relation","from":"alice","to":"Bob","relationType":"knows"}',
          '{"type":"relation","from":"Bob","to":"Carol","relationType":"knows"}',
        ].join('\n');
        expect(await g.importJsonl(alice, file)).toEqual({ entities: 3, relations: 2 });
        expect(await g.exportJsonl(alice)).toBe(file);
      }));
  });
}
