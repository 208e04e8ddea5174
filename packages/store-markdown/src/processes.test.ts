import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemError } from '@mem/core';
import type { TranscriptStore } from '@mem/core/adapter';
import { bundleChild, type ChildProgram, within } from '@mem/testkit/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMarkdownTranscriptStore, MARKDOWN_COMPACTION_STEPS } from './index.js';

// Real OS processes writing one transcript: each child (test/child.ts) reports every append that resolved, so the
// parent knows which messages were acknowledged and must survive whatever happens next. The child is bundled once
// by @mem/testkit's `bundleChild` and run by plain node: a tsx start costs about a second on a small machine, and
// this file starts 26 processes.

const CHILD_SOURCE = fileURLToPath(new URL('../test/child.ts', import.meta.url));
let child: ChildProgram | undefined;

interface ChildSettings {
  root: string;
  agent: string;
  mode: 'append' | 'chaos';
  tag: string;
  count: number;
  compactEvery?: number;
  killAtStep?: string;
  killAtCompaction?: number;
}

interface Run {
  child: ChildProcess;
  acks: string[];
  compactionsStarted: number;
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(settings: ChildSettings, onMessage?: (m: { ack?: string; compacting?: number }, run: Run) => void): Run {
  if (!child) throw new Error('the child program is built in beforeAll');
  const proc = fork(child.file, [], {
    execArgv: child.execArgv,
    cwd: child.cwd,
    env: { ...process.env, MEM_CHILD: JSON.stringify(settings) },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const run: Run = {
    child: proc,
    acks: [],
    compactionsStarted: 0,
    stderr: [],
    exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  proc.stderr?.on('data', (d: Buffer) => run.stderr.push(d.toString()));
  proc.on('message', (m: { ack?: string; compacting?: number }) => {
    if (m.ack) run.acks.push(m.ack);
    if (m.compacting) run.compactionsStarted = m.compacting;
    onMessage?.(m, run);
  });
  return run;
}

/** Every message content in the transcript and all archives; the transcript must load. */
async function everything(store: TranscriptStore, agent: string): Promise<{ all: Set<string>; current: string[] }> {
  const t = await store.read('default', agent);
  const current = t?.messages.map((m) => m.content) ?? [];
  const all = new Set(current);
  for (const a of await store.listArchives('default', agent))
    for (const m of (await store.readArchive('default', agent, a.id)).messages) all.add(m.content);
  return { all, current };
}

const WELL_FORMED =
  /^(?:[A-Za-z0-9]+-\d+ (?:payload )*\n---\nsecond line of [A-Za-z0-9]+-\d+|\[Compressed Memory Summary\]\n[A-Za-z0-9]+ compaction \d+ of \d+ messages)$/;

describe('store-markdown with real processes', { timeout: 120_000 }, () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mem-md-proc-'));
    child = await bundleChild(CHILD_SOURCE);
  });
  afterAll(async () => {
    child?.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it('two processes appending hundreds of messages each lose nothing while a third compacts meanwhile', async () => {
    const agent = 'shared';
    const store = createMarkdownTranscriptStore({ root });
    const perChild = 250;
    let acked = 0;
    let compactions = 0;
    let chain: Promise<void> = Promise.resolve();
    // Compact (from this process) every 60 acknowledged appends, while the children keep writing.
    const onAck = (m: { ack?: string }) => {
      if (!m.ack || ++acked % 60 !== 0) return;
      chain = chain.then(async () => {
        const t = (await store.read('default', agent))!;
        await store.compact('default', agent, {
          basis: { conversationId: t.header.conversationId, messageCount: t.messages.length },
          header: { conversationId: `parent-${acked}`, createdAt: new Date().toISOString() },
          messages: [
            {
              role: 'system',
              content: `[Compressed Memory Summary]\nparent compaction ${compactions + 1} of ${t.messages.length} messages`,
              at: new Date().toISOString(),
            },
          ],
          archivedAt: new Date().toISOString(),
        });
        compactions++;
      });
    };
    const a = start({ root, agent, mode: 'append', tag: 'A', count: perChild }, onAck);
    const b = start({ root, agent, mode: 'append', tag: 'B', count: perChild }, onAck);
    const [ea, eb] = await within(Promise.all([a.exited, b.exited]), 90_000, 'both writers');
    await chain;
    expect(ea, a.stderr.join('')).toEqual({ code: 0, signal: null });
    expect(eb, b.stderr.join('')).toEqual({ code: 0, signal: null });
    expect(a.acks).toHaveLength(perChild);
    expect(b.acks).toHaveLength(perChild);
    expect(compactions).toBeGreaterThanOrEqual(5);

    const { all, current } = await everything(store, agent);
    for (const ack of [...a.acks, ...b.acks]) expect(all.has(ack), ack).toBe(true);
    for (const c of all) expect(c).toMatch(WELL_FORMED);
    expect(new Set(current).size).toBe(current.length);
    // Each writer's messages keep their order in the final transcript.
    for (const tag of ['A', 'B']) {
      const mine = current.filter((c) => c.startsWith(`${tag}-`)).map((c) => Number(c.split(/[- ]/)[1]));
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
    }
  });

  it('a writer killed with SIGKILL at varied points of compaction, 24 times, never loses an acknowledged message', async () => {
    const steps = [...MARKDOWN_COMPACTION_STEPS];
    const lanes = 3;
    const perLane = 8;
    let kills = 0;

    async function lane(l: number): Promise<void> {
      const agent = `crashy-${l}`;
      const acked: string[] = [];
      for (let i = 0; i < perLane; i++) {
        const tag = `L${l}x${i}`;
        const selfKill = i < steps.length;
        const killAtCompaction = 1 + (i % 2);
        const run = start(
          {
            root,
            agent,
            mode: 'chaos',
            tag,
            // A child the parent kills must not be able to finish first, however slow the parent is to react.
            count: selfKill ? 60 : 1_000_000,
            compactEvery: 3,
            ...(selfKill ? { killAtStep: steps[i]!, killAtCompaction } : {}),
          },
          (m, r) => {
            // The parent kills mid-compaction: as soon as compaction number k is announced, wherever the child is.
            if (!selfKill && m.compacting === killAtCompaction) r.child.kill('SIGKILL');
          },
        );
        const exit = await within(run.exited, 30_000, `writer ${tag}`);
        expect(exit.signal, `${tag}: ${run.stderr.join('')}`).toBe('SIGKILL');
        kills++;
        acked.push(...run.acks);
        // "Restart": a fresh store instance must load the transcript and find every acknowledged message.
        const store = createMarkdownTranscriptStore({ root });
        const { all } = await everything(store, agent);
        for (const ack of acked) expect(all.has(ack), `${ack} after killing ${tag}`).toBe(true);
        for (const c of all) expect(c).toMatch(WELL_FORMED);
      }
      // After all the crashes the transcript still takes appends and compactions (no lock stuck, no torn block).
      const store = createMarkdownTranscriptStore({ root, lockTimeoutMs: 5_000 });
      await store.append(
        'default',
        agent,
        [{ role: 'user', content: `Z${l}-0 \n---\nsecond line of Z${l}-0`, at: new Date().toISOString() }],
        {
          conversationId: 'unused',
          createdAt: new Date().toISOString(),
        },
      );
      const t = (await store.read('default', agent))!;
      expect(t.messages.at(-1)!.content).toBe(`Z${l}-0 \n---\nsecond line of Z${l}-0`);
      try {
        await store.compact('default', agent, {
          basis: { conversationId: t.header.conversationId, messageCount: t.messages.length },
          header: { conversationId: `final-${l}`, createdAt: new Date().toISOString() },
          messages: [],
          archivedAt: new Date().toISOString(),
        });
      } catch (error) {
        throw MemError.is(error) ? new Error(`final compaction of lane ${l}: ${error.message}`) : error;
      }
    }

    await Promise.all(Array.from({ length: lanes }, (_, l) => lane(l)));
    expect(kills).toBe(lanes * perLane);
    // No lock and no temporary file is left once the survivors are done.
    for (let l = 0; l < lanes; l++) {
      const dir = path.join(root, 'agents', `crashy-${l}`);
      const leftovers = (await readdir(dir)).filter((n) => n.startsWith('.') && n !== '.lock');
      expect(leftovers.filter((n) => n.includes('.tmp-'))).toEqual([]);
      expect(await readdir(dir)).not.toContain('.lock');
    }
  });
});
