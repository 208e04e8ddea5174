import type { Transcript, TranscriptStore } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { at, expectCode, header, msg, type TranscriptSuite } from './fixture.js';

/** Appends from two instances, compaction and its stale basis, archives taken in the same millisecond. */
export function appendAndArchiveTests(t: TranscriptSuite): void {
  const { setup, another } = t;
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
    expect((await store.readArchive('acme', 'alice', a.archive.id)).messages.map((m) => m.content)).toEqual(['first']);
    expect((await store.readArchive('acme', 'alice', b.archive.id)).messages.map((m) => m.content)).toEqual(['s1']);
    expect((await store.readArchive('acme', 'alice', c.archive.id)).messages.map((m) => m.content)).toEqual(['s2']);
    expect(await store.deleteArchive('acme', 'alice', b.archive.id)).toBe(true);
    expect(await store.deleteArchive('acme', 'alice', b.archive.id)).toBe(false);
    expect((await store.listArchives('acme', 'alice')).map((x) => x.id)).toEqual([a.archive.id, c.archive.id]);
  });
}
