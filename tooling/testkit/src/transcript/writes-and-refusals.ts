import { expect, it } from 'vitest';
import { at, expectCode, header, msg, TRICKY_CONTENTS, type TranscriptSuite } from './fixture.js';

/** First appends, exact contents, the walls between spaces and agents, refused names and input, persistence. */
export function writeAndRefusalTests(t: TranscriptSuite): void {
  const { setup, another } = t;
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
}
