import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { type BaseStore, InMemoryStore, type Item } from '@langchain/langgraph-checkpoint';
import { createHashingEmbedder, createStack, MemError, type Stack } from '@mem/core';
import { createSqliteStore } from '@mem/store-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeSegment, encodeSegment, MemStore, parseItemKey } from '../src/index.js';

const me = { space: 'lg', agentId: 'graph', role: 'worker' } as const;

let dir: string;
let stack: Stack;
let mem: MemStore;
let ref: InMemoryStore;

/** A clock that moves 1 ms per reading, so that creation order is total (as InMemoryStore's insertion order). */
function tickingClock() {
  let t = Date.parse('2026-03-01T00:00:00.000Z');
  return { now: () => new Date(t++) };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-langgraph-'));
  stack = createStack({
    knowledge: createSqliteStore({ path: join(dir, 'mem.db') }),
    embedder: createHashingEmbedder(),
    clock: tickingClock(),
  });
  mem = new MemStore({ knowledge: stack.knowledge, principal: me });
  ref = new InMemoryStore();
});

afterEach(async () => {
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What both stores must agree on: addresses and values (timestamps are each store's own). */
const view = (items: (Item | null)[]) => items.map((i) => (i ? { ns: i.namespace, key: i.key, value: i.value } : null));

async function both<T>(run: (s: BaseStore) => Promise<T>): Promise<[T, T]> {
  return [await run(ref), await run(mem)];
}

const DOCS: [string[], string, Record<string, unknown>][] = [
  [['users', 'ada'], 'prefs', { theme: 'dark', lang: 'en', level: 3 }],
  [['users', 'ada'], 'food', { text: 'Ada likes pistachio ice cream', level: 1 }],
  [['users', 'bob'], 'prefs', { theme: 'light', lang: 'fr', level: 5 }],
  [['users', 'bob', 'notes'], 'n1', { text: 'Bob deploys on Fridays', level: 2, nested: { a: [1, 'two', null] } }],
  [['teams', 'Core_Platform'], 'Mixed_Case.Key', { text: 'Namespace with capitals and periods', level: 4 }],
];

async function seed(s: BaseStore) {
  for (const [ns, key, value] of DOCS) await s.put(ns, key, value);
}

describe('the key mapping', () => {
  it('round-trips any label, and keeps plain labels readable', () => {
    for (const label of ['users', 'Ada', 'a.b', 'under_score', 'with space', 'é日本🙂', '-', '_', '%41', '']) {
      const seg = encodeSegment(label);
      expect(seg).toMatch(/^[a-z0-9._-]+$/);
      expect(decodeSegment(seg)).toBe(label);
    }
    expect(encodeSegment('user-42')).toBe('user-42');
    expect(encodeSegment('Core.Platform')).toBe('_43ore_2eplatform'.replace('platform', '_50latform'));
    expect(parseItemKey('/langgraph', '/langgraph/users/_41da/prefs')).toEqual({
      namespace: ['users', 'Ada'],
      key: 'prefs',
    });
    expect(parseItemKey('/langgraph', '/langgraph/only')).toBeUndefined();
    expect(decodeSegment('_zz')).toBeUndefined();
  });
});

describe('MemStore against InMemoryStore', () => {
  it('get, put, overwrite and delete agree, values round-trip exactly', async () => {
    await both(seed);
    const addresses = [...DOCS.map(([ns, k]) => [ns, k] as const), [['users', 'nobody'], 'prefs'] as const];
    const [a, b] = await both((s) => Promise.all(addresses.map(([ns, k]) => s.get([...ns], k))));
    expect(view(b)).toEqual(view(a));
    expect(b[3]!.value).toEqual({ text: 'Bob deploys on Fridays', level: 2, nested: { a: [1, 'two', null] } });
    const before = b[0]!;
    expect(before.createdAt).toBeInstanceOf(Date);

    await both((s) => s.put(['users', 'ada'], 'prefs', { theme: 'solarized' }));
    await both((s) => s.put(['users', 'ada'], 'prefs', { theme: 'solarized' })); // the same value again
    await both((s) => s.delete(['users', 'bob'], 'prefs'));
    await both((s) => s.delete(['users', 'bob'], 'never-there'));
    const [c, d] = await both((s) => Promise.all(addresses.map(([ns, k]) => s.get([...ns], k))));
    expect(view(d)).toEqual(view(c));
    expect(d[0]!.value).toEqual({ theme: 'solarized' });
    expect(d[0]!.createdAt.getTime()).toBe(before.createdAt.getTime());
    expect(d[0]!.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    expect(d[2]).toBeNull();
    // Written as memories under readable keys, with escapes where the key grammar needs them.
    const doc = await stack.knowledge.peek(me, {
      key: '/langgraph/teams/_43ore_5f_50latform/_4dixed_5f_43ase_2e_4bey',
    });
    expect(doc.content).toContain('Namespace with capitals and periods');
  });

  it('search without a query: prefix, filter (with operators), limit and offset agree', async () => {
    await both(seed);
    const cases: [string[], Parameters<BaseStore['search']>[1]][] = [
      [[], {}],
      [['users'], {}],
      [['users', 'bob'], {}],
      [['users'], { filter: { theme: 'dark' } }],
      [[], { filter: { level: { $gte: 2, $lt: 5 } } }],
      [[], { filter: { lang: { $in: ['fr', 'de'] } } }],
      [[], { filter: { theme: { $ne: 'dark' } } }],
      [[], { limit: 2 }],
      [[], { limit: 2, offset: 2 }],
      [['users'], { offset: 10 }],
      [['nothing'], {}],
    ];
    for (const [prefix, options] of cases) {
      const [a, b] = await both((s) => s.search(prefix, options));
      expect({ prefix, options, items: view(b) }).toEqual({ prefix, options, items: view(a) });
    }
  });

  it('listNamespaces with prefix, suffix, wildcards, maxDepth, limit and offset agree', async () => {
    await both(seed);
    const cases: Parameters<BaseStore['listNamespaces']>[0][] = [
      {},
      { prefix: ['users'] },
      { suffix: ['notes'] },
      { prefix: ['users', '*'] },
      { suffix: ['*', 'ada'] },
      { maxDepth: 1 },
      { prefix: ['users'], maxDepth: 2 },
      { limit: 2, offset: 1 },
    ];
    for (const options of cases) {
      const [a, b] = await both((s) => s.listNamespaces(options));
      expect({ options, ns: b }).toEqual({ options, ns: a });
    }
    expect(await mem.listNamespaces({ prefix: ['teams'] })).toEqual([['teams', 'Core_Platform']]);
  });

  it('batch: reads see the state before the batch, the last put of an item wins', async () => {
    const ops = [
      { namespace: ['b'], key: 'k', value: { v: 1 } },
      { namespace: ['b'], key: 'k' },
      { namespace: ['b'], key: 'k', value: { v: 2 } },
      { namespacePrefix: ['b'], limit: 10, offset: 0 },
      { matchConditions: undefined, limit: 10, offset: 0 },
    ];
    const [a, b] = await both((s) => s.batch(ops as never));
    expect(b).toEqual(a);
    const [c, d] = await both((s) => s.get(['b'], 'k'));
    expect(d?.value).toEqual({ v: 2 });
    expect(view([d])).toEqual(view([c]));
  });

  it('search with a query is ranked by mem and finds the same items; filter, limit and offset apply after ranking', async () => {
    await both(seed);
    await mem.put(['docs'], 'pg', { text: 'PostgreSQL runs the billing database with pgvector' });
    await mem.put(['docs'], 'cook', { text: 'A recipe for lemon cake with fresh lemons' });
    await mem.put(['docs'], 'deploy', { text: 'Deployments to production happen every Tuesday' });
    const top = await mem.search(['docs'], { query: 'lemon cake recipe', limit: 3 });
    expect(top[0]!.key).toBe('cook');
    expect(top[0]!.score).toBeGreaterThan(top[1]?.score ?? 0);
    expect(top.every((i) => i.namespace[0] === 'docs')).toBe(true);
    const second = await mem.search(['docs'], { query: 'lemon cake recipe', limit: 1, offset: 1 });
    expect(second.map((i) => i.key)).toEqual([top[1]!.key]);
    const filtered = await mem.search([], { query: 'Bob deploys', filter: { level: 2 } });
    expect(filtered.map((i) => i.key)).toEqual(['n1']);
    // Without embeddings InMemoryStore ignores the query; the items found under a prefix are the same set.
    const all = await mem.search(['users'], { query: 'theme lang text', limit: 50 });
    const refAll = await ref.search(['users'], { limit: 50 });
    expect(new Set(all.map((i) => `${i.namespace.join('/')}:${i.key}`))).toEqual(
      new Set(refAll.map((i) => `${i.namespace.join('/')}:${i.key}`)),
    );
  });

  it('with a query, the best match agrees with InMemoryStore indexed by the same embedder', async () => {
    const hashing = createHashingEmbedder();
    const vectors = async (texts: string[]) => (await hashing.embed(texts)).map((v) => Array.from(v));
    const indexed = new InMemoryStore({
      index: {
        dims: hashing.dimension,
        embeddings: {
          embedDocuments: vectors,
          embedQuery: async (t: string) => (await vectors([t]))[0]!,
        } as never,
      },
    });
    const docs: [string, string][] = [
      ['pg', 'PostgreSQL runs the billing database with pgvector'],
      ['cook', 'A recipe for lemon cake with fresh lemons'],
      ['deploy', 'Deployments to production happen every Tuesday'],
    ];
    for (const s of [indexed, mem] as BaseStore[]) for (const [k, text] of docs) await s.put(['docs'], k, { text });
    for (const query of ['lemon cake recipe', 'billing database', 'production deployments Tuesday']) {
      const [a, b] = [
        await indexed.search(['docs'], { query, limit: 3 }),
        await mem.search(['docs'], { query, limit: 3 }),
      ];
      expect({ query, top: b[0]!.key }).toEqual({ query, top: a[0]!.key });
      expect(new Set(b.map((i) => i.key))).toEqual(new Set(a.map((i) => i.key)));
    }
  });

  it('refuses bad input with clear MemErrors and writes nothing', async () => {
    const bad: [() => Promise<unknown>, string][] = [
      [() => mem.put(['x'], 'k', [1, 2] as never), 'JSON object'],
      [() => mem.put(['x'], 'k', { when: new Date() }), 'plain JSON'],
      [() => mem.put(['x'], 'k', { n: Number.NaN }), 'plain JSON'],
      [() => mem.put(['x'], '', { a: 1 }), 'non-empty string'],
      [() => mem.put(['x'.repeat(150)], 'K'.repeat(40), { a: 1 }), 'mem keys hold at most 200'],
      [() => mem.search(['x'], { limit: -1 }), 'limit'],
      [() => mem.listNamespaces({ maxDepth: 0 }), 'maxDepth'],
      [() => mem.batch([{ nonsense: true }] as never), 'not a get, put, search'],
    ];
    for (const [run, text] of bad) {
      const error = await run().then(
        () => null,
        (e) => e,
      );
      expect(MemError.is(error, 'INVALID_INPUT'), String(error)).toBe(true);
      expect(error.message).toContain(text);
    }
    // LangGraph's own namespace rules still apply before the store is reached.
    await expect(mem.put([], 'k', { a: 1 })).rejects.toThrow(/Namespace cannot be empty/);
    // A credential in a value is refused by mem, like any other write.
    const secret = await mem
      .put(['x'], 'k', { token: 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD' })
      .catch((e) => e);
    expect(MemError.is(secret, 'SECRET_DETECTED')).toBe(true);
    expect(await mem.search([], {})).toEqual([]);
    expect(() => new MemStore({ knowledge: stack.knowledge, principal: me, root: 'Bad Root' })).toThrow(/Invalid key/);
  });

  it('persists in the SQLite file: a new stack on the same file sees the items', async () => {
    await mem.put(['users', 'Ada'], 'prefs', { theme: 'dark' });
    await stack.close();
    stack = createStack({
      knowledge: createSqliteStore({ path: join(dir, 'mem.db') }),
      embedder: createHashingEmbedder(),
    });
    const again = new MemStore({ knowledge: stack.knowledge, principal: me });
    expect((await again.get(['users', 'Ada'], 'prefs'))?.value).toEqual({ theme: 'dark' });
  });
});

describe('in a real LangGraph graph', () => {
  it('a node reads and writes the store given to compile()', async () => {
    const State = Annotation.Root({
      user: Annotation<string>(),
      fact: Annotation<string>(),
      recalled: Annotation<string[]>(),
    });
    const graph = new StateGraph(State)
      .addNode('remember', async (state, config) => {
        const store = config.store!;
        await store.put(['facts', state.user], `f${Date.now()}`, { text: state.fact });
        const found = await store.search(['facts', state.user], { query: state.fact, limit: 5 });
        return { recalled: found.map((i) => String(i.value.text)) };
      })
      .addEdge(START, 'remember')
      .addEdge('remember', END)
      .compile({ store: mem });
    const out = await graph.invoke({ user: 'Ada', fact: 'Ada prefers tea over coffee' });
    expect(out.recalled).toEqual(['Ada prefers tea over coffee']);
    const items = await mem.search(['facts', 'Ada']);
    expect(items.map((i) => i.value)).toEqual([{ text: 'Ada prefers tea over coffee' }]);
  });
});
