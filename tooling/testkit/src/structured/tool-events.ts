import { MemError, type ToolEvent } from '@mem/core';
import { guardToolEventStore, type ToolEventStore } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { at, expectMemError, type PortFactory, type PortSuiteOptions, withFixture } from '../port-fixture.js';
import { A, B, checkDeleteSessions } from './shared.js';

// ---------- ToolEventStore ----------

function toolEvent(id: string, tool: string, minute: number, extra: Partial<ToolEvent> = {}): ToolEvent {
  return {
    id,
    sessionId: 's1',
    tool,
    input: { q: id },
    output: { ok: true },
    latencyMs: 12.5,
    error: null,
    at: at(minute),
    ...extra,
  };
}

export function describeToolEventStore(
  name: string,
  factory: PortFactory<ToolEventStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`ToolEventStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('records events and lists the newest N oldest first, by filter', () =>
      withFixture(factory, async ({ store }) => {
        const e0 = toolEvent('e0', 'search', 0, {
          input: { query: 'weather 東京', page: 1 },
          output: ['r1', 'r2'],
          latencyMs: 230,
        });
        await store.record(A, e0);
        await store.record(A, toolEvent('e1', 'fetch', 1, { error: 'timeout after 30 s', output: null }));
        await store.record(A, toolEvent('e2', 'search', 2, { sessionId: 's2' }));
        await store.record(A, toolEvent('e3', 'search', 3));
        await store.record(A, toolEvent('e4', 'fetch', 4, { sessionId: null }));
        expect(await store.list(A, {}, 100)).toHaveLength(5);
        expect((await store.list(A, {}, 100))[0]).toEqual(e0);
        expect((await store.list(A, {}, 2)).map((e) => e.id)).toEqual(['e3', 'e4']);
        expect((await store.list(A, { tool: 'search' }, 100)).map((e) => e.id)).toEqual(['e0', 'e2', 'e3']);
        expect((await store.list(A, { sessionId: 's1' }, 100)).map((e) => e.id)).toEqual(['e0', 'e1', 'e3']);
        expect((await store.list(A, { since: at(1), until: at(3) }, 100)).map((e) => e.id)).toEqual(['e1', 'e2']);
        expect((await store.list(A, { failed: true }, 100)).map((e) => e.id)).toEqual(['e1']);
        expect((await store.list(A, { failed: false, tool: 'fetch' }, 100)).map((e) => e.id)).toEqual(['e4']);
        expect(await store.count(A, { tool: 'search', sessionId: 's1' })).toBe(2);
        expect(await store.count(A, {})).toBe(5);
        // Ordered by time, not by insertion.
        await store.record(A, toolEvent('early', 'search', -5));
        expect((await store.list(A, {}, 100))[0]?.id).toBe('early');
      }));

    it('never crosses spaces', () =>
      withFixture(factory, async ({ store }) => {
        await store.record(A, toolEvent('e1', 'search', 0));
        await store.record(B, toolEvent('e1', 'deploy', 0));
        expect((await store.list(B, {}, 10)).map((e) => e.tool)).toEqual(['deploy']);
        expect(await store.count(A, { tool: 'deploy' })).toBe(0);
      }));

    it('deletes the sessions whose id starts with a prefix, literally, in one space; events without a session stay', () =>
      withFixture(factory, async ({ store }) => {
        const guarded = guardToolEventStore(store);
        await store.record(A, toolEvent('no-session', 'search', 0, { sessionId: null }));
        await checkDeleteSessions({
          perSession: 2,
          write: async (space, sessionId, n) => {
            await store.record(space, toolEvent(`e${n}-call`, 'search', n, { sessionId }));
            await store.record(space, toolEvent(`e${n}-fail`, 'fetch', n, { sessionId, error: 'boom', output: null }));
          },
          has: async (space, sessionId) => (await store.count(space, { sessionId })) > 0,
          deleteSessions: (space, prefix) => store.deleteSessions(space, prefix),
          guarded: (space, prefix) => guarded.deleteSessions(space, prefix),
        });
        expect((await store.list(A, { tool: 'search' }, 100)).some((e) => e.id === 'no-session')).toBe(true);
      }));

    it('refuses a duplicate id and bad input with stable codes', () =>
      withFixture(factory, async ({ store }) => {
        await store.record(A, toolEvent('e1', 'search', 0));
        await expectMemError(store.record(A, toolEvent('e1', 'search', 1)), 'CONFLICT');
        const events = guardToolEventStore(store, { toolPayloadBytes: 1000 });
        await expectMemError(events.record(A, toolEvent('e2', 'search', 0, { latencyMs: -1 })), 'INVALID_INPUT');
        await expectMemError(events.record(A, toolEvent('e3', '', 0)), 'INVALID_INPUT');
        await expectMemError(events.record(A, toolEvent('e4', 'search', 0, { output: 'x'.repeat(5000) })), 'TOO_LARGE');
        await expectMemError(events.list(A, { since: 'last week' }, 10), 'INVALID_INPUT');
        await expectMemError(events.list(A, {}, 0), 'INVALID_INPUT');
        await expectMemError(events.count(A, { bogus: 1 } as never), 'INVALID_INPUT');
        expect(await store.count(A, {})).toBe(1);
        expect(MemError.is(new MemError('INVALID_INPUT', 'x'))).toBe(true);
      }));
  });
}
