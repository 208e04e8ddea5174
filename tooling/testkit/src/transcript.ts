import { Conversation, createTemplateSummarizer, MemError, type TranscriptMessage } from '@mem/core';
import {
  type CompactionStepHook,
  ManualClock,
  type Tokenizer,
  type Transcript,
  type TranscriptHeader,
  type TranscriptStore,
} from '@mem/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { expectMemError } from './port-fixture.js';

/** Options the suite asks of a factory: a hook called before each compaction step (throwing simulates a crash). */
export interface TranscriptStoreTestOptions {
  onCompactionStep?: CompactionStepHook;
}

/** What a factory gives the suite: a fresh, empty store and how to clean it up. */
export interface TranscriptStoreFixture {
  store: TranscriptStore;
  cleanup: () => Promise<void>;
  /** Open another, independent instance on the same data (persistence, concurrency, recovery after a crash). */
  openAnother: (options?: TranscriptStoreTestOptions) => Promise<TranscriptStore>;
  /**
   * Make the store's data unreachable, as a lost connection or a vanished folder would (default: close the store).
   * A durable store must then answer `STORE_UNAVAILABLE`.
   */
  makeUnreachable?: () => Promise<void>;
}

export type TranscriptStoreFactory = (options: TranscriptStoreTestOptions) => Promise<TranscriptStoreFixture>;

class SimulatedCrash extends Error {
  constructor(step: string) {
    super(`simulated crash before step "${step}"`);
  }
}

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const header = (id: string, ms = 0): TranscriptHeader => ({ conversationId: id, createdAt: at(ms) });
const msg = (role: TranscriptMessage['role'], content: string, ms = 0): TranscriptMessage => ({
  role,
  content,
  at: at(ms),
});

/** Counts words: enough for the service checks here, and fast. */
const wordTokenizer: Tokenizer = { id: 'words', count: (s) => s.split(/\s+/).filter(Boolean).length };

const expectCode = expectMemError;

const TRICKY_CONTENTS = [
  'plain text',
  'Unicode: naïve café — 東京 🚀 مرحبا עברית Ω≈ç√ e\u0301',
  'Markdown that looks like the format:\n---\n### user — 2026-03-01T12:00:00.000Z\n\\---\n## Interaction Log\n# Conversation Memory — x',
  '\nleading and trailing blank lines\n\n',
  'windows\r\nline endings\r\n',
  '```ts\nconst x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |',
  '   indented only',
];

/**
 * The conformance suite of the TranscriptStore port (docs/conversations.md). Every adapter runs it with a factory of fresh
 * stores; `openAnother` opens a second instance on the same data, as a second process would.
 */
export function describeTranscriptStore(
  name: string,
  factory: TranscriptStoreFactory,
  options: { timeoutMs?: number } = {},
): void {
  describe(`TranscriptStore conformance: ${name}`, { timeout: options.timeoutMs ?? 120_000 }, () => {
    let fixture: TranscriptStoreFixture | undefined;
    const opened: TranscriptStore[] = [];
    let hook: CompactionStepHook | undefined;

    async function setup(): Promise<TranscriptStoreFixture> {
      hook = undefined;
      fixture = await factory({ onCompactionStep: (step) => hook?.(step) });
      return fixture;
    }

    async function another(f: TranscriptStoreFixture, o?: TranscriptStoreTestOptions): Promise<TranscriptStore> {
      const s = await f.openAnother(o);
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

    it('has no transcript for an unknown agent; the first append creates one with the given header', async () => {
      const { store } = await setup();
      expect(await store.read('acme', 'alice')).toBeNull();
      expect(await store.listArchives('acme', 'alice')).toEqual([]);
      const r = await store.append('acme', 'alice', [msg('user', 'hello')], header('c1'));
      expect(r.header).toEqual(header('c1'));
      // A later init is ignored: the transcript keeps its header.
      const again = await store.append('acme', 'alice', [msg('assistant', 'hi', 1)], header('c2', 5));
      expect(again.header).toEqual(header('c1'));
      expect(await store.read('acme', 'alice')).toEqual({
        header: header('c1'),
        messages: [msg('user', 'hello'), msg('assistant', 'hi', 1)],
      });
      expect(await store.agents('acme')).toEqual(['alice']);
    });

    it('round-trips contents exactly: Unicode, Markdown that looks like the format, blank lines, CR/LF, long text', async () => {
      const { store } = await setup();
      const long = `${'A long tool result line with numbers 0123456789.\n'.repeat(20_000)}end`;
      const messages = [...TRICKY_CONTENTS, long].map((c, i) =>
        msg((['user', 'assistant', 'tool', 'system'] as const)[i % 4]!, c, i),
      );
      await store.append('acme', 'alice', messages.slice(0, 3), header('c1'));
      for (const m of messages.slice(3)) await store.append('acme', 'alice', [m], header('c1'));
      expect((await store.read('acme', 'alice'))?.messages).toEqual(messages);
    });

    it('skips messages with empty content', async () => {
      const { store } = await setup();
      await store.append('acme', 'alice', [msg('user', ''), msg('user', ' \n\t '), msg('user', 'kept')], header('c1'));
      expect((await store.read('acme', 'alice'))?.messages).toEqual([msg('user', 'kept')]);
    });

    it('keeps spaces and agents apart', async () => {
      const { store } = await setup();
      await store.append('acme', 'alice', [msg('user', 'acme alice')], header('c1'));
      await store.append('acme', 'bob', [msg('user', 'acme bob')], header('c2'));
      await store.append('globex', 'alice', [msg('user', 'globex alice')], header('c3'));
      expect((await store.read('acme', 'alice'))?.messages.map((m) => m.content)).toEqual(['acme alice']);
      expect((await store.read('globex', 'alice'))?.messages.map((m) => m.content)).toEqual(['globex alice']);
      expect(await store.read('globex', 'bob')).toBeNull();
      expect(await store.agents('acme')).toEqual(['alice', 'bob']);
      expect(await store.agents('globex')).toEqual(['alice']);
      const snap = (await store.read('acme', 'alice'))!;
      await store.compact('acme', 'alice', {
        basis: { conversationId: 'c1', messageCount: 1 },
        header: header('n1'),
        messages: [msg('system', 'sum')],
        archivedAt: at(0),
      });
      expect(await store.listArchives('globex', 'alice')).toEqual([]);
      expect((await store.read('globex', 'alice'))?.messages.map((m) => m.content)).toEqual(['globex alice']);
      await expectCode(
        store.readArchive('globex', 'alice', (await store.listArchives('acme', 'alice'))[0]!.id),
        'NOT_FOUND',
      );
      expect(snap.messages).toHaveLength(1);
    });

    it('refuses names that could escape their folder, on every method', async () => {
      const { store } = await setup();
      const bad = ['..', '../evil', 'a/b', 'a\\b', '.hidden', '', 'nul\u0000x', 'x'.repeat(81), ' padded'];
      for (const agent of bad) {
        await expectCode(store.append('acme', agent, [msg('user', 'x')], header('c1')), 'INVALID_INPUT');
        await expectCode(store.read('acme', agent), 'INVALID_INPUT');
        await expectCode(store.listArchives('acme', agent), 'INVALID_INPUT');
        await expectCode(store.remove('acme', agent), 'INVALID_INPUT');
        await expectCode(
          store.compact('acme', agent, {
            basis: { conversationId: 'c1', messageCount: 0 },
            header: header('n'),
            messages: [],
            archivedAt: at(0),
          }),
          'INVALID_INPUT',
        );
        await expectCode(store.append(agent, 'alice', [msg('user', 'x')], header('c1')), 'INVALID_INPUT');
      }
      await expectCode(store.agents('../acme'), 'INVALID_INPUT');
      await store.append('acme', 'alice', [msg('user', 'x')], header('c1'));
      for (const id of [
        '../MEMORY',
        '../../../etc/passwd',
        'history_x',
        'history_2026-03-01T12-00-00.000Z/../../x',
        'MEMORY',
      ]) {
        await expectCode(store.readArchive('acme', 'alice', id), 'INVALID_INPUT');
        await expectCode(store.deleteArchive('acme', 'alice', id), 'INVALID_INPUT');
      }
      await expectCode(store.readArchive('acme', 'alice', 'history_2026-03-01T12-00-00.000Z'), 'NOT_FOUND');
      expect(await store.agents('acme')).toEqual(['alice']);
    });

    it('accepts Unicode agent and space names', async () => {
      const { store } = await setup();
      await store.append('équipe', 'エージェント-1', [msg('user', 'こんにちは')], header('c1'));
      expect((await store.read('équipe', 'エージェント-1'))?.messages[0]?.content).toBe('こんにちは');
      expect(await store.agents('équipe')).toEqual(['エージェント-1']);
    });

    it('refuses malformed messages and headers', async () => {
      const { store } = await setup();
      await expectCode(
        store.append('acme', 'alice', [{ role: 'boss' as never, content: 'x', at: at(0) }], header('c1')),
        'INVALID_INPUT',
      );
      await expectCode(
        store.append('acme', 'alice', [{ role: 'user', content: 'x', at: 'yesterday' }], header('c1')),
        'INVALID_INPUT',
      );
      await expectCode(
        store.append('acme', 'alice', [msg('user', 'x')], { conversationId: 'a b/c', createdAt: at(0) }),
        'INVALID_INPUT',
      );
      expect(await store.read('acme', 'alice')).toBeNull();
    });

    it('answers STORE_UNAVAILABLE, naming its adapter, when its data cannot be reached', async () => {
      const f = await setup();
      if (!f.store.capabilities.durable) return; // process memory: nothing can be out of reach
      await f.store.append('acme', 'alice', [msg('user', 'before')], header('c1'));
      await (f.makeUnreachable ?? (() => f.store.close()))();
      for (const [method, call] of [
        ['append', () => f.store.append('acme', 'alice', [msg('user', 'after')], header('c1'))],
        ['agents', () => f.store.agents('acme')],
      ] as const) {
        const error = await expectCode(call(), 'STORE_UNAVAILABLE');
        expect(error.message, method).toMatch(new RegExp(`^${f.store.name}: `));
      }
    });

    it('persists: another instance reads what the first wrote', async () => {
      const f = await setup();
      await f.store.append('acme', 'alice', [msg('user', 'remember me')], header('c1'));
      const other = await another(f);
      expect((await other.read('acme', 'alice'))?.messages).toEqual([msg('user', 'remember me')]);
    });

    it('appends from two instances all survive, in per-writer order, none interleaved', async () => {
      const f = await setup();
      const other = await another(f);
      const writer = async (s: TranscriptStore, tag: string) => {
        for (let i = 0; i < 60; i++)
          await s.append(
            'acme',
            'alice',
            [msg('user', `${tag}-${i}\n${'x'.repeat(i * 50)}\n${tag}-${i}-end`, i)],
            header('c1'),
          );
      };
      await Promise.all([writer(f.store, 'A'), writer(other, 'B'), writer(f.store, 'C')]);
      const got = (await f.store.read('acme', 'alice'))!.messages;
      expect(got).toHaveLength(180);
      for (const tag of ['A', 'B', 'C']) {
        const mine = got.filter((m) => m.content.startsWith(`${tag}-`));
        expect(mine.map((m) => m.content)).toEqual(
          Array.from({ length: 60 }, (_, i) => `${tag}-${i}\n${'x'.repeat(i * 50)}\n${tag}-${i}-end`),
        );
      }
    });

    it('compaction archives the whole transcript, replaces it, carries later messages, and refuses a stale basis', async () => {
      const { store } = await setup();
      await store.append('acme', 'alice', [msg('user', 'one'), msg('assistant', 'two', 1)], header('c1'));
      const snapshot = (await store.read('acme', 'alice'))!;
      await store.append('acme', 'alice', [msg('user', 'three, after the snapshot', 2)], header('c1'));
      const r = await store.compact('acme', 'alice', {
        basis: { conversationId: 'c1', messageCount: snapshot.messages.length },
        header: header('c2', 10),
        messages: [msg('system', '[Compressed Memory Summary]\none, two', 10), msg('user', '')],
        archivedAt: at(10),
      });
      expect(r.carried).toBe(1);
      expect(r.archive.id).toBe('history_2026-03-01T12-00-00.010Z');
      expect(r.archive.archivedAt).toBe(at(10));
      expect(r.archive.size).toBeGreaterThan(0);
      const expected: Transcript = {
        header: header('c2', 10),
        messages: [
          msg('system', '[Compressed Memory Summary]\none, two', 10),
          msg('user', 'three, after the snapshot', 2),
        ],
      };
      expect(r.transcript).toEqual(expected);
      expect(await store.read('acme', 'alice')).toEqual(expected);
      expect(await store.listArchives('acme', 'alice')).toEqual([r.archive]);
      expect(await store.readArchive('acme', 'alice', r.archive.id)).toEqual({
        header: header('c1'),
        messages: [msg('user', 'one'), msg('assistant', 'two', 1), msg('user', 'three, after the snapshot', 2)],
      });
      // The snapshot is gone: compacting from it again is a conflict, and nothing changes.
      await expectCode(
        store.compact('acme', 'alice', {
          basis: { conversationId: 'c1', messageCount: 2 },
          header: header('c3'),
          messages: [],
          archivedAt: at(20),
        }),
        'CONFLICT',
      );
      await expectCode(
        store.compact('acme', 'alice', {
          basis: { conversationId: 'c2', messageCount: 5 },
          header: header('c3'),
          messages: [],
          archivedAt: at(20),
        }),
        'CONFLICT',
      );
      expect(await store.read('acme', 'alice')).toEqual(expected);
      expect(await store.listArchives('acme', 'alice')).toHaveLength(1);
      await expectCode(
        store.compact('acme', 'nobody', {
          basis: { conversationId: 'c1', messageCount: 0 },
          header: header('c3'),
          messages: [],
          archivedAt: at(20),
        }),
        'NOT_FOUND',
      );
    });

    it('keeps two archives taken in the same millisecond (and a third)', async () => {
      const { store } = await setup();
      await store.append('acme', 'alice', [msg('user', 'first')], header('c1'));
      const stamp = at(0);
      const a = await store.compact('acme', 'alice', {
        basis: { conversationId: 'c1', messageCount: 1 },
        header: header('c2'),
        messages: [msg('system', 's1')],
        archivedAt: stamp,
      });
      const b = await store.compact('acme', 'alice', {
        basis: { conversationId: 'c2', messageCount: 1 },
        header: header('c3'),
        messages: [msg('system', 's2')],
        archivedAt: stamp,
      });
      const c = await store.compact('acme', 'alice', {
        basis: { conversationId: 'c3', messageCount: 1 },
        header: header('c4'),
        messages: [msg('system', 's3')],
        archivedAt: stamp,
      });
      const ids = [a.archive.id, b.archive.id, c.archive.id];
      expect(new Set(ids).size).toBe(3);
      expect((await store.listArchives('acme', 'alice')).map((x) => x.id)).toEqual(ids);
      expect((await store.readArchive('acme', 'alice', a.archive.id)).messages.map((m) => m.content)).toEqual([
        'first',
      ]);
      expect((await store.readArchive('acme', 'alice', b.archive.id)).messages.map((m) => m.content)).toEqual(['s1']);
      expect((await store.readArchive('acme', 'alice', c.archive.id)).messages.map((m) => m.content)).toEqual(['s2']);
      expect(await store.deleteArchive('acme', 'alice', b.archive.id)).toBe(true);
      expect(await store.deleteArchive('acme', 'alice', b.archive.id)).toBe(false);
      expect((await store.listArchives('acme', 'alice')).map((x) => x.id)).toEqual([a.archive.id, c.archive.id]);
    });

    it('a crash before any step of a compaction leaves the old or the new transcript and only complete archives', async () => {
      const f = await setup();
      // Learn the adapter's steps from one compaction.
      const steps: string[] = [];
      hook = (step) => void steps.push(step);
      await f.store.append('acme', 'probe', [msg('user', 'probe')], header('p1'));
      await f.store.compact('acme', 'probe', {
        basis: { conversationId: 'p1', messageCount: 1 },
        header: header('p2'),
        messages: [msg('system', 'p')],
        archivedAt: at(0),
      });
      expect(steps.length).toBeGreaterThanOrEqual(2);

      for (const [i, step] of steps.entries()) {
        const agent = `crash-${i}`;
        hook = undefined;
        const old: TranscriptMessage[] = Array.from({ length: 5 }, (_, k) =>
          msg(k % 2 ? 'assistant' : 'user', `${agent} message ${k}\n---\nwith a rule`, k),
        );
        await f.store.append('acme', agent, old, header(`o${i}`));
        const oldTranscript = (await f.store.read('acme', agent))!;
        const next: Transcript = {
          header: header(`n${i}`, 100),
          messages: [msg('system', `summary of ${agent}`, 100)],
        };
        hook = (s) => {
          if (s === step) throw new SimulatedCrash(s);
        };
        await expect(
          f.store.compact('acme', agent, {
            basis: { conversationId: `o${i}`, messageCount: 5 },
            header: next.header,
            messages: next.messages,
            archivedAt: at(100),
          }),
        ).rejects.toBeInstanceOf(SimulatedCrash);
        hook = undefined;

        // "Restart": another instance, with no hook.
        const reopened = await another(f);
        const now = await reopened.read('acme', agent);
        expect([oldTranscript, next], `after a crash before "${step}"`).toContainEqual(now);
        const archives = await reopened.listArchives('acme', agent);
        for (const a of archives) expect(await reopened.readArchive('acme', agent, a.id)).toEqual(oldTranscript);
        if (now?.header.conversationId === `n${i}`) expect(archives.length).toBeGreaterThanOrEqual(1);
        // Nothing is stuck: the transcript takes appends and compacts again, and no message was lost.
        await reopened.append('acme', agent, [msg('user', 'after the crash', 200)], header('unused'));
        const current = (await reopened.read('acme', agent))!;
        const r = await reopened.compact('acme', agent, {
          basis: { conversationId: current.header.conversationId, messageCount: current.messages.length },
          header: header(`z${i}`, 300),
          messages: [msg('system', 'final', 300)],
          archivedAt: at(300),
        });
        const seen = new Set<string>();
        for (const a of await reopened.listArchives('acme', agent))
          for (const m of (await reopened.readArchive('acme', agent, a.id)).messages) seen.add(m.content);
        for (const m of [...old, msg('user', 'after the crash', 200)])
          expect(seen.has(m.content), `${m.content} after a crash before "${step}"`).toBe(true);
        expect(r.transcript.messages.map((m) => m.content)).toEqual(['final']);
      }
    });

    it('compaction is exclusive: racing compactions from two instances, one wins and the other gets CONFLICT', async () => {
      const f = await setup();
      const other = await another(f);
      await f.store.append('acme', 'alice', [msg('user', 'a'), msg('user', 'b', 1)], header('c1'));
      const change = (id: string) => ({
        basis: { conversationId: 'c1', messageCount: 2 },
        header: header(id, 5),
        messages: [msg('system', `by ${id}`, 5)],
        archivedAt: at(5),
      });
      const results = await Promise.allSettled([
        f.store.compact('acme', 'alice', change('x')),
        other.compact('acme', 'alice', change('y')),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(MemError.is((lost[0] as PromiseRejectedResult).reason, 'CONFLICT')).toBe(true);
      expect(await f.store.listArchives('acme', 'alice')).toHaveLength(1);
    });

    it('withLock is exclusive across instances and its handle reads, appends and compacts', async () => {
      const f = await setup();
      const other = await another(f);
      const spans: [number, number][] = [];
      const critical = (s: TranscriptStore, tag: string) =>
        s.withLock('acme', 'alice', async (tx) => {
          const start = performance.now();
          await tx.append([msg('user', `${tag} in lock`)], header('c1'));
          const t = await tx.read();
          if (tag === 'B' && t) {
            await tx.compact({
              basis: { conversationId: t.header.conversationId, messageCount: t.messages.length },
              header: header('c9', 9),
              messages: [msg('system', 'B compacted', 9)],
              archivedAt: at(9),
            });
          }
          spans.push([start, performance.now()]);
        });
      await Promise.all([critical(f.store, 'A'), critical(other, 'B'), critical(f.store, 'C')]);
      spans.sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      const seen = new Set<string>();
      for (const a of await f.store.listArchives('acme', 'alice'))
        for (const m of (await f.store.readArchive('acme', 'alice', a.id)).messages) seen.add(m.content);
      for (const m of (await f.store.read('acme', 'alice'))!.messages) seen.add(m.content);
      expect([...seen].filter((c) => c.endsWith('in lock')).sort()).toEqual(['A in lock', 'B in lock', 'C in lock']);
    });

    it('appends racing compactions from another instance all end up in the transcript or an archive', async () => {
      const f = await setup();
      const other = await another(f);
      await f.store.append('acme', 'alice', [msg('user', 'seed')], header('c0'));
      let stop = false;
      let compactions = 0;
      const compactor = (async () => {
        let round = 0;
        while (!stop || round < 2) {
          round++;
          const t = (await other.read('acme', 'alice'))!;
          try {
            await other.compact('acme', 'alice', {
              basis: { conversationId: t.header.conversationId, messageCount: t.messages.length },
              header: header(`k${round}`, round),
              messages: [msg('system', `summary ${round}`, round)],
              archivedAt: at(round),
            });
            compactions++;
          } catch (e) {
            if (!MemError.is(e, 'CONFLICT')) throw e;
          }
        }
      })();
      for (let i = 0; i < 80; i++) await f.store.append('acme', 'alice', [msg('user', `m${i}`, i)], header('c0'));
      stop = true;
      await compactor;
      expect(compactions).toBeGreaterThanOrEqual(2);
      const seen = new Set<string>();
      for (const m of (await f.store.read('acme', 'alice'))!.messages) seen.add(m.content);
      for (const a of await f.store.listArchives('acme', 'alice'))
        for (const m of (await f.store.readArchive('acme', 'alice', a.id)).messages) seen.add(m.content);
      for (let i = 0; i < 80; i++) expect(seen.has(`m${i}`), `m${i}`).toBe(true);
    });

    it('remove deletes one agent’s transcript and archives, and nothing else', async () => {
      const { store } = await setup();
      await store.append('acme', 'alice', [msg('user', 'x')], header('c1'));
      await store.compact('acme', 'alice', {
        basis: { conversationId: 'c1', messageCount: 1 },
        header: header('c2'),
        messages: [msg('system', 's')],
        archivedAt: at(0),
      });
      await store.compact('acme', 'alice', {
        basis: { conversationId: 'c2', messageCount: 1 },
        header: header('c3'),
        messages: [msg('system', 's2')],
        archivedAt: at(1),
      });
      await store.append('acme', 'bob', [msg('user', 'y')], header('c4'));
      await store.append('globex', 'alice', [msg('user', 'z')], header('c5'));
      expect(await store.remove('acme', 'alice')).toEqual({ transcripts: 1, archives: 2 });
      expect(await store.read('acme', 'alice')).toBeNull();
      expect(await store.listArchives('acme', 'alice')).toEqual([]);
      expect(await store.agents('acme')).toEqual(['bob']);
      expect((await store.read('globex', 'alice'))?.messages).toHaveLength(1);
      expect(await store.remove('acme', 'alice')).toEqual({ transcripts: 0, archives: 0 });
    });

    it('serves the conversation service: reload as persistent memory, compaction at the threshold', async () => {
      const f = await setup();
      const clock = new ManualClock('2026-03-01T12:00:00.000Z');
      const conv = new Conversation({
        store: f.store,
        space: 'acme',
        agentId: 'alice',
        clock,
        tokenizer: wordTokenizer,
        systemPrompt: 'SYS',
        options: { contextLength: 200 },
      });
      for (let i = 0; i < 30; i++) {
        await conv.maybeCompress();
        await conv.add('user', `fact ${i} one two three four five`);
      }
      expect((await f.store.listArchives('acme', 'alice')).length).toBeGreaterThanOrEqual(1);
      const restarted = new Conversation({
        store: await another(f),
        space: 'acme',
        agentId: 'alice',
        clock,
        tokenizer: wordTokenizer,
        systemPrompt: 'SYS',
        summarizer: createTemplateSummarizer(),
      });
      const history = await restarted.history();
      expect(history[0]).toEqual({ role: 'system', content: 'SYS' });
      expect(history[1]!.content).toContain('[Compressed Memory Summary]');
      expect(history[1]!.content).toContain('fact 29 one two');
    });
  });
}
