import { type GoalStore, guardGoalStore, guardSummaryStore, type SummaryStore } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { at, expectMemError, type PortFactory, type PortSuiteOptions, withFixture } from '../port-fixture.js';
import { A, B, checkDeleteSessions } from './shared.js';

// ---------- GoalStore ----------

export function describeGoalStore(name: string, factory: PortFactory<GoalStore>, options: PortSuiteOptions = {}): void {
  describe(`GoalStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    const goal = (id: string, text: string, topic: string | null = null, minute = 0, user = 'u1') => ({
      id,
      user,
      topic,
      goal: text,
      metadata: { priority: 'high' },
      at: at(minute),
    });

    it('keeps one active goal per user and topic, with history', () =>
      withFixture(factory, async ({ store }) => {
        const first = await store.setActive(A, goal('g1', 'Ship the beta'));
        expect(first.replaced).toBeNull();
        expect(first.goal).toMatchObject({
          id: 'g1',
          status: 'active',
          goal: 'Ship the beta',
          metadata: { priority: 'high' },
        });
        const second = await store.setActive(A, goal('g2', 'Ship the GA', null, 5));
        expect(second.replaced).toMatchObject({ id: 'g1', status: 'replaced', updatedAt: at(5) });
        await store.setActive(A, goal('g3', 'Find a hotel', 'travel', 6));
        expect(await store.getActive(A, 'u1', null)).toMatchObject({ id: 'g2', status: 'active' });
        expect(await store.getActive(A, 'u1', 'travel')).toMatchObject({ id: 'g3' });
        expect(await store.getActive(A, 'u1', 'other')).toBeNull();
        const done = await store.finish(A, 'u1', null, 'completed', at(9));
        expect(done).toMatchObject({ id: 'g2', status: 'completed', updatedAt: at(9) });
        expect(await store.getActive(A, 'u1', null)).toBeNull();
        expect(await store.finish(A, 'u1', null, 'abandoned', at(10))).toBeNull();
        expect((await store.list(A, 'u1')).map((g) => [g.id, g.status])).toEqual([
          ['g3', 'active'],
          ['g2', 'completed'],
          ['g1', 'replaced'],
        ]);
        expect((await store.list(A, 'u1', { topic: null })).map((g) => g.id)).toEqual(['g2', 'g1']);
        expect((await store.list(A, 'u1', { topic: 'travel' })).map((g) => g.id)).toEqual(['g3']);
        expect((await store.list(A, 'u1', { limit: 1 })).map((g) => g.id)).toEqual(['g3']);
      }));

    it('never crosses spaces or users; deletes all goals of a user', () =>
      withFixture(factory, async ({ store }) => {
        await store.setActive(A, goal('g1', 'acme goal'));
        await store.setActive(B, goal('g1', 'globex goal'));
        await store.setActive(A, goal('g2', 'other user goal', null, 0, 'u2'));
        expect((await store.getActive(B, 'u1', null))?.goal).toBe('globex goal');
        expect((await store.getActive(A, 'u2', null))?.goal).toBe('other user goal');
        expect(await store.finish(B, 'u1', null, 'completed', at(1))).toMatchObject({ goal: 'globex goal' });
        expect((await store.getActive(A, 'u1', null))?.goal).toBe('acme goal');
        expect(await store.deleteUser(A, 'u1')).toBe(1);
        expect(await store.list(A, 'u1')).toEqual([]);
        expect(await store.list(B, 'u1')).toHaveLength(1);
        expect(await store.list(A, 'u2')).toHaveLength(1);
      }));

    it('refuses bad input through the core guard', () =>
      withFixture(factory, async ({ store }) => {
        const goals = guardGoalStore(store);
        await expectMemError(
          store.setActive(A, goal('g1', 'x')).then(() => store.setActive(A, goal('g1', 'y'))),
          'CONFLICT',
        );
        await expectMemError(goals.setActive(A, goal('g2', '   ')), 'INVALID_INPUT');
        await expectMemError(goals.setActive(A, { ...goal('g3', 'x'), user: '.hidden' }), 'INVALID_INPUT');
        await expectMemError(goals.finish(A, 'u1', null, 'won' as 'completed', at(1)), 'INVALID_INPUT');
        await expectMemError(goals.list(A, 'u1', { limit: 0 }), 'INVALID_INPUT');
        expect((await store.getActive(A, 'u1', null))?.goal).toBe('x');
      }));

    it('leaves exactly one active goal when two instances set one at once', () =>
      withFixture(factory, async ({ store, openAnother }) => {
        if (!openAnother) return;
        const second = await openAnother();
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? store : second).setActive(A, goal(`g${i}`, `goal ${i}`, 'race', i)),
          ),
        );
        const all = await store.list(A, 'u1', { topic: 'race' });
        expect(all).toHaveLength(20);
        expect(all.filter((g) => g.status === 'active')).toHaveLength(1);
        expect(await second.getActive(A, 'u1', 'race')).not.toBeNull();
      }));
  });
}

// ---------- SummaryStore ----------

export function describeSummaryStore(
  name: string,
  factory: PortFactory<SummaryStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`SummaryStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('versions every save and compares versions when asked', () =>
      withFixture(factory, async ({ store }) => {
        expect(await store.get(A, 's1')).toBeNull();
        const v1 = await store.save(
          A,
          { sessionId: 's1', summary: 'User wants a trip to Lisbon.', messagesCovered: 10, at: at(0) },
          0,
        );
        expect(v1).toMatchObject({ version: 1, messagesCovered: 10, createdAt: at(0), updatedAt: at(0) });
        const v2 = await store.save(A, {
          sessionId: 's1',
          summary: 'Trip booked: Lisbon, May 3–7. 🎉',
          messagesCovered: 25,
          at: at(5),
        });
        expect(v2).toMatchObject({ version: 2, createdAt: at(0), updatedAt: at(5) });
        expect(await store.get(A, 's1')).toEqual(v2);
        const e = await expectMemError(
          store.save(A, { sessionId: 's1', summary: 'stale', messagesCovered: 11, at: at(6) }, 1),
          'CONFLICT',
        );
        expect(e.retryable).toBe(true);
        await expectMemError(
          store.save(A, { sessionId: 's9', summary: 'x', messagesCovered: 1, at: at(6) }, 3),
          'CONFLICT',
        );
        expect(
          (await store.save(A, { sessionId: 's1', summary: 'fresh', messagesCovered: 30, at: at(7) }, 2)).version,
        ).toBe(3);
        expect(await store.delete(A, 's1')).toBe(true);
        expect(await store.delete(A, 's1')).toBe(false);
        expect(await store.get(A, 's1')).toBeNull();
      }));

    it('never crosses spaces', () =>
      withFixture(factory, async ({ store }) => {
        await store.save(A, { sessionId: 's1', summary: 'acme', messagesCovered: 1, at: at(0) });
        expect(await store.get(B, 's1')).toBeNull();
        expect(
          (await store.save(B, { sessionId: 's1', summary: 'globex', messagesCovered: 2, at: at(0) }, 0)).version,
        ).toBe(1);
        expect(await store.delete(B, 's1')).toBe(true);
        expect((await store.get(A, 's1'))?.summary).toBe('acme');
      }));

    it('deletes the sessions whose id starts with a prefix, literally, in one space', () =>
      withFixture(factory, async ({ store }) => {
        const guarded = guardSummaryStore(store);
        await checkDeleteSessions({
          perSession: 1,
          write: async (space, sessionId, n) => {
            await store.save(space, { sessionId, summary: `summary ${n}`, messagesCovered: n, at: at(n) });
          },
          has: async (space, sessionId) => (await store.get(space, sessionId)) !== null,
          deleteSessions: (space, prefix) => store.deleteSessions(space, prefix),
          guarded: (space, prefix) => guarded.deleteSessions(space, prefix),
        });
      }));

    it('refuses bad input through the core guard', () =>
      withFixture(factory, async ({ store }) => {
        const summaries = guardSummaryStore(store);
        await expectMemError(
          summaries.save(A, { sessionId: 's1', summary: 'x', messagesCovered: -1, at: at(0) }),
          'INVALID_INPUT',
        );
        await expectMemError(
          summaries.save(A, { sessionId: 's1', summary: 'x', messagesCovered: 1.5, at: at(0) }),
          'INVALID_INPUT',
        );
        await expectMemError(
          summaries.save(A, { sessionId: 's1', summary: 'x', messagesCovered: 1, at: at(0) }, -2),
          'INVALID_INPUT',
        );
        await expectMemError(summaries.get(A, ''), 'INVALID_INPUT');
        expect(await store.get(A, 's1')).toBeNull();
      }));
  });
}
