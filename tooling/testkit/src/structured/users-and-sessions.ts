import type { JsonValue } from '@mem/core';
import {
  guardPhaseStore,
  guardSessionStateStore,
  guardUserStore,
  type PhaseStore,
  type SessionStateStore,
  type UserStore,
} from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { at, expectMemError, type PortFactory, type PortSuiteOptions, withFixture } from '../port-fixture.js';
import { A, B, checkDeleteSessions } from './shared.js';

// ---------- UserStore ----------

export function describeUserStore(name: string, factory: PortFactory<UserStore>, options: PortSuiteOptions = {}): void {
  describe(`UserStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('creates a user on first sight and returns the same one after', () =>
      withFixture(factory, async ({ store }) => {
        const first = await store.ensure(A, 'telegram:12345', { id: 'user-1', at: at(0) });
        expect(first).toEqual({
          created: true,
          user: { id: 'user-1', externalId: 'telegram:12345', createdAt: at(0) },
        });
        const again = await store.ensure(A, 'telegram:12345', { id: 'user-2', at: at(5) });
        expect(again).toEqual({ created: false, user: first.user });
        expect(await store.get(A, 'telegram:12345')).toEqual(first.user);
        expect(await store.getById(A, 'user-1')).toEqual(first.user);
        expect(await store.getById(A, 'user-2')).toBeNull();
        expect(await store.get(A, 'slack:U1')).toBeNull();
        expect(await store.delete(A, 'telegram:12345')).toBe(true);
        expect(await store.delete(A, 'telegram:12345')).toBe(false);
        expect(await store.getById(A, 'user-1')).toBeNull();
      }));

    it('never crosses spaces', () =>
      withFixture(factory, async ({ store }) => {
        const a = await store.ensure(A, 'ext-1', { id: 'ua', at: at(0) });
        const b = await store.ensure(B, 'ext-1', { id: 'ub', at: at(0) });
        expect(b.created).toBe(true);
        expect(b.user.id).not.toBe(a.user.id);
        expect(await store.getById(B, 'ua')).toBeNull();
        expect(await store.delete(B, 'ext-1')).toBe(true);
        expect(await store.get(A, 'ext-1')).toEqual(a.user);
      }));

    it('refuses an internal id held by another user and bad input', () =>
      withFixture(factory, async ({ store }) => {
        await store.ensure(A, 'ext-1', { id: 'u1', at: at(0) });
        await expectMemError(store.ensure(A, 'ext-2', { id: 'u1', at: at(0) }), 'CONFLICT');
        const users = guardUserStore(store);
        await expectMemError(users.ensure(A, '', { id: 'u9', at: at(0) }), 'INVALID_INPUT');
        await expectMemError(users.ensure(A, 'ext-3', { id: 'u9', at: 'soon' }), 'INVALID_INPUT');
        await expectMemError(users.ensure(A, ' padded ', { id: 'u9', at: at(0) }), 'INVALID_INPUT');
        expect(await store.get(A, 'ext-3')).toBeNull();
      }));

    it('agrees on one internal id when two instances see a user at once', () =>
      withFixture(factory, async ({ store, openAnother }) => {
        if (!openAnother) return;
        const second = await openAnother();
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 ? store : second).ensure(A, 'new-user', { id: `cand-${i}`, at: at(i) }),
          ),
        );
        const ids = new Set(results.map((r) => r.user.id));
        expect(ids.size).toBe(1);
        expect(results.filter((r) => r.created)).toHaveLength(1);
      }));
  });
}

// ---------- SessionStateStore ----------

export function describeSessionStateStore(
  name: string,
  factory: PortFactory<SessionStateStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`SessionStateStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('gets, replaces and deletes a JSON state', () =>
      withFixture(factory, async ({ store }) => {
        expect(await store.get(A, 's1')).toBeNull();
        const state = { step: 3, cart: [{ sku: 'a-1', qty: 2 }], flags: { vip: true }, note: null, text: 'café ☕' };
        await store.set(A, 's1', state, at(0));
        expect(await store.get(A, 's1')).toEqual({ sessionId: 's1', state, updatedAt: at(0) });
        await store.set(A, 's1', ['replaced', 'whole'], at(1));
        expect(await store.get(A, 's1')).toEqual({ sessionId: 's1', state: ['replaced', 'whole'], updatedAt: at(1) });
        await store.set(A, 's2', 7, at(1));
        expect((await store.get(A, 's2'))?.state).toBe(7);
        expect(await store.delete(A, 's1')).toBe(true);
        expect(await store.delete(A, 's1')).toBe(false);
        expect(await store.get(A, 's1')).toBeNull();
      }));

    it('never crosses spaces', () =>
      withFixture(factory, async ({ store }) => {
        await store.set(A, 's1', { who: 'acme' }, at(0));
        expect(await store.get(B, 's1')).toBeNull();
        await store.set(B, 's1', { who: 'globex' }, at(0));
        expect(await store.delete(B, 's1')).toBe(true);
        expect((await store.get(A, 's1'))?.state).toEqual({ who: 'acme' });
      }));

    it('deletes the sessions whose id starts with a prefix, literally, in one space', () =>
      withFixture(factory, async ({ store }) => {
        const guarded = guardSessionStateStore(store);
        await checkDeleteSessions({
          perSession: 1,
          write: (space, sessionId, n) => store.set(space, sessionId, { n }, at(n)),
          has: async (space, sessionId) => (await store.get(space, sessionId)) !== null,
          deleteSessions: (space, prefix) => store.deleteSessions(space, prefix),
          guarded: (space, prefix) => guarded.deleteSessions(space, prefix),
        });
      }));

    it('refuses bad input through the core guard', () =>
      withFixture(factory, async ({ store }) => {
        const states = guardSessionStateStore(store, { stateBytes: 1000 });
        await expectMemError(states.set(A, 's1', { f: () => 1 } as unknown as JsonValue, at(0)), 'INVALID_INPUT');
        await expectMemError(states.set(A, 's1', undefined as unknown as JsonValue, at(0)), 'INVALID_INPUT');
        await expectMemError(states.set(A, '', {}, at(0)), 'INVALID_INPUT');
        await expectMemError(states.set(A, 's1', 'x'.repeat(2000), at(0)), 'TOO_LARGE');
        expect(await store.get(A, 's1')).toBeNull();
      }));
  });
}

// ---------- PhaseStore ----------

export function describePhaseStore(
  name: string,
  factory: PortFactory<PhaseStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`PhaseStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('tracks the current phase with its history', () =>
      withFixture(factory, async ({ store }) => {
        expect(await store.current(A, 's1')).toBeNull();
        expect(await store.history(A, 's1')).toEqual([]);
        const phases = ['discovery', 'planning', 'execution', 'planning', 'review'];
        for (const [i, phase] of phases.entries())
          await store.set(A, { sessionId: 's1', phase, metadata: { i }, at: at(i) });
        expect(await store.current(A, 's1')).toEqual({
          sessionId: 's1',
          phase: 'review',
          metadata: { i: 4 },
          at: at(4),
        });
        expect((await store.history(A, 's1')).map((c) => c.phase)).toEqual(phases);
        expect((await store.history(A, 's1', 2)).map((c) => c.phase)).toEqual(['planning', 'review']);
        // Insertion order decides, not the time given.
        await store.set(A, { sessionId: 's1', phase: 'late-entry', metadata: {}, at: at(-10) });
        expect((await store.current(A, 's1'))?.phase).toBe('late-entry');
      }));

    it('never crosses spaces or sessions', () =>
      withFixture(factory, async ({ store }) => {
        await store.set(A, { sessionId: 's1', phase: 'acme', metadata: {}, at: at(0) });
        await store.set(A, { sessionId: 's2', phase: 'other-session', metadata: {}, at: at(0) });
        await store.set(B, { sessionId: 's1', phase: 'globex', metadata: {}, at: at(1) });
        expect((await store.current(A, 's1'))?.phase).toBe('acme');
        expect((await store.history(B, 's1')).map((c) => c.phase)).toEqual(['globex']);
      }));

    it('deletes the sessions whose id starts with a prefix, literally, in one space, counting every change', () =>
      withFixture(factory, async ({ store }) => {
        const guarded = guardPhaseStore(store);
        await checkDeleteSessions({
          perSession: 2,
          write: async (space, sessionId, n) => {
            await store.set(space, { sessionId, phase: 'planning', metadata: {}, at: at(n) });
            await store.set(space, { sessionId, phase: 'execution', metadata: { n }, at: at(n) });
          },
          has: async (space, sessionId) => (await store.current(space, sessionId)) !== null,
          deleteSessions: (space, prefix) => store.deleteSessions(space, prefix),
          guarded: (space, prefix) => guarded.deleteSessions(space, prefix),
        });
      }));

    it('refuses bad input through the core guard', () =>
      withFixture(factory, async ({ store }) => {
        const phases = guardPhaseStore(store);
        await expectMemError(phases.set(A, { sessionId: 's1', phase: '', metadata: {}, at: at(0) }), 'INVALID_INPUT');
        await expectMemError(
          phases.set(A, { sessionId: 's1', phase: 'x', metadata: [] as unknown as Record<string, never>, at: at(0) }),
          'INVALID_INPUT',
        );
        await expectMemError(phases.history(A, 's1', 0), 'INVALID_INPUT');
        expect(await store.current(A, 's1')).toBeNull();
      }));
  });
}
