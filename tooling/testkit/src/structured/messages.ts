import { guardMessageStore, type MessageStore, type NewMessage } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { at, expectMemError, type PortFactory, type PortSuiteOptions, withFixture } from '../port-fixture.js';
import { A, B } from './shared.js';

function message(id: string, sessionId: string, minute: number, extra: Partial<NewMessage> = {}): NewMessage {
  return {
    id,
    sessionId,
    role: 'user',
    content: `message ${id}`,
    toolCalls: [],
    name: null,
    metadata: {},
    createdAt: at(minute),
    ...extra,
  };
}

// ---------- MessageStore ----------

export function describeMessageStore(
  name: string,
  factory: PortFactory<MessageStore>,
  options: PortSuiteOptions = {},
): void {
  describe(`MessageStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    it('round-trips every field and returns the newest N oldest first', () =>
      withFixture(factory, async ({ store }) => {
        const full = message('m-1', 's1', 0, {
          role: 'assistant',
          content: 'Calling the weather tool — ☀️ 東京',
          toolCalls: [
            { id: 'call-1', name: 'weather', arguments: { city: 'Tokyo', days: 3, units: null, flags: [true, false] } },
          ],
          name: 'planner',
          metadata: { tokens: 42, nested: { a: [1, 'two'] } },
        });
        await store.save(A, full);
        for (let i = 2; i <= 10; i++) await store.save(A, message(`m-${i}`, 's1', i));
        const newest = await store.recent(A, 's1', 3);
        expect(newest.map((m) => m.id)).toEqual(['m-8', 'm-9', 'm-10']);
        const all = await store.recent(A, 's1', 100);
        expect(all).toHaveLength(10);
        expect(all[0]).toEqual(full);
        expect(await store.count(A, 's1')).toBe(10);
        expect(await store.recent(A, 'no-such-session', 5)).toEqual([]);
        expect(await store.count(A, 'no-such-session')).toBe(0);
      }));

    it('keeps insertion order, whatever the timestamps', () =>
      withFixture(factory, async ({ store }) => {
        await store.save(A, message('late', 's1', 50));
        await store.save(A, message('early', 's1', 5));
        await store.save(A, message('same-a', 's1', 7));
        await store.save(A, message('same-b', 's1', 7));
        expect((await store.recent(A, 's1', 10)).map((m) => m.id)).toEqual(['late', 'early', 'same-a', 'same-b']);
      }));

    it('deletes before the last N', () =>
      withFixture(factory, async ({ store }) => {
        for (let i = 0; i < 12; i++) await store.save(A, message(`m-${i}`, 's1', i));
        await store.save(A, message('other', 's2', 0));
        expect(await store.deleteBefore(A, 's1', 5)).toBe(7);
        expect((await store.recent(A, 's1', 100)).map((m) => m.id)).toEqual(['m-7', 'm-8', 'm-9', 'm-10', 'm-11']);
        expect(await store.deleteBefore(A, 's1', 5)).toBe(0);
        expect(await store.deleteBefore(A, 's1', 50)).toBe(0);
        await store.save(A, message('m-12', 's1', 12));
        expect((await store.recent(A, 's1', 2)).map((m) => m.id)).toEqual(['m-11', 'm-12']);
        expect(await store.deleteBefore(A, 's1', 0)).toBe(6);
        expect(await store.count(A, 's1')).toBe(0);
        expect(await store.count(A, 's2')).toBe(1);
        // A deleted message's id may be used again.
        await store.save(A, message('m-0', 's1', 20));
        expect(await store.count(A, 's1')).toBe(1);
      }));

    it('never crosses spaces', () =>
      withFixture(factory, async ({ store }) => {
        await store.save(A, message('m-1', 's1', 0, { content: 'acme secret plan' }));
        await store.save(B, message('m-1', 's1', 0, { content: 'globex note' }));
        expect((await store.recent(A, 's1', 10)).map((m) => m.content)).toEqual(['acme secret plan']);
        expect((await store.recent(B, 's1', 10)).map((m) => m.content)).toEqual(['globex note']);
        expect(await store.deleteBefore(B, 's1', 0)).toBe(1);
        expect(await store.count(A, 's1')).toBe(1);
      }));

    it('refuses a duplicate id and bad input with stable codes', () =>
      withFixture(factory, async ({ store }) => {
        await store.save(A, message('dup', 's1', 0));
        await expectMemError(store.save(A, message('dup', 's1', 1)), 'CONFLICT');
        const guarded = guardMessageStore(store);
        const bad: unknown[] = [
          { ...message('x1', 's1', 0), role: 'robot' },
          { ...message('x2', '', 0) },
          { ...message('x3', 's1', 0), createdAt: 'yesterday' },
          { ...message('x4', 's1', 0), metadata: { f: () => 1 } },
          { ...message('x5', 's1', 0), metadata: { n: Number.NaN } },
          { ...message('x6', 's1', 0), toolCalls: [{ id: 'c', arguments: {} }] },
          { ...message('x7', 's1', 0), extra: true },
          { ...message('x8', 's1', 0), content: 5 },
        ];
        for (const m of bad) await expectMemError(guarded.save(A, m as NewMessage), 'INVALID_INPUT');
        await expectMemError(guarded.save('../etc', message('x9', 's1', 0)), 'INVALID_INPUT');
        await expectMemError(guarded.recent(A, 's1', 0), 'INVALID_INPUT');
        await expectMemError(guarded.recent(A, 's1', 1.5), 'INVALID_INPUT');
        await expectMemError(guarded.deleteBefore(A, 's1', -1), 'INVALID_INPUT');
        expect(await store.count(A, 's1')).toBe(1);
        // Times are normalised to UTC with milliseconds.
        await guarded.save(A, { ...message('tz', 's1', 0), createdAt: '2026-01-01T02:00:00+02:00' });
        expect((await store.recent(A, 's1', 1))[0]?.createdAt).toBe('2026-01-01T00:00:00.000Z');
      }));

    it('loses no message when two instances append at once', () =>
      withFixture(factory, async ({ store, openAnother }) => {
        if (!openAnother) return;
        const second = await openAnother();
        const writes: Promise<void>[] = [];
        for (let i = 0; i < 50; i++) {
          writes.push(store.save(A, message(`a-${i}`, 's1', i)));
          writes.push(second.save(A, message(`b-${i}`, 's1', i)));
        }
        await Promise.all(writes);
        const all = await second.recent(A, 's1', 1000);
        expect(all).toHaveLength(100);
        const order = (prefix: string) => all.filter((m) => m.id.startsWith(prefix)).map((m) => m.id);
        expect(order('a-')).toEqual(Array.from({ length: 50 }, (_, i) => `a-${i}`));
        expect(order('b-')).toEqual(Array.from({ length: 50 }, (_, i) => `b-${i}`));
      }));
  });
}
