import { describe, expect, it } from 'vitest';
import {
  type CompactionChange,
  checkCompactionChange,
  checkTranscriptMessages,
  clampSimilarity,
  compactionArchiveTime,
  guardTranscriptStore,
  inOrder,
  parseTags,
  type TranscriptStore,
} from '../src/adapter.js';
import { createInMemoryTranscriptStore, MemError } from '../src/index.js';

describe('adapter kit: clampSimilarity', () => {
  it('keeps values inside [-1, 1] and clamps the float32 overshoot at both ends', () => {
    expect(clampSimilarity(0.25)).toBe(0.25);
    expect(clampSimilarity(1.0000001)).toBe(1);
    expect(clampSimilarity(-1.0000001)).toBe(-1);
  });

  it('scores what is not a finite number (a zero vector) as 0', () => {
    expect(clampSimilarity(Number.NaN)).toBe(0);
    expect(clampSimilarity(Number.POSITIVE_INFINITY)).toBe(0);
    expect(clampSimilarity(Number.NEGATIVE_INFINITY)).toBe(0);
  });
});

describe('adapter kit: inOrder', () => {
  const rows = [
    { id: 'b', n: 2 },
    { id: 'a', n: 1 },
  ];

  it('returns rows in the order of the ids, repeats kept, unknown ids skipped', () => {
    expect(inOrder(rows, ['a', 'x', 'b', 'a']).map((r) => r.n)).toEqual([1, 2, 1]);
  });

  it('returns nothing for no ids', () => {
    expect(inOrder(rows, [])).toEqual([]);
  });
});

describe('adapter kit: parseTags', () => {
  it('reads a JSON array of strings', () => {
    expect(parseTags('["release","billing"]')).toEqual(['release', 'billing']);
  });

  it('drops entries that are not strings', () => {
    expect(parseTags('["a",1,null,{"b":2},"c"]')).toEqual(['a', 'c']);
  });

  it('gives no tags for broken JSON or a value that is not an array', () => {
    expect(parseTags('not json')).toEqual([]);
    expect(parseTags('{"a":1}')).toEqual([]);
    expect(parseTags('"tag"')).toEqual([]);
  });
});

describe('adapter kit: guardTranscriptStore', () => {
  const AT = '2026-03-01T12:00:00.000Z';
  const header = { conversationId: 'c1', createdAt: AT };
  const message = { role: 'user' as const, content: 'hello', at: AT };
  const change = (over: Partial<CompactionChange> = {}): CompactionChange => ({
    basis: { conversationId: 'c1', messageCount: 1 },
    header: { conversationId: 'c2', createdAt: AT },
    messages: [message],
    archivedAt: AT,
    ...over,
  });

  /** A real in-memory store under the guard, plus a record of which calls reached it. */
  function setup() {
    const engine = createInMemoryTranscriptStore();
    const reached: string[] = [];
    const seen = <T>(name: string, call: () => T): T => {
      reached.push(name);
      return call();
    };
    let opened = 0;
    const spy: TranscriptStore & { readonly opened: number; extra: string } = {
      name: 'spy',
      capabilities: engine.capabilities,
      get opened() {
        return opened;
      },
      extra: 'kept',
      append: (...a) => seen('append', () => engine.append(...a)),
      read: (...a) => seen('read', () => engine.read(...a)),
      compact: (...a) => seen('compact', () => engine.compact(...a)),
      listArchives: (...a) => seen('listArchives', () => engine.listArchives(...a)),
      readArchive: (...a) => seen('readArchive', () => engine.readArchive(...a)),
      deleteArchive: (...a) => seen('deleteArchive', () => engine.deleteArchive(...a)),
      remove: (...a) => seen('remove', () => engine.remove(...a)),
      agents: (...a) => seen('agents', () => engine.agents(...a)),
      withLock: (space, agent, fn) => seen('withLock', () => engine.withLock(space, agent, fn)),
      close: async () => {
        opened--;
      },
    };
    opened = 1;
    return { store: guardTranscriptStore(spy), reached };
  }

  const code = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return MemError.is(e) ? e.code : `not a MemError: ${String(e)}`;
    }
    return 'resolved';
  };

  it('keeps the store’s other properties, getters included', async () => {
    const { store } = setup();
    expect(store.name).toBe('spy');
    expect(store.extra).toBe('kept');
    expect(store.opened).toBe(1);
    await store.close();
    expect(store.opened).toBe(0);
  });

  it('refuses bad names, archive ids, messages, headers and compactions before the engine is called', async () => {
    const { store, reached } = setup();
    expect(await code(store.append('acme', '../x', [message], header))).toBe('INVALID_INPUT');
    expect(await code(store.append('acme', 'alice', 'hi' as never, header))).toBe('INVALID_INPUT');
    expect(await code(store.append('acme', 'alice', [{ ...message, role: 'boss' as never }], header))).toBe(
      'INVALID_INPUT',
    );
    expect(await code(store.append('acme', 'alice', [message], { conversationId: 'a b', createdAt: AT }))).toBe(
      'INVALID_INPUT',
    );
    expect(await code(store.read('.hidden', 'alice'))).toBe('INVALID_INPUT');
    expect(await code(store.agents('../acme'))).toBe('INVALID_INPUT');
    expect(await code(store.readArchive('acme', 'alice', '../MEMORY'))).toBe('INVALID_INPUT');
    expect(await code(store.deleteArchive('acme', 'alice', 'history_x'))).toBe('INVALID_INPUT');
    expect(await code(store.compact('acme', 'alice', change({ archivedAt: 'yesterday' })))).toBe('INVALID_INPUT');
    expect(await code(store.compact('acme', 'alice', change({ archivedAt: '+010000-01-01T00:00:00.000Z' })))).toBe(
      'INVALID_INPUT',
    );
    expect(
      await code(store.compact('acme', 'alice', change({ basis: { conversationId: 'c1', messageCount: -1 } }))),
    ).toBe('INVALID_INPUT');
    expect(await code(store.compact('acme', 'alice', change({ messages: null as never })))).toBe('INVALID_INPUT');
    expect(reached).toEqual([]);
  });

  it('passes good calls through, and checks the handle withLock gives too', async () => {
    const { store, reached } = setup();
    await store.append('acme', 'alice', [message], header);
    const result = await store.withLock('acme', 'alice', async (tx) => {
      expect(await code(tx.append([{ ...message, at: 'now' }], header))).toBe('INVALID_INPUT');
      expect(await code(tx.compact(change({ archivedAt: 'later' })))).toBe('INVALID_INPUT');
      return tx.compact(change());
    });
    expect(result.archive.id).toBe('history_2026-03-01T12-00-00.000Z');
    expect((await store.read('acme', 'alice'))?.header.conversationId).toBe('c2');
    expect(reached).toEqual(['append', 'withLock', 'read']);
  });

  it('normalises the archive time of a compaction and names its archives', () => {
    const t = compactionArchiveTime('2026-03-01T12:00:00Z');
    expect(t.at).toBe(AT);
    expect([t.id(1), t.id(2)]).toEqual(['history_2026-03-01T12-00-00.000Z', 'history_2026-03-01T12-00-00.000Z-2']);
    expect(() => compactionArchiveTime(42)).toThrow(/Invalid archivedAt "42"/);
    expect(() => checkTranscriptMessages({}, 'Compaction messages')).toThrow('Compaction messages must be an array.');
    expect(() => checkCompactionChange(change())).not.toThrow();
  });
});

describe('SQL_RECORDS.chunk', () => {
  it('reads a row as its column list says (the literal of the hot path and the list agree)', async () => {
    const { SQL_RECORDS, describedChunk } = await import('../src/adapter-kit/sql/records.js');
    const vector = (v: unknown) => new Float32Array(JSON.parse(v as string) as number[]);
    const fast = SQL_RECORDS.chunk(vector);
    const described = describedChunk(vector);
    const plain = (fields: readonly { column: string; as: string; type: string }[]) =>
      fields.map(({ column, as, type }) => ({ column, as, type }));
    expect(plain(fast.fields)).toEqual(plain(described.fields));
    const row: Record<string, unknown> = {};
    for (const [i, f] of described.fields.entries()) {
      row[f.as] =
        f.type === 'int'
          ? String(i + 1)
          : f.type === 'list'
            ? '["a","b"]'
            : f.type === 'json'
              ? '{"kind":"k"}'
              : `${f.column}-value`;
    }
    for (const embedding of ['[0.5,0.25]', null]) {
      for (const nulls of [false, true]) {
        const r = {
          ...row,
          embedding,
          ...(nulls
            ? {
                embeddingmodel: null,
                expiresat: null,
                lastaccessedat: null,
                validfrom: null,
                validto: null,
                invalidatedat: null,
                supersedes: null,
                supersededby: null,
                userid: null,
                claim: null,
              }
            : {}),
        };
        expect(fast.from(r)).toEqual(described.from(r));
        expect(Object.keys(fast.from(r))).toEqual(Object.keys(described.from(r)));
      }
    }
  });
});
