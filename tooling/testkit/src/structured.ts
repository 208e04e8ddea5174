/**
 * Conformance suites of the small structured ports (docs/structured.md): messages, facts, goals, summaries, users, session
 * state, phases and tool events. Behaviour is checked on the port itself; bad input is checked through the core
 * guard (`guard*Store`), which is how the stack reaches every adapter.
 */
import { type FactSource, type JsonValue, MemError, type ToolEvent } from '@mem/core';
import {
  type FactStore,
  type GoalStore,
  guardFactStore,
  guardGoalStore,
  guardMessageStore,
  guardPhaseStore,
  guardSessionStateStore,
  guardSummaryStore,
  guardToolEventStore,
  guardUserStore,
  type MessageStore,
  type NewMessage,
  type PhaseStore,
  type SessionStateStore,
  type SummaryStore,
  type ToolEventStore,
  type UserStore,
} from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { at, expectMemError, type PortFactory, type PortSuiteOptions, withFixture } from './port-fixture.js';

const A = 'acme';
const B = 'globex';

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

// ---------- deleteSessions (summaries, session state, phases, tool events) ----------

/** How one session port writes a record, tells whether a session has any, and deletes by prefix. */
interface SessionPort {
  /** Records written per session by `write` (what `deleteSessions` counts for one session). */
  perSession: number;
  write(space: string, sessionId: string, n: number): Promise<void>;
  has(space: string, sessionId: string): Promise<boolean>;
  deleteSessions(space: string, prefix: string): Promise<number>;
  /** The same through the core guard. */
  guarded(space: string, prefix: string): Promise<number>;
}

/** Ids chosen so that a prefix read as a `LIKE` pattern, or compared without case, would match more. */
const PREFIX_IDS = ['a/s1', 'a/s2', 'ab/s1', 'A/s1', 'b/a/s1', 'b/s1', '%/s1', 'x%y/s1', '_/s1', '\\/s1', 'a\\/s1'];

async function checkDeleteSessions(port: SessionPort): Promise<void> {
  let n = 0;
  for (const id of PREFIX_IDS) await port.write(A, id, n++);
  await port.write(B, 'a/s1', n++);
  const left = async (space: string) => {
    const out: string[] = [];
    for (const id of PREFIX_IDS) if (await port.has(space, id)) out.push(id);
    return out;
  };
  // An empty prefix (it would delete the whole space) is refused before the store is reached.
  await expectMemError(port.guarded(A, ''), 'INVALID_INPUT');
  expect(await left(A)).toEqual(PREFIX_IDS);

  expect(await port.deleteSessions(A, 'a/')).toBe(2 * port.perSession);
  expect(await left(A)).toEqual(['ab/s1', 'A/s1', 'b/a/s1', 'b/s1', '%/s1', 'x%y/s1', '_/s1', '\\/s1', 'a\\/s1']);
  expect(await port.has(B, 'a/s1')).toBe(true);
  // `%`, `_` and `\` are ordinary characters.
  expect(await port.deleteSessions(A, '%')).toBe(port.perSession);
  expect(await port.deleteSessions(A, '_/')).toBe(port.perSession);
  expect(await port.deleteSessions(A, '\\')).toBe(port.perSession);
  expect(await left(A)).toEqual(['ab/s1', 'A/s1', 'b/a/s1', 'b/s1', 'x%y/s1', 'a\\/s1']);
  expect(await port.guarded(A, 'nobody/')).toBe(0);
  expect(await port.guarded(A, 'b/')).toBe(2 * port.perSession);
  expect(await left(A)).toEqual(['ab/s1', 'A/s1', 'x%y/s1', 'a\\/s1']);
  // Another space is untouched, and a deleted session can be written again.
  expect(await left(B)).toEqual(['a/s1']);
  await port.write(A, 'a/s1', n++);
  expect(await port.has(A, 'a/s1')).toBe(true);
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

// ---------- FactStore ----------

const SOURCES_BY_PRIORITY: FactSource[] = ['user', 'ai_inferred', 'mcp', 'other'];

export function describeFactStore(name: string, factory: PortFactory<FactStore>, options: PortSuiteOptions = {}): void {
  describe(`FactStore conformance: ${name}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    const write = (
      key: string,
      value: JsonValue,
      source: FactSource = 'user',
      topic: string | null = null,
      minute = 0,
    ) => ({
      user: 'u1',
      topic,
      key,
      value,
      source,
      at: at(minute),
    });

    it('stores JSON values and updates them', () =>
      withFixture(factory, async ({ store }) => {
        const values: JsonValue[] = [
          'Lisbon',
          42,
          3.5,
          true,
          null,
          ['a', 1, null, { b: false }],
          { language: 'pt', nested: { deep: [1, 2, 3] }, emoji: '🎉 東京' },
        ];
        for (const [i, v] of values.entries()) {
          const r = await store.upsert(A, write(`k${i}`, v));
          expect(r.status).toBe('created');
          expect(r.fact.value).toEqual(v);
        }
        const facts = await store.get(A, 'u1');
        expect(facts.map((f) => f.key)).toEqual(values.map((_, i) => `k${i}`));
        expect(facts.map((f) => f.value)).toEqual(values);
        const updated = await store.upsert(A, write('k0', 'Porto', 'user', null, 5));
        expect(updated.status).toBe('updated');
        expect(updated.fact).toMatchObject({
          value: 'Porto',
          createdAt: at(0),
          updatedAt: at(5),
          source: 'user',
          topic: null,
        });
        expect(await store.find(A, 'u1', 'k0', null)).toMatchObject({ value: 'Porto' });
        expect(await store.find(A, 'u1', 'missing', null)).toBeNull();
      }));

    it('never lets a lower-priority source overwrite a higher one (user > ai_inferred > mcp > other)', () =>
      withFixture(factory, async ({ store }) => {
        for (const [hi, higher] of SOURCES_BY_PRIORITY.entries()) {
          for (const [lo, lower] of SOURCES_BY_PRIORITY.entries()) {
            if (lo <= hi) continue;
            const key = `${higher}-over-${lower}`;
            await store.upsert(A, write(key, 'high', higher));
            const kept = await store.upsert(A, write(key, 'low', lower, null, 1));
            expect(kept.status, key).toBe('kept');
            expect(kept.fact).toMatchObject({ value: 'high', source: higher });
            const key2 = `${lower}-then-${higher}`;
            await store.upsert(A, write(key2, 'low', lower));
            const replaced = await store.upsert(A, write(key2, 'high', higher, null, 1));
            expect(replaced.status, key2).toBe('updated');
            expect(replaced.fact).toMatchObject({ value: 'high', source: higher });
          }
        }
        // The same source updates its own fact.
        await store.upsert(A, write('same', 1, 'mcp'));
        expect((await store.upsert(A, write('same', 2, 'mcp', null, 1))).status).toBe('updated');
        const facts = Object.fromEntries((await store.get(A, 'u1')).map((f) => [f.key, f]));
        expect(facts['user-over-other']).toMatchObject({ value: 'high', source: 'user' });
        expect(facts['mcp-then-ai_inferred']).toMatchObject({ value: 'high', source: 'ai_inferred' });
        expect(facts.same?.value).toBe(2);
      }));

    it('merges global and topic facts; the topic fact wins', () =>
      withFixture(factory, async ({ store }) => {
        await store.upsert(A, write('language', 'en'));
        await store.upsert(A, write('timezone', 'UTC'));
        await store.upsert(A, write('language', 'de', 'user', 'travel'));
        await store.upsert(A, write('budget', 2000, 'user', 'travel'));
        await store.upsert(A, write('budget', 10, 'user', 'lunch'));
        const global = await store.get(A, 'u1');
        expect(global.map((f) => [f.key, f.value])).toEqual([
          ['language', 'en'],
          ['timezone', 'UTC'],
        ]);
        expect(await store.get(A, 'u1', null)).toEqual(global);
        const travel = await store.get(A, 'u1', 'travel');
        expect(travel.map((f) => [f.key, f.value, f.topic])).toEqual([
          ['budget', 2000, 'travel'],
          ['language', 'de', 'travel'],
          ['timezone', 'UTC', null],
        ]);
        expect((await store.get(A, 'u1', 'unknown-topic')).map((f) => f.key)).toEqual(['language', 'timezone']);
        // Priority is per scope: a topic fact from a low source still overrides a global user fact when read.
        await store.upsert(A, write('timezone', 'CET', 'other', 'travel'));
        expect((await store.get(A, 'u1', 'travel')).find((f) => f.key === 'timezone')?.value).toBe('CET');
        expect(await store.find(A, 'u1', 'language', 'travel')).toMatchObject({ value: 'de' });
        expect(await store.find(A, 'u1', 'timezone', 'lunch')).toBeNull();
      }));

    it('never crosses spaces or users; deletes one fact or all of a user', () =>
      withFixture(factory, async ({ store }) => {
        await store.upsert(A, write('city', 'Lisbon'));
        await store.upsert(A, write('city', 'Oslo', 'user', 'work'));
        await store.upsert(A, { ...write('city', 'Rome'), user: 'u2' });
        await store.upsert(B, write('city', 'Berlin', 'other'));
        expect((await store.get(B, 'u1')).map((f) => f.value)).toEqual(['Berlin']);
        expect((await store.get(A, 'u2')).map((f) => f.value)).toEqual(['Rome']);
        // A low-priority write in another space is not blocked by this space's user fact.
        expect((await store.upsert(B, write('city', 'Paris', 'other', null, 1))).status).toBe('updated');
        expect(await store.delete(A, 'u1', 'city', 'work')).toBe(true);
        expect(await store.delete(A, 'u1', 'city', 'work')).toBe(false);
        expect((await store.get(A, 'u1', 'work')).map((f) => f.value)).toEqual(['Lisbon']);
        await store.upsert(A, write('other', 1, 'user', 'work'));
        expect(await store.deleteUser(A, 'u1')).toBe(2);
        expect(await store.get(A, 'u1', 'work')).toEqual([]);
        expect((await store.get(A, 'u2')).map((f) => f.value)).toEqual(['Rome']);
        expect((await store.get(B, 'u1')).map((f) => f.value)).toEqual(['Paris']);
      }));

    it('refuses secrets and bad input through the core guard, changing nothing', () =>
      withFixture(factory, async ({ store }) => {
        const facts = guardFactStore(store);
        await facts.upsert(A, write('api', 'uses REST'));
        const secrets: [string, JsonValue][] = [
          ['aws', 'AKIAIOSFODNN7EXAMPLE'],
          ['nested', { ci: { token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' } }],
          ['db', ['postgres://admin:s3cretPass@db.internal:5432/app']],
          ['creds', { password: 'hunter2hunter2' }],
        ];
        for (const [key, value] of secrets) {
          const e = await expectMemError(facts.upsert(A, write(key, value)), 'SECRET_DETECTED');
          expect(e.message).not.toMatch(/AKIAIOSFODNN7EXAMPLE|ghp_abcdef|s3cretPass|hunter2hunter2/);
        }
        await expectMemError(
          facts.upsert(A, write('api', 'key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789')),
          'SECRET_DETECTED',
        );
        await expectMemError(
          facts.upsert(A, write('ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'x')),
          'SECRET_DETECTED',
        );
        const bad: unknown[] = [
          { ...write('k', 'v'), user: '../etc' },
          { ...write('k', 'v'), user: '' },
          { ...write('k', 'v'), topic: 'a/b' },
          { ...write('k', 'v'), source: 'boss' },
          { ...write('', 'v') },
          { ...write('k', 'v'), at: 'now' },
          { ...write('k', undefined as unknown as JsonValue) },
          { ...write('k', Number.POSITIVE_INFINITY) },
          { ...write('k', { when: new Date() } as unknown as JsonValue) },
        ];
        for (const w of bad) await expectMemError(facts.upsert(A, w as never), 'INVALID_INPUT');
        await expectMemError(facts.upsert(A, write('big', 'x'.repeat(70_000))), 'TOO_LARGE');
        await expectMemError(facts.get(A, 'bad/user'), 'INVALID_INPUT');
        await expectMemError(facts.get('..', 'u1'), 'INVALID_INPUT');
        expect((await store.get(A, 'u1')).map((f) => [f.key, f.value])).toEqual([['api', 'uses REST']]);
        expect(guardFactStore(facts)).toBe(facts);
      }));

    it('keeps the higher-priority fact when two instances write at once', () =>
      withFixture(factory, async ({ store, openAnother }) => {
        if (!openAnother) return;
        const second = await openAnother();
        await store.upsert(A, write('plan', 'from the user', 'user'));
        const writes: Promise<unknown>[] = [];
        for (let i = 0; i < 20; i++) {
          writes.push(store.upsert(A, write('plan', `inferred ${i}`, 'ai_inferred', null, i)));
          writes.push(second.upsert(A, write('plan', `tool ${i}`, 'mcp', null, i)));
          writes.push(second.upsert(A, write(`own-${i}`, i, 'mcp', null, i)));
        }
        await Promise.all(writes);
        expect(await store.find(A, 'u1', 'plan', null)).toMatchObject({ value: 'from the user', source: 'user' });
        expect(await second.get(A, 'u1')).toHaveLength(21);
      }));
  });
}

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
