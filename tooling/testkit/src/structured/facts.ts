import type { FactSource, JsonValue } from '@mem/core';
import { type FactStore, guardFactStore } from '@mem/core/adapter';
import { describe, expect, it } from 'vitest';
import { at, expectMemError, type PortFactory, type PortSuiteOptions, withFixture } from '../port-fixture.js';
import { A, B } from './shared.js';

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
