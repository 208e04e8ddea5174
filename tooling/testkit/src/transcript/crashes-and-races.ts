import { MemError, type TranscriptMessage } from '@mem/core';
import type { Transcript, TranscriptStore } from '@mem/core/adapter';
import { expect, it } from 'vitest';
import { at, header, msg, SimulatedCrash, type TranscriptSuite } from './fixture.js';

/** A crash before each compaction step, racing compactions, the lock across instances, appends racing compactions. */
export function crashAndRaceTests(t: TranscriptSuite): void {
  const { setup, another } = t;
  it('a crash before any step of a compaction leaves the old or the new transcript and only complete archives', async () => {
    const f = await setup();
    // Learn the adapter's steps from one compaction.
    const steps: string[] = [];
    t.setHook((step) => void steps.push(step));
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
      t.setHook(undefined);
      const old: TranscriptMessage[] = Array.from({ length: 5 }, (_, k) =>
        msg(k % 2 ? 'assistant' : 'user', `${agent} message ${k}\n---\nwith a rule`, k),
      );
      await f.store.append('acme', agent, old, header(`o${i}`));
      const oldTranscript = (await f.store.read('acme', agent))!;
      const next: Transcript = {
        header: header(`n${i}`, 100),
        messages: [msg('system', `summary of ${agent}`, 100)],
      };
      t.setHook((s) => {
        if (s === step) throw new SimulatedCrash(s);
      });
      await expect(
        f.store.compact('acme', agent, {
          basis: { conversationId: `o${i}`, messageCount: 5 },
          header: next.header,
          messages: next.messages,
          archivedAt: at(100),
        }),
      ).rejects.toBeInstanceOf(SimulatedCrash);
      t.setHook(undefined);

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
}
