/**
 * MemCheckpointSaver beyond the official suite (checkpointer.conformance.test.ts): restarts over one SQLite file,
 * spaces, forks that reuse channel versions, documents split into pieces, ids of any length and character, the
 * special write channels, deleteThread, and the errors of a bad construction. Each scenario runs on SQLite and on
 * the in-memory structured stores (the saver only speaks the session-state port).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotation, Command, interrupt, START, StateGraph } from '@langchain/langgraph';
import {
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  ERROR,
  emptyCheckpoint,
  INTERRUPT,
  uuid6,
} from '@langchain/langgraph-checkpoint';
import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryStructuredStores,
  createStack,
  MemError,
  type Stack,
} from '@mem/core';
import { createSqliteStores } from '@mem/store-sqlite';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ids } from '../src/checkpointer-rows.js';
import { MemCheckpointSaver } from '../src/index.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One store; each `boot()` is one process over it (a restart on SQLite; the same memory otherwise). */
function world(kind: 'sqlite' | 'memory') {
  const dir = mkdtempSync(join(tmpdir(), 'mem-lg-saver-'));
  dirs.push(dir);
  const shared = createInMemoryStructuredStores();
  return {
    boot: () => {
      const stack =
        kind === 'sqlite'
          ? createStack({
              stores: createSqliteStores({ path: join(dir, 'mem.db') }),
              embedder: createHashingEmbedder(),
              logger: quiet,
            })
          : createStack({ knowledge: createInMemoryKnowledgeStore(), structured: shared, logger: quiet });
      if (kind === 'sqlite') stacks.push(stack);
      return stack;
    },
  };
}

const meta = (step: number, source: CheckpointMetadata['source'] = 'loop'): CheckpointMetadata => ({
  source,
  step,
  parents: {},
});

function checkpoint(values: Record<string, unknown>, versions: Record<string, number>): Checkpoint {
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: values, channel_versions: versions };
}

const thread = (id: string, ns = '', checkpoint_id?: string) => ({
  configurable: { thread_id: id, checkpoint_ns: ns, ...(checkpoint_id ? { checkpoint_id } : {}) },
});

async function all(saver: MemCheckpointSaver, config = {}, options = {}): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const t of saver.list(config, options)) out.push(t);
  return out;
}

describe.each(['sqlite', 'memory'] as const)('MemCheckpointSaver on %s', (kind) => {
  it('a thread survives a restart: the next process reads the latest checkpoint, its history and its writes', async () => {
    const w = world(kind);
    const first = new MemCheckpointSaver({ stack: w.boot(), space: 'graphs' });
    const a = checkpoint({ messages: ['hi'] }, { messages: 1 });
    const ca = await first.put(thread('t1'), a, meta(0, 'input'), { messages: 1 });
    const b = checkpoint({ messages: ['hi', 'hello'], step: 1 }, { messages: 2, step: 1 });
    const cb = await first.put(ca, b, meta(1), { messages: 2, step: 1 });
    await first.putWrites(cb, [['messages', ['next']]], 'task-1', '~a');

    const second = new MemCheckpointSaver({ stack: w.boot(), space: 'graphs' });
    const latest = await second.getTuple(thread('t1'));
    expect(latest?.checkpoint).toEqual(b);
    expect(latest?.config).toEqual(cb);
    expect(latest?.parentConfig).toEqual(ca);
    expect(latest?.pendingWrites).toEqual([['task-1', 'messages', ['next']]]);
    expect((await all(second, thread('t1'))).map((t) => t.checkpoint.id)).toEqual([b.id, a.id]);
    expect((await all(second, {})).map((t) => t.checkpoint.id)).toEqual([b.id, a.id]);
    expect((await all(second, thread('t1'), { filter: { source: 'input' } })).map((t) => t.checkpoint.id)).toEqual([
      a.id,
    ]);
    expect((await all(second, thread('t1'), { before: cb })).map((t) => t.checkpoint.id)).toEqual([a.id]);
    expect((await all(second, thread('t1'), { limit: 1 })).map((t) => t.checkpoint.id)).toEqual([b.id]);
    expect(await second.getTuple(thread('t1', 'other'))).toBeUndefined();
  });

  it('threads are scoped by space, and deleteThread removes every document of the thread and only those', async () => {
    const stack = world(kind).boot();
    const ours = new MemCheckpointSaver({ stack, space: 'ours' });
    const theirs = new MemCheckpointSaver({ stack, space: 'theirs' });
    const c = await ours.put(thread('t'), checkpoint({ x: 1 }, { x: 1 }), meta(0), { x: 1 });
    await ours.putWrites(c, [['x', 2]], 'task');
    await ours.put(thread('u'), checkpoint({ x: 3 }, { x: 1 }), meta(0), { x: 1 });
    await theirs.put(thread('t'), checkpoint({ x: 9 }, { x: 1 }), meta(0), { x: 1 });
    expect((await ours.getTuple(thread('t')))?.checkpoint.channel_values).toEqual({ x: 1 });
    expect((await theirs.getTuple(thread('t')))?.checkpoint.channel_values).toEqual({ x: 9 });

    await ours.deleteThread('t');
    expect(await ours.getTuple(thread('t'))).toBeUndefined();
    expect(await ours.getTuple(c)).toBeUndefined();
    expect((await all(ours, {})).map((t) => t.config.configurable?.thread_id)).toEqual(['u']);
    expect((await theirs.getTuple(thread('t')))?.checkpoint.channel_values).toEqual({ x: 9 });
    // Nothing of the thread is left under its prefix.
    expect(await stack.structured.sessionState!.deleteSessions('ours', ids.threadPrefix('t'))).toBe(0);
    await ours.deleteThread('never-written');
  });

  it('a fork that reuses a channel version keeps both branches apart (values are per writing checkpoint)', async () => {
    const saver = new MemCheckpointSaver({ stack: world(kind).boot(), space: 'forks' });
    const root = await saver.put(thread('f'), checkpoint({ m: ['a'], k: 'kept' }, { m: 1, k: 1 }), meta(0), {
      m: 1,
      k: 1,
    });
    const left = await saver.put(root, checkpoint({ m: ['a', 'b'], k: 'kept' }, { m: 2, k: 1 }), meta(1), { m: 2 });
    // The same version 2 of `m` on another branch, from the same parent (updateState on an older checkpoint).
    const right = await saver.put(root, checkpoint({ m: ['a', 'c'], k: 'kept' }, { m: 2, k: 1 }), meta(1), { m: 2 });
    expect((await saver.getTuple(left))?.checkpoint.channel_values).toEqual({ m: ['a', 'b'], k: 'kept' });
    expect((await saver.getTuple(right))?.checkpoint.channel_values).toEqual({ m: ['a', 'c'], k: 'kept' });
    // A channel in newVersions without a value is absent, not carried over.
    const cleared = await saver.put(right, checkpoint({ m: ['a', 'c'] }, { m: 2, k: 2 }), meta(2), { k: 2 });
    expect((await saver.getTuple(cleared))?.checkpoint.channel_values).toEqual({ m: ['a', 'c'] });
  });

  it('documents over chunkBytes are written in pieces and read back exactly, and a rewrite drops the old pieces', async () => {
    const stack = world(kind).boot();
    const saver = new MemCheckpointSaver({ stack, space: 'big', chunkBytes: 1024 });
    const text = `${'Lisbon in May 🌞, "quoted" \\ and é. '.repeat(400)}\u0000end`;
    const messages = Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 ? 'ai' : 'human',
      text: `${i}: ${text.slice(0, 300)}`,
    }));
    const c = await saver.put(thread('big'), checkpoint({ text, messages }, { text: 1, messages: 1 }), meta(0), {
      text: 1,
      messages: 1,
    });
    const states = stack.structured.sessionState!;
    const head = (await states.get('big', ids.blob('big', '', 'text', c.configurable!.checkpoint_id as string)))!
      .state as {
      chunked: { tag: string; count: number };
    };
    expect(head.chunked.count).toBeGreaterThan(10);
    expect((await saver.getTuple(c))?.checkpoint.channel_values).toEqual({ text, messages });

    await saver.putWrites(c, [['text', text]], 'task-1');
    const writesId = ids.writes('big', '', c.configurable!.checkpoint_id as string);
    const before = (await states.get('big', writesId))!.state as { chunked: { tag: string; count: number } };
    await saver.putWrites(c, [['text', text.slice(0, 2000)]], 'task-2');
    const after = (await states.get('big', writesId))!.state as { chunked: { tag: string; count: number } };
    expect(after.chunked.tag).not.toBe(before.chunked.tag);
    expect(await states.get('big', `${writesId}~${before.chunked.tag}.0`)).toBeNull();
    expect((await saver.getTuple(c))?.pendingWrites).toEqual([
      ['task-1', 'text', text],
      ['task-2', 'text', text.slice(0, 2000)],
    ]);
  });

  it('takes thread ids, namespaces and channel names of any length and character', async () => {
    const saver = new MemCheckpointSaver({ stack: world(kind).boot(), space: 'names' });
    const long = `Thread ${'ü'.repeat(300)}/../${'x'.repeat(500)}`;
    const ns = `parent:${uuid6(-1)}|child:${uuid6(-1)}`;
    const values = { ['__proto__']: 'safe', 'branch:to:agent': null, 'a/b c': [1] } as Record<string, unknown>;
    Object.defineProperty(values, '__proto__', { value: 'safe', enumerable: true });
    const versions = { ['__proto__']: 1, 'branch:to:agent': 1, 'a/b c': 1 } as Record<string, number>;
    Object.defineProperty(versions, '__proto__', { value: 1, enumerable: true });
    const cp = checkpoint(values, versions);
    const c = await saver.put(thread(long, ns), cp, meta(0), versions);
    expect(c).toEqual({ configurable: { thread_id: long, checkpoint_ns: ns, checkpoint_id: cp.id } });
    const got = await saver.getTuple(thread(long, ns));
    expect(Object.getPrototypeOf(got!.checkpoint.channel_values)).toBe(Object.prototype);
    expect(Object.entries(got!.checkpoint.channel_values)).toEqual(Object.entries(values));
    await saver.putWrites(c, [['constructor', 1]], 'task');
    expect((await saver.getTuple(c))?.pendingWrites).toEqual([['task', 'constructor', 1]]);
    expect(await saver.put(thread('7'), checkpoint({}, {}), meta(0), {})).toMatchObject({
      configurable: { thread_id: '7' },
    });
    expect(
      (await saver.put({ configurable: { thread_id: 7 } }, checkpoint({}, {}), meta(0), {})).configurable?.thread_id,
    ).toBe('7');
  });

  it('pending writes: a regular write is kept once, a special channel is replaced, order is (task path, task, idx)', async () => {
    const saver = new MemCheckpointSaver({ stack: world(kind).boot(), space: 'writes' });
    const c = await saver.put(thread('w'), checkpoint({}, {}), meta(0), {});
    await saver.putWrites(
      c,
      [
        ['a', 1],
        ['b', 2],
      ],
      'task-b',
      '~1',
    );
    await saver.putWrites(c, [['a', 'again']], 'task-b', '~1');
    await saver.putWrites(c, [[ERROR, 'first error']], 'task-a', '~2');
    await saver.putWrites(c, [[ERROR, 'second error']], 'task-a', '~2');
    await saver.putWrites(c, [[INTERRUPT, { value: 'ask' }]], 'task-c');
    expect((await saver.getTuple(c))?.pendingWrites).toEqual([
      ['task-c', INTERRUPT, { value: 'ask' }],
      ['task-b', 'a', 1],
      ['task-b', 'b', 2],
      ['task-a', ERROR, 'second error'],
    ]);
    // Parallel tasks writing at once (as LangGraph's loop does) all land.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => saver.putWrites(c, [['p', i]], `par-${String(i).padStart(2, '0')}`)),
    );
    expect((await saver.getTuple(c))!.pendingWrites!.filter((w) => w[1] === 'p')).toHaveLength(12);
  });
});

describe('MemCheckpointSaver under a compiled graph', () => {
  const State = Annotation.Root({
    log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
    city: Annotation<string>,
  });
  const Child = Annotation.Root({ city: Annotation<string> });

  /** parent: start → ask (a subgraph that interrupts for an answer) → finish. */
  function build(stack: Stack) {
    const child = new StateGraph(Child)
      .addNode('question', () => ({ city: interrupt('Which city?') as string }))
      .addEdge(START, 'question')
      .compile();
    return new StateGraph(State)
      .addNode('start', () => ({ log: ['start'] }))
      .addNode('ask', child)
      .addNode('finish', (state) => ({ log: [`finish:${state.city}`] }))
      .addEdge(START, 'start')
      .addEdge('start', 'ask')
      .addEdge('ask', 'finish')
      .compile({ checkpointer: new MemCheckpointSaver({ stack, space: 'graph' }) });
  }

  it('an interrupt inside a subgraph is resumed after a restart; updateState forks and the old branch stays', async () => {
    const w = world('sqlite');
    const config = { configurable: { thread_id: 'g1' } };
    const first = build(w.boot());
    await first.invoke({ log: [] }, config);
    const waiting = await first.getState(config, { subgraphs: true });
    expect(waiting.next).toEqual(['ask']);
    expect(waiting.tasks[0]?.interrupts[0]?.value).toBe('Which city?');
    // The subgraph's checkpoints live in their own namespace.
    expect(
      (waiting.tasks[0]?.state as { config?: { configurable?: { checkpoint_ns?: string } } })?.config?.configurable
        ?.checkpoint_ns,
    ).toMatch(/^ask:/);

    const second = build(w.boot());
    const done = await second.invoke(new Command({ resume: 'Lisbon' }), config);
    expect(done.log).toEqual(['start', 'finish:Lisbon']);

    const history: { log: string[]; id: string }[] = [];
    for await (const s of second.getStateHistory(config)) {
      history.push({ log: s.values.log, id: s.config.configurable?.checkpoint_id as string });
    }
    const afterStart = history.find((h) => h.log.join() === 'start')!;
    const forked = await second.updateState(
      { configurable: { thread_id: 'g1', checkpoint_id: afterStart.id } },
      { log: ['edited'] },
      'start',
    );
    expect((await second.getState(forked)).values.log).toEqual(['start', 'edited']);
    expect((await second.getState(config)).values.log).toEqual(['start', 'edited']);
    const old = history.find((h) => h.log.includes('finish:Lisbon'))!;
    expect((await second.getState({ configurable: { thread_id: 'g1', checkpoint_id: old.id } })).values.log).toEqual([
      'start',
      'finish:Lisbon',
    ]);
  });
});

describe('MemCheckpointSaver construction and refusals', () => {
  const stack = () =>
    createStack({ knowledge: createInMemoryKnowledgeStore(), structured: createInMemoryStructuredStores() });
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return MemError.is(error) ? `${error.code}: ${error.message}` : String(error);
    }
    return 'no error';
  };

  it('says what is missing', () => {
    expect(codeOf(() => new MemCheckpointSaver(undefined as never))).toMatch(
      /^INVALID_INPUT: new MemCheckpointSaver needs \{ stack, space \}/,
    );
    const bare = createStack({ knowledge: createInMemoryKnowledgeStore() });
    expect(codeOf(() => new MemCheckpointSaver({ stack: bare, space: 'x' }))).toMatch(
      /^CAPABILITY_MISSING: MemCheckpointSaver keeps checkpoints in the stack's session-state store, and this stack has none: .*createSqliteStores/,
    );
    expect(codeOf(() => new MemCheckpointSaver({ stack: stack(), space: '../up' }))).toMatch(
      /^INVALID_INPUT: Invalid space name/,
    );
    expect(codeOf(() => new MemCheckpointSaver({ stack: stack(), space: undefined as never }))).toMatch(
      /^INVALID_INPUT/,
    );
    expect(codeOf(() => new MemCheckpointSaver({ stack: stack(), space: 's', chunkBytes: 10 }))).toMatch(
      /^INVALID_INPUT: chunkBytes/,
    );
  });

  it('refuses a put or putWrites without a thread or checkpoint id; a read without a thread finds nothing', async () => {
    const saver = new MemCheckpointSaver({ stack: stack(), space: 's' });
    await expect(saver.put({}, checkpoint({}, {}), meta(0), {})).rejects.toThrow(/no configurable.thread_id/);
    await expect(saver.put(thread(''), checkpoint({}, {}), meta(0), {})).rejects.toThrow(
      /thread_id must be a non-empty string/,
    );
    await expect(saver.putWrites(thread('t'), [['a', 1]], 'task')).rejects.toThrow(/no configurable.checkpoint_id/);
    await expect(saver.putWrites({ configurable: { checkpoint_id: 'c' } }, [['a', 1]], 'task')).rejects.toThrow(
      /thread_id/,
    );
    expect(await saver.getTuple({})).toBeUndefined();
    expect(await all(saver, {})).toEqual([]);
    expect(JSON.stringify({ saver })).toBe('{"saver":"[MemCheckpointSaver]"}'); // never the stack
  });
});
