import { createInMemoryKnowledgeStore, createInMemoryStructuredStores, createStack, forget, MemError } from '@mem/core';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_KEY_LENGTH, MemKeyValueStore } from '../src/index.js';
import { cleanup, world } from './world.js';

afterEach(cleanup);

const SPACE = 'acme';
const keys = async (store: MemKeyValueStore<unknown>, prefix?: string) => {
  const out: string[] = [];
  for await (const k of store.yieldKeys(prefix)) out.push(k);
  return out;
};

describe('MemKeyValueStore: the behaviours of LangChain store tests, on a SQLite file', () => {
  it('mget of missing keys gives undefined; mset then mget returns the values in the order asked', async () => {
    const store = new MemKeyValueStore<unknown>({ stack: world().boot(), space: SPACE });
    expect(await store.mget(['a', 'b'])).toEqual([undefined, undefined]);
    expect(await store.mget([])).toEqual([]);
    await store.mset([
      ['a', 'value1'],
      ['b', { nested: { list: [1, 2.5, null, true, 'é🙂'] } }],
      ['c', 0],
      ['d', null],
      ['e', false],
      ['f', []],
    ]);
    expect(await store.mget(['f', 'missing', 'a', 'b', 'c', 'd', 'e'])).toEqual([
      [],
      undefined,
      'value1',
      { nested: { list: [1, 2.5, null, true, 'é🙂'] } },
      0,
      null,
      false,
    ]);
    // Overwrite; within one mset the last value of a key wins.
    await store.mset([
      ['a', 'first'],
      ['a', 'second'],
    ]);
    expect(await store.mget(['a'])).toEqual(['second']);
    expect(await keys(store)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('mdelete removes values and keys; deleting a missing key is no error', async () => {
    const store = new MemKeyValueStore<string>({ stack: world().boot(), space: SPACE });
    await store.mset([
      ['key1', 'value1'],
      ['key2', 'value2'],
      ['key3', 'value3'],
    ]);
    await store.mdelete(['key1', 'key3', 'never-set', 'key1']);
    expect(await store.mget(['key1', 'key2', 'key3'])).toEqual([undefined, 'value2', undefined]);
    expect(await keys(store)).toEqual(['key2']);
    await store.mdelete([]);
    await store.mdelete(['key2']);
    expect(await keys(store)).toEqual([]);
  });

  it('yieldKeys lists every key, or those with a prefix, sorted', async () => {
    const store = new MemKeyValueStore<number>({ stack: world().boot(), space: SPACE });
    const pairs = Array.from({ length: 40 }, (_, i) => [`${i % 2 ? 'message' : 'doc'}:id:${i}`, i] as [string, number]);
    await store.mset(pairs);
    const all = pairs.map(([k]) => k).sort();
    expect(await keys(store)).toEqual(all);
    expect(await keys(store, '')).toEqual(all);
    expect(await keys(store, 'message:id:')).toEqual(all.filter((k) => k.startsWith('message:id:')));
    expect(await keys(store, 'message:id:1')).toEqual([
      'message:id:1',
      'message:id:11',
      'message:id:13',
      'message:id:15',
      'message:id:17',
      'message:id:19',
    ]);
    expect(await keys(store, 'nothing')).toEqual([]);
    // LangChain's idiom: delete what a prefix lists.
    const listed: string[] = [];
    for await (const k of store.yieldKeys('doc:')) listed.push(k);
    await store.mdelete(listed);
    expect(await keys(store)).toEqual(all.filter((k) => k.startsWith('message:')));
  });

  it('bytes round-trip as Uint8Array (as CacheBackedEmbeddings stores vectors); strings that look like base64 stay strings', async () => {
    const store = new MemKeyValueStore<unknown>({ stack: world().boot(), space: SPACE, namespace: 'embeddings' });
    const all = new Uint8Array(256).map((_, i) => i);
    const vector = new TextEncoder().encode(JSON.stringify([0.1, -0.25, 3e-8]));
    const sliced = all.subarray(10, 20);
    await store.mset([
      ['all-bytes', all],
      ['vector', vector],
      ['empty', new Uint8Array(0)],
      ['sliced', sliced],
      ['buffer', Buffer.from('héllo')],
      ['looks-like-base64', 'AAECAw=='],
      ['object-with-base64', { base64: 'AAECAw==', $mem: 'langchain-kv' }],
    ]);
    const [a, v, e, s, b, text, obj] = await store.mget([
      'all-bytes',
      'vector',
      'empty',
      'sliced',
      'buffer',
      'looks-like-base64',
      'object-with-base64',
    ]);
    expect(a).toBeInstanceOf(Uint8Array);
    expect([...(a as Uint8Array)]).toEqual([...all]);
    expect(JSON.parse(new TextDecoder().decode(v as Uint8Array))).toEqual([0.1, -0.25, 3e-8]);
    expect(e).toEqual(new Uint8Array(0));
    expect([...(s as Uint8Array)]).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(new TextDecoder().decode(b as Uint8Array)).toBe('héllo');
    expect(Buffer.isBuffer(b)).toBe(false);
    expect(text).toBe('AAECAw==');
    expect(obj).toEqual({ base64: 'AAECAw==', $mem: 'langchain-kv' });
  });

  it('any key round-trips: spaces, %, line breaks, Unicode, a long key (by hash); a new process reads them', async () => {
    const w = world();
    const store = new MemKeyValueStore<string>({ stack: w.boot(), space: SPACE });
    const odd = [
      ' padded key ',
      '100%',
      '%25',
      'line\nbreak\ttab',
      'ünïcødé/🙂/路径',
      '\u00a0nbsp\u2028',
      'x'.repeat(500),
      `long:${'é'.repeat(300)}`,
    ];
    await store.mset(odd.map((k, i) => [k, `value ${i}`]));
    expect(await store.mget(odd)).toEqual(odd.map((_, i) => `value ${i}`));
    expect(await store.mget(['100%25', 'padded key', '%'])).toEqual([undefined, undefined, undefined]);
    // A restart: a new stack over the file sees the same keys and values.
    const again = new MemKeyValueStore<string>({ stack: w.boot(), space: SPACE });
    expect(await keys(again)).toEqual([...odd].sort());
    expect(await again.mget([odd[6]!])).toEqual(['value 6']);
    await again.mdelete([odd[6]!, odd[0]!]);
    expect(await store.mget([odd[6]!, odd[0]!])).toEqual([undefined, undefined]);
    expect(await keys(store)).toHaveLength(odd.length - 2);
  });

  it('spaces, namespaces and agents do not see each other; clear() empties one store', async () => {
    const stack = world().boot();
    const a = new MemKeyValueStore<string>({ stack, space: SPACE });
    const b = new MemKeyValueStore<string>({ stack, space: SPACE, namespace: 'docs:v2' });
    const c = new MemKeyValueStore<string>({ stack, space: 'other' });
    const d = new MemKeyValueStore<string>({ stack, space: SPACE, agentId: 'researcher' });
    await a.mset([['k', 'a']]);
    await b.mset([['k', 'b']]);
    await c.mset([['k', 'c']]);
    await d.mset([['k', 'd']]);
    expect([await a.mget(['k']), await b.mget(['k']), await c.mget(['k']), await d.mget(['k'])]).toEqual([
      ['a'],
      ['b'],
      ['c'],
      ['d'],
    ]);
    expect(await new MemKeyValueStore<string>({ stack, space: SPACE, namespace: 'default' }).mget(['k'])).toEqual([
      'a',
    ]);
    expect(await b.clear()).toBeGreaterThanOrEqual(2); // the value and its index bucket
    expect(await b.mget(['k'])).toEqual([undefined]);
    expect(await keys(b)).toEqual([]);
    expect(await a.mget(['k'])).toEqual(['a']);
    // An agent's keys live among its sessions: forgetting the agent removes them.
    expect(d.root).toBe('researcher/langchain-kv/default/');
    await forget(stack, { space: SPACE, agentId: 'admin', role: 'lead' }, { agentId: 'researcher' });
    expect(await d.mget(['k'])).toEqual([undefined]);
    expect(await keys(d)).toEqual([]);
    expect(await a.mget(['k'])).toEqual(['a']);
  });

  it('concurrent writes in one process all reach the key index, across store instances too', async () => {
    const stack = world().boot();
    const one = new MemKeyValueStore<number>({ stack, space: SPACE });
    const two = new MemKeyValueStore<number>({ stack, space: SPACE });
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).mset([[`k${String(i).padStart(2, '0')}`, i]])),
    );
    expect(await keys(one)).toEqual(Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, '0')}`));
    await Promise.all([one.mdelete(['k00', 'k01']), two.mdelete(['k02']), one.mset([['k99', 99]])]);
    expect((await keys(two)).slice(0, 2)).toEqual(['k03', 'k04']);
    expect(await keys(two)).toContain('k99');
  });

  it('works on any session-state port (in-memory structured stores) and writes the documented layout', async () => {
    const structured = createInMemoryStructuredStores();
    const store = new MemKeyValueStore<unknown>({
      sessionState: structured.sessionState,
      space: SPACE,
      namespace: 'n',
    });
    await store.mset([
      ['plain', { x: 1 }],
      ['bytes', new Uint8Array([1, 2, 3])],
    ]);
    expect(await structured.sessionState.get(SPACE, '.langchain-kv/n/v/plain')).toMatchObject({
      state: { $mem: 'langchain-kv', v: 1, key: 'plain', value: { x: 1 } },
    });
    expect(await structured.sessionState.get(SPACE, '.langchain-kv/n/v/bytes')).toMatchObject({
      state: { $mem: 'langchain-kv', v: 1, key: 'bytes', base64: 'AQID' },
    });
    let indexed = 0;
    for (const b of '0123456789abcdef') {
      const row = await structured.sessionState.get(SPACE, `.langchain-kv/n/i/${b}`);
      if (row) indexed += (row.state as { keys: string[] }).keys.length;
    }
    expect(indexed).toBe(2);
    expect(await keys(store)).toEqual(['bytes', 'plain']);
  });

  it('refuses bad input with MemErrors of stable codes and clear messages, and writes nothing', async () => {
    const stack = world().boot();
    const store = new MemKeyValueStore<unknown>({ stack, space: SPACE });
    const noState = createStack({ knowledge: createInMemoryKnowledgeStore() });
    const corrupt = new MemKeyValueStore<unknown>({ stack, space: SPACE, namespace: 'corrupt' });
    await stack.structured.sessionState!.set(
      SPACE,
      '.langchain-kv/corrupt/v/k',
      { hand: 'edited' },
      new Date().toISOString(),
    );
    const bad: [() => unknown, string, string][] = [
      [() => new MemKeyValueStore(undefined as never), 'INVALID_INPUT', 'needs { stack, space }'],
      [() => new MemKeyValueStore({ stack, space: '' }), 'INVALID_INPUT', 'space'],
      [() => new MemKeyValueStore({ stack, space: 42 as never }), 'INVALID_INPUT', 'space'],
      [() => new MemKeyValueStore({ stack, space: SPACE, namespace: 'a/b' }), 'INVALID_INPUT', 'namespace'],
      [() => new MemKeyValueStore({ stack, space: SPACE, namespace: '' }), 'INVALID_INPUT', 'namespace'],
      [() => new MemKeyValueStore({ stack, space: SPACE, agentId: '../x' }), 'INVALID_INPUT', 'agent'],
      [() => new MemKeyValueStore({ stack: noState, space: SPACE }), 'CAPABILITY_MISSING', 'session-state store'],
      [() => new MemKeyValueStore({ space: SPACE }), 'CAPABILITY_MISSING', '`stack`'],
      [() => store.mget('a' as never), 'INVALID_INPUT', 'mget takes an array of keys'],
      [() => store.mget([1 as never]), 'INVALID_INPUT', 'mget: key 0: a key is a non-empty string, got number 1'],
      [() => store.mget(['']), 'INVALID_INPUT', 'non-empty string'],
      [() => store.mget(['x'.repeat(MAX_KEY_LENGTH + 1)]), 'INVALID_INPUT', `at most ${MAX_KEY_LENGTH}`],
      [() => store.mget(['half \ud83d']), 'INVALID_INPUT', 'lone surrogate'],
      [() => store.mset({ a: 1 } as never), 'INVALID_INPUT', 'array of [key, value] pairs'],
      [() => store.mset([['a'] as never]), 'INVALID_INPUT', 'pair 0 is not a [key, value] pair'],
      [
        () =>
          store.mset([
            ['ok', 1],
            [7 as never, 1],
          ]),
        'INVALID_INPUT',
        'pair 1',
      ],
      [() => store.mset([['a', undefined]]), 'INVALID_INPUT', 'use mdelete'],
      [() => store.mset([['a', new Date()]]), 'INVALID_INPUT', 'plain JSON'],
      [() => store.mset([['a', { n: Number.NaN }]]), 'INVALID_INPUT', 'plain JSON'],
      [() => store.mset([['a', new Map()]]), 'INVALID_INPUT', 'plain JSON'],
      [() => store.mset([['a', { bytes: new Uint8Array(1) }]]), 'INVALID_INPUT', 'bytes inside an object'],
      [() => store.mset([['a', new Float32Array(2)]]), 'INVALID_INPUT', 'Uint8Array'],
      [() => store.mset([['a', () => 1]]), 'INVALID_INPUT', 'plain JSON'],
      [() => store.mset([['big', 'x'.repeat(1_100_000)]]), 'TOO_LARGE', 'key "big"'],
      [() => store.mdelete([null as never]), 'INVALID_INPUT', 'mdelete: key 0'],
      [() => keys(store, 5 as never), 'INVALID_INPUT', 'prefix must be a string'],
      [() => corrupt.mget(['k']), 'STORE_CORRUPT', 'not a MemKeyValueStore value'],
    ];
    for (const [run, code, text] of bad) {
      const error = await (async () => run())().then(
        () => null,
        (e) => e,
      );
      expect(MemError.is(error, code as never), `${text}: ${String(error)}`).toBe(true);
      expect(error.message).toContain(text);
    }
    expect(await keys(store)).toEqual([]);
    expect(await store.mget(['ok', 'a', 'big'])).toEqual([undefined, undefined, undefined]);
    await noState.close();
  });
});
