import { MemError, Notebook, type NotebookOwner, type NotebookScope } from '@mem/core';
import { ManualClock, type NotebookStore, notebookVersion, type Tokenizer } from '@mem/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { expectMemError } from './port-fixture.js';

/** What a factory gives the suite: a fresh, empty store and how to clean it up. */
export interface NotebookStoreFixture {
  store: NotebookStore;
  cleanup: () => Promise<void>;
  /** Open another, independent instance on the same data (persistence and concurrency). */
  openAnother: () => Promise<NotebookStore>;
  /**
   * Make the store's data unreachable, as a lost connection or a vanished folder would (default: close the store).
   * A durable store must then answer `STORE_UNAVAILABLE`.
   */
  makeUnreachable?: () => Promise<void>;
}

export type NotebookStoreFactory = () => Promise<NotebookStoreFixture>;

const AT = '2026-03-01T12:00:00.000Z';
const alice: NotebookScope = { space: 'acme', agent: 'alice' };
const aliceOwner: NotebookOwner = { space: 'acme', agentId: 'alice' };
const wordTokenizer: Tokenizer = { id: 'words', count: (s) => s.split(/\s+/).filter(Boolean).length };

const expectCode = expectMemError;

/**
 * The conformance suite of the NotebookStore port (docs/notebooks.md), and of the Notebook service over it. Every adapter runs
 * it with a factory of fresh stores; `openAnother` opens a second instance on the same data, as a second process would.
 */
export function describeNotebookStore(
  name: string,
  factory: NotebookStoreFactory,
  options: { timeoutMs?: number } = {},
): void {
  describe(`NotebookStore conformance: ${name}`, { timeout: options.timeoutMs ?? 120_000 }, () => {
    let fixture: NotebookStoreFixture | undefined;
    const opened: NotebookStore[] = [];

    async function setup(): Promise<NotebookStoreFixture> {
      fixture = await factory();
      return fixture;
    }

    async function another(f: NotebookStoreFixture): Promise<NotebookStore> {
      const s = await f.openAnother();
      opened.push(s);
      return s;
    }

    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      if (fixture) {
        await fixture.store.close();
        await fixture.cleanup();
        fixture = undefined;
      }
    });

    it('reads nothing for a missing file; a write creates it with its version, size and time', async () => {
      const { store } = await setup();
      expect(await store.read(alice, 'MEMORY.md')).toBeNull();
      expect(await store.list(alice)).toEqual([]);
      const w = await store.write(alice, 'MEMORY.md', '- likes tea\n', { expectedVersion: null, at: AT });
      expect(w).toEqual({ path: 'MEMORY.md', size: 12, updatedAt: AT, version: notebookVersion('- likes tea\n') });
      expect(await store.read(alice, 'MEMORY.md')).toEqual({
        path: 'MEMORY.md',
        content: '- likes tea\n',
        size: 12,
        updatedAt: AT,
        version: w.version,
      });
    });

    it('is compare-and-set: a stale version or a create over an existing file is a CONFLICT', async () => {
      const { store } = await setup();
      const v1 = await store.write(alice, 'MEMORY.md', 'one\n', { expectedVersion: null, at: AT });
      await expectCode(store.write(alice, 'MEMORY.md', 'again\n', { expectedVersion: null, at: AT }), 'CONFLICT');
      const v2 = await store.write(alice, 'MEMORY.md', 'one\ntwo\n', { expectedVersion: v1.version, at: AT });
      await expectCode(store.write(alice, 'MEMORY.md', 'lost\n', { expectedVersion: v1.version, at: AT }), 'CONFLICT');
      await expectCode(store.write(alice, 'other.md', 'x\n', { expectedVersion: v1.version, at: AT }), 'CONFLICT');
      expect((await store.read(alice, 'MEMORY.md'))?.content).toBe('one\ntwo\n');
      await expectCode(store.delete(alice, 'MEMORY.md', { expectedVersion: v1.version }), 'CONFLICT');
      expect(await store.delete(alice, 'MEMORY.md', { expectedVersion: v2.version })).toBe(true);
      expect(await store.delete(alice, 'MEMORY.md')).toBe(false);
    });

    it('two writers with the same base version on two instances: exactly one wins, the other gets CONFLICT', async () => {
      const f = await setup();
      const other = await another(f);
      for (let round = 0; round < 5; round++) {
        const base = await f.store.read(alice, 'MEMORY.md');
        const expectedVersion = base?.version ?? null;
        const results = await Promise.allSettled([
          f.store.write(alice, 'MEMORY.md', `${base?.content ?? ''}A${round}\n`, { expectedVersion, at: AT }),
          other.write(alice, 'MEMORY.md', `${base?.content ?? ''}B${round}\n`, { expectedVersion, at: AT }),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(MemError.is(lost.reason, 'CONFLICT')).toBe(true);
      }
      expect((await f.store.read(alice, 'MEMORY.md'))?.content.split('\n').filter(Boolean)).toHaveLength(5);
    });

    it('lists files with sizes in path order, by literal prefix, folders included', async () => {
      const { store } = await setup();
      for (const [path, content] of [
        ['MEMORY.md', 'main\n'],
        ['plans/q3-roadmap.md', 'q3\n'],
        ['plans/archive/2025.md', 'old\n'],
        ['people.md', 'bob: SRE — ünïcödé\n'],
        ['plans-b.md', 'x\n'],
      ] as const) {
        await store.write(alice, path, content, { expectedVersion: null, at: AT });
      }
      const all = await store.list(alice);
      expect(all.map((e) => [e.path, e.size])).toEqual([
        ['MEMORY.md', 5],
        ['people.md', Buffer.byteLength('bob: SRE — ünïcödé\n')],
        ['plans-b.md', 2],
        ['plans/archive/2025.md', 4],
        ['plans/q3-roadmap.md', 3],
      ]);
      expect(all.every((e) => e.updatedAt === AT)).toBe(true);
      expect((await store.list(alice, { prefix: 'plans/' })).map((e) => e.path)).toEqual([
        'plans/archive/2025.md',
        'plans/q3-roadmap.md',
      ]);
      expect(await store.list(alice, { prefix: 'zzz' })).toEqual([]);
      expect(await store.delete(alice, 'plans/archive/2025.md')).toBe(true);
      expect((await store.list(alice, { prefix: 'plans/' })).map((e) => e.path)).toEqual(['plans/q3-roadmap.md']);
    });

    it('keeps spaces, agents, users and topics apart; remove forgets one agent', async () => {
      const { store } = await setup();
      const scopes: NotebookScope[] = [
        alice,
        { space: 'acme', agent: 'bob' },
        { space: 'globex', agent: 'alice' },
        { ...alice, user: 'u1' },
        { ...alice, topic: 'billing' },
        { ...alice, user: 'u1', topic: 'billing' },
      ];
      for (const [i, s] of scopes.entries())
        await store.write(s, 'MEMORY.md', `scope ${i}\n`, { expectedVersion: null, at: AT });
      for (const [i, s] of scopes.entries()) {
        expect((await store.read(s, 'MEMORY.md'))?.content).toBe(`scope ${i}\n`);
        expect((await store.list(s)).map((e) => e.path)).toEqual(['MEMORY.md']);
      }
      expect(await store.remove({ ...alice, user: 'u1' })).toBe(1);
      expect(await store.read({ ...alice, user: 'u1' }, 'MEMORY.md')).toBeNull();
      expect((await store.read({ ...alice, user: 'u1', topic: 'billing' }, 'MEMORY.md'))?.content).toBe('scope 5\n');
      expect(await store.remove(alice)).toBe(3);
      for (const s of [alice, { ...alice, topic: 'billing' }, { ...alice, user: 'u1', topic: 'billing' }])
        expect(await store.read(s, 'MEMORY.md')).toBeNull();
      expect((await store.read({ space: 'acme', agent: 'bob' }, 'MEMORY.md'))?.content).toBe('scope 1\n');
      expect((await store.read({ space: 'globex', agent: 'alice' }, 'MEMORY.md'))?.content).toBe('scope 2\n');
    });

    it('refuses names and paths that could escape, on every method', async () => {
      const { store } = await setup();
      const badNames = ['..', '../evil', 'a/b', 'a\\b', '.hidden', '', 'x'.repeat(81)];
      for (const n of badNames) {
        for (const scope of [
          { space: 'acme', agent: n },
          { space: n, agent: 'alice' },
          { ...alice, user: n },
          { ...alice, topic: n },
        ]) {
          await expectCode(store.write(scope, 'MEMORY.md', 'x', { expectedVersion: null, at: AT }), 'INVALID_INPUT');
          await expectCode(store.read(scope, 'MEMORY.md'), 'INVALID_INPUT');
          await expectCode(store.list(scope), 'INVALID_INPUT');
          await expectCode(store.remove(scope), 'INVALID_INPUT');
        }
      }
      const badPaths = [
        '../x.md',
        '../../etc/passwd.md',
        '/abs.md',
        'a\\b.md',
        '.hidden.md',
        'a/.git/x.md',
        'a/b/c/d.md',
        'a//b.md',
        'nomd',
        'sp ace.md',
        '',
      ];
      for (const p of badPaths) {
        await expectCode(store.write(alice, p, 'x', { expectedVersion: null, at: AT }), 'INVALID_INPUT');
        await expectCode(store.read(alice, p), 'INVALID_INPUT');
        await expectCode(store.delete(alice, p), 'INVALID_INPUT');
      }
      expect(await store.list(alice)).toEqual([]);
      expect(await store.list({ space: 'acme', agent: 'evil' })).toEqual([]);
    });

    it('answers STORE_UNAVAILABLE, naming its adapter, when its data cannot be reached', async () => {
      const f = await setup();
      if (!f.store.capabilities.durable) return; // process memory: nothing can be out of reach
      await f.store.write(alice, 'MEMORY.md', '- before\n', { expectedVersion: null, at: AT });
      await (f.makeUnreachable ?? (() => f.store.close()))();
      const error = await expectCode(
        f.store.write(alice, 'topics/after.md', '- after\n', { expectedVersion: null, at: AT }),
        'STORE_UNAVAILABLE',
      );
      expect(error.message).toMatch(new RegExp(`^${f.store.name}: `));
    });

    it('round-trips Unicode and a 100 KB file exactly, and persists across instances', async () => {
      const f = await setup();
      const unicode = '# Notes — 東京 🚀\n\nnaïve café, مرحبا, עברית, e\u0301\r\nline with CRLF\n\n\n';
      const big = `${'0123456789abcdef'.repeat(6400)}`;
      const scope = { space: 'équipe', agent: 'エージェント' };
      await f.store.write(scope, 'MEMORY.md', unicode, { expectedVersion: null, at: AT });
      await f.store.write(scope, 'big.md', big, { expectedVersion: null, at: AT });
      const other = await another(f);
      expect((await other.read(scope, 'MEMORY.md'))?.content).toBe(unicode);
      expect((await other.read(scope, 'big.md'))?.content).toBe(big);
      expect((await other.read(scope, 'big.md'))?.size).toBe(102_400);
      expect((await other.list(scope)).map((e) => e.path)).toEqual(['MEMORY.md', 'big.md']);
    });

    it('serves the notebook service: edits, errors, limits, injection, concurrent writers on two instances', async () => {
      const f = await setup();
      const clock = new ManualClock(AT);
      const opts = { maxFileBytes: 2_000, maxNotebookBytes: 1_500, maxFiles: 4 };
      const a = new Notebook({ store: f.store, clock, tokenizer: wordTokenizer, options: opts });
      const b = new Notebook({ store: await another(f), clock, tokenizer: wordTokenizer, options: opts });
      await a.write(aliceOwner, { content: '- deploys on Friday' });
      await b.write(aliceOwner, { content: 'Monday', oldText: 'Friday' });
      expect((await a.read(aliceOwner, {})).content).toBe('- deploys on Monday\n');
      await expectCode(a.write(aliceOwner, { content: 'x', oldText: 'Sunday' }), 'INVALID_INPUT');
      await expectCode(a.delete(aliceOwner, { file: 'MEMORY.md' }), 'FORBIDDEN');
      await expectCode(a.write(aliceOwner, { file: 'big', content: 'x'.repeat(2_001) }), 'TOO_LARGE');
      // Concurrent appends through two instances all land (compare-and-set, re-applied on conflict).
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).write(aliceOwner, { content: `- note ${i}` })),
      );
      const lines = (await a.read(aliceOwner, {})).content.trim().split('\n');
      expect(lines).toHaveLength(11);
      expect(new Set(lines).size).toBe(11);
      for (const file of ['t1', 't2', 't3']) await a.write(aliceOwner, { file, content: 'x' });
      await expectCode(a.write(aliceOwner, { file: 't4', content: 'x' }), 'TOO_LARGE');
      await expectCode(a.write(aliceOwner, { file: 't1', content: 'y'.repeat(1_900) }), 'TOO_LARGE');
      const injected = await b.inject(aliceOwner);
      expect(injected.text).toContain('<memory>\n### MEMORY.md\n- deploys on Monday\n');
      expect(injected.text).toContain('- t1.md (2 B)');
      expect((await a.search(aliceOwner, { query: 'deploys' }))[0]?.file).toBe('MEMORY.md');
    });
  });
}
