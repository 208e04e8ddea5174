// Adapter-specific behaviour of the transcript and notebook stores; conversation.suite.test.ts runs the port contracts.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemError, type NotebookScope, type TranscriptMessage } from '@mem/core';
import type { TranscriptStore } from '@mem/core/adapter';
import { bundleChild, type ChildProgram, within } from '@mem/testkit/internal';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CONVERSATION_SCHEMA_VERSION,
  createSqliteNotebookStore,
  createSqliteStore,
  createSqliteStructuredStores,
  createSqliteTranscriptStore,
  migrations,
  openDatabase,
  runMigrations,
} from './index.js';

const NOW = '2026-03-01T12:00:00.000Z';
const header = (id: string) => ({ conversationId: id, createdAt: NOW });
const msg = (content: string, role: TranscriptMessage['role'] = 'user'): TranscriptMessage => ({
  role,
  content,
  at: NOW,
});
const contents = (messages: readonly { content: string }[] | undefined) => (messages ?? []).map((m) => m.content);
const alice: NotebookScope = { space: 'acme', agent: 'alice' };

class Boom extends Error {}

let dir: string;
const open: { close(): Promise<void> }[] = [];

function track<T extends { close(): Promise<void> }>(store: T): T {
  open.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-conversation-'));
});

afterEach(async () => {
  for (const store of open.splice(0).reverse()) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe(`migration ${CONVERSATION_SCHEMA_VERSION} (conversation)`, () => {
  it('applies on a file made by migrations 1–2 and keeps their rows', async () => {
    const path = join(dir, 'v2.db');
    const old = openDatabase(path);
    expect(runMigrations(old, migrations.slice(0, 2))).toEqual({ applied: [1, 2], current: 2 });
    old
      .prepare(
        `INSERT INTO chunks (id, doc_id, space, scope, agent_id, key, name, content, chunk_index, chunk_count, source,
           content_hash, created_at, updated_at)
         VALUES ('c1', 'c1', 'acme', 'swarm', 'a1', '/k/c1', 'old note', 'kept across the migration', 0, 1, 'manual',
           'h1', ?, ?)`,
      )
      .run(NOW, NOW);
    old
      .prepare(
        `INSERT INTO messages (space, id, session_id, role, content, created_at)
         VALUES ('acme', 'm1', 's1', 'user', 'an older message', ?)`,
      )
      .run(NOW);
    old.close();

    const transcripts = track(createSqliteTranscriptStore({ path }));
    expect(transcripts.db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual(
      migrations.map((m) => ({ version: m.version, name: m.name })),
    );
    await transcripts.append('acme', 'alice', [msg('after the upgrade')], header('c1'));
    expect(contents((await transcripts.read('acme', 'alice'))?.messages)).toEqual(['after the upgrade']);
    const notebooks = track(createSqliteNotebookStore({ path }));
    await notebooks.write(alice, 'MEMORY.md', 'note\n', { expectedVersion: null, at: NOW });

    const knowledge = track(createSqliteStore({ path }));
    expect((await knowledge.getChunk('acme', 'c1'))?.content).toBe('kept across the migration');
    const structured = track(createSqliteStructuredStores({ path }));
    expect(contents(await structured.messages.recent('acme', 's1', 10))).toEqual(['an older message']);
  });

  it('with autoMigrate off, refuses work on an older file until migrate() runs', async () => {
    const path = join(dir, 'manual.db');
    const old = openDatabase(path);
    runMigrations(old, migrations.slice(0, 2));
    old.close();
    const transcripts = track(createSqliteTranscriptStore({ path, autoMigrate: false }));
    const notebooks = track(createSqliteNotebookStore({ path, autoMigrate: false }));
    for (const attempt of [transcripts.read('acme', 'alice'), notebooks.list(alice)]) {
      const err = await attempt.catch((e: unknown) => e);
      expect(MemError.is(err, 'STORE_UNAVAILABLE')).toBe(true);
      expect((err as Error).message).toMatch(
        new RegExp(`^sqlite: .*step ${CONVERSATION_SCHEMA_VERSION}.*migrate\\(\\)`),
      );
    }
    expect((await transcripts.migrate()).applied).toEqual(migrations.slice(2).map((m) => m.version));
    expect(await transcripts.read('acme', 'alice')).toBeNull();
    expect(await notebooks.list(alice)).toEqual([]);
  });
});

describe('storage', () => {
  it('numbers messages with a sequence that only grows per agent, across compactions; archives keep theirs', async () => {
    const store = track(createSqliteTranscriptStore({ path: join(dir, 'seq.db') }));
    await store.append('acme', 'alice', [msg('a'), msg(' '), msg('b'), msg('c')], header('c1'));
    await store.append('acme', 'bob', [msg('other agent')], header('c9'));
    await store.compact('acme', 'alice', {
      basis: { conversationId: 'c1', messageCount: 2 },
      header: header('c2'),
      messages: [msg('summary', 'system')],
      archivedAt: NOW,
    });
    await store.append('acme', 'alice', [msg('d')], header('unused'));
    const seqs = (sql: string) =>
      store.db
        .prepare(sql)
        .all()
        .map((r) => (r as { seq: number }).seq);
    expect(seqs("SELECT seq FROM transcript_messages WHERE space = 'acme' AND agent = 'alice' ORDER BY seq")).toEqual([
      3, 4, 5,
    ]);
    expect(contents((await store.read('acme', 'alice'))?.messages)).toEqual(['summary', 'c', 'd']);
    expect(seqs('SELECT seq FROM transcript_archive_messages ORDER BY seq')).toEqual([0, 1, 2]);
    expect(seqs("SELECT seq FROM transcript_messages WHERE agent = 'bob'")).toEqual([0]);
  });

  it('raises a shared connection to synchronous=FULL, never lowers it', async () => {
    const db = openDatabase(join(dir, 'sync.db'));
    try {
      db.pragma('synchronous = NORMAL');
      const notebooks = createSqliteNotebookStore({ db });
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      db.pragma('synchronous = EXTRA');
      const transcripts = createSqliteTranscriptStore({ db });
      expect(db.pragma('synchronous', { simple: true })).toBe(3);
      await notebooks.close();
      await transcripts.close();
    } finally {
      db.close();
    }
  });

  it('shares a connection with the other ports and keeps the lease rules', async () => {
    const knowledge = track(createSqliteStore({ path: join(dir, 'shared.db') }));
    const transcripts = createSqliteTranscriptStore({ db: knowledge.db });
    const notebooks = track(createSqliteNotebookStore({ db: transcripts.db }));
    expect(transcripts.db).toBe(knowledge.db);
    await transcripts.append('acme', 'alice', [msg('hello')], header('c1'));
    await transcripts.close();
    await transcripts.close();
    const err = await transcripts.read('acme', 'alice').catch((e: unknown) => e);
    expect(MemError.is(err, 'STORE_UNAVAILABLE')).toBe(true);
    // The connection stays open for the others.
    await notebooks.write(alice, 'MEMORY.md', 'still here\n', { expectedVersion: null, at: NOW });
    expect(await knowledge.getChunk('acme', 'nothing')).toBeNull();
    const again = track(createSqliteTranscriptStore({ db: knowledge.db }));
    expect(contents((await again.read('acme', 'alice'))?.messages)).toEqual(['hello']);
  });
});

describe('withLock', () => {
  it('rolls back everything done inside when its function throws, and passes the error on unchanged', async () => {
    const transcripts = track(createSqliteTranscriptStore({ path: join(dir, 'rollback.db') }));
    const notebooks = track(createSqliteNotebookStore({ db: transcripts.db }));
    const boom = new Boom('inside the lock');
    const err = await transcripts
      .withLock('acme', 'alice', async (tx) => {
        await tx.append([msg('inside')], header('c1'));
        // Another store on the same connection, called from inside, joins the transaction.
        await notebooks.write(alice, 'MEMORY.md', 'inside\n', { expectedVersion: null, at: NOW });
        await transcripts.append('acme', 'bob', [msg('store, not handle')], header('c2'));
        throw boom;
      })
      .catch((e: unknown) => e);
    expect(err).toBe(boom);
    expect(await transcripts.read('acme', 'alice')).toBeNull();
    expect(await transcripts.read('acme', 'bob')).toBeNull();
    expect(await notebooks.read(alice, 'MEMORY.md')).toBeNull();
    expect(transcripts.db.inTransaction).toBe(false);
  });

  it('makes work on the same connection from outside wait for the commit', async () => {
    const transcripts = track(createSqliteTranscriptStore({ path: join(dir, 'gate.db') }));
    const notebooks = track(createSqliteNotebookStore({ db: transcripts.db }));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const lock = transcripts.withLock('acme', 'alice', async (tx) => {
      await tx.append([msg('one')], header('c1'));
      entered();
      await gate;
      await tx.append([msg('two')], header('c1'));
      return 'done';
    });
    await inside;
    const read = transcripts.read('acme', 'alice');
    const write = notebooks.write(alice, 'MEMORY.md', 'outside\n', { expectedVersion: null, at: NOW });
    let settled = 0;
    for (const p of [read, write]) void p.then(() => settled++);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(0);
    release();
    expect(await lock).toBe('done');
    // The read saw the committed transcript, never half of it.
    expect(contents((await read)?.messages)).toEqual(['one', 'two']);
    expect((await write).size).toBe(8);
  });

  it('a compaction that fails inside the lock is undone alone (a savepoint)', async () => {
    const path = join(dir, 'savepoint.db');
    const store = track(
      createSqliteTranscriptStore({
        path,
        onCompactionStep: (step) => {
          if (step === 'replace') throw new Boom(step);
        },
      }),
    );
    await store.append('acme', 'alice', [msg('before')], header('c1'));
    await store.withLock('acme', 'alice', async (tx) => {
      await tx.append([msg('in the lock')], header('c1'));
      const err = await tx
        .compact({
          basis: { conversationId: 'c1', messageCount: 2 },
          header: header('c2'),
          messages: [msg('summary', 'system')],
          archivedAt: NOW,
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Boom);
    });
    expect(await store.read('acme', 'alice')).toEqual({
      header: header('c1'),
      messages: [msg('before'), msg('in the lock')],
    });
    expect(await store.listArchives('acme', 'alice')).toEqual([]);
  });

  it('another connection of the same process waits without blocking the event loop, then gives up', async () => {
    const path = join(dir, 'wait.db');
    const holder = track(createSqliteTranscriptStore({ path }));
    const impatient = track(createSqliteTranscriptStore({ path, busyTimeoutMs: 250 }));
    const notebooks = track(createSqliteNotebookStore({ path, busyTimeoutMs: 250 }));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const lock = holder.withLock('acme', 'alice', async (tx) => {
      await tx.append([msg('held')], header('c1'));
      entered();
      await gate;
    });
    await inside;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = Date.now();
    const errors = await Promise.all([
      impatient.append('acme', 'alice', [msg('too late')], header('c1')).catch((e: unknown) => e),
      notebooks.write(alice, 'MEMORY.md', 'x\n', { expectedVersion: null, at: NOW }).catch((e: unknown) => e),
    ]);
    clearInterval(timer);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    for (const err of errors) {
      expect(MemError.is(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
      expect((err as MemError).retryable).toBe(true);
      expect((err as Error).message).toMatch(/^sqlite: .*write lock/);
    }
    expect(ticks).toBeGreaterThanOrEqual(5);
    // Reads never wait for the lock (WAL): they see the last commit.
    expect(await impatient.read('acme', 'alice')).toBeNull();
    release();
    await lock;
    await impatient.append('acme', 'alice', [msg('after')], header('c1'));
    expect(contents((await impatient.read('acme', 'alice'))?.messages)).toEqual(['held', 'after']);
  });
});

// ---------- real processes ----------

// The child (test/conversation-child.ts) is bundled once by @mem/testkit's `bundleChild` and run by plain node (a tsx
// start costs about a second per process); without esbuild it runs through tsx.

const CHILD_SOURCE = fileURLToPath(new URL('../test/conversation-child.ts', import.meta.url));
let child: ChildProgram | undefined;

interface ChildSettings {
  path: string;
  agent: string;
  mode: 'append' | 'hold';
  tag: string;
  count: number;
}

interface ChildMessage {
  ack?: string;
  holding?: boolean;
}

interface Run {
  child: ChildProcess;
  acks: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(settings: ChildSettings, onMessage?: (m: ChildMessage) => void): Run {
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
    stderr: [],
    exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  proc.stderr?.on('data', (d: Buffer) => run.stderr.push(d.toString()));
  proc.on('message', (m: ChildMessage) => {
    if (m.ack) run.acks.push(m.ack);
    onMessage?.(m);
  });
  return run;
}

const childIndex = (content: string, tag: string) =>
  content.startsWith(`${tag}-`) ? Number(content.slice(tag.length + 1).split(' ')[0]) : null;

function inWriterOrder(messages: readonly TranscriptMessage[], tag: string): boolean {
  const mine = messages.map((m) => childIndex(m.content, tag)).filter((i): i is number => i !== null);
  return mine.every((i, k) => k === 0 || i > mine[k - 1]!);
}

describe('several processes on one transcript', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    child = await bundleChild(CHILD_SOURCE);
  });
  afterAll(() => {
    child?.dispose();
  });

  it('two processes appending hundreds of messages each lose nothing while this one compacts meanwhile', async () => {
    const path = join(dir, 'procs.db');
    const agent = 'shared';
    const store = track(createSqliteTranscriptStore({ path }));
    const perChild = 300;
    let acked = 0;
    let compactions = 0;
    let chain: Promise<void> = Promise.resolve();
    // Compact every 50 acknowledged appends, while the children keep appending.
    const onMessage = (m: ChildMessage) => {
      if (!m.ack || ++acked % 50 !== 0) return;
      chain = chain.then(async () => {
        const t = (await store.read('default', agent))!;
        const k = compactions + 1;
        await store.compact('default', agent, {
          basis: { conversationId: t.header.conversationId, messageCount: t.messages.length },
          header: { conversationId: `parent-${k}`, createdAt: new Date().toISOString() },
          messages: [msg(`summary ${k} of ${t.messages.length} messages`, 'system')],
          archivedAt: new Date().toISOString(),
        });
        compactions = k;
      });
    };
    const a = start({ path, agent, mode: 'append', tag: 'A', count: perChild }, onMessage);
    const b = start({ path, agent, mode: 'append', tag: 'B', count: perChild }, onMessage);
    const [ea, eb] = await within(Promise.all([a.exited, b.exited]), 45_000, 'both writers');
    await chain;
    expect(ea, a.stderr.join('')).toEqual({ code: 0, signal: null });
    expect(eb, b.stderr.join('')).toEqual({ code: 0, signal: null });
    expect(a.acks).toHaveLength(perChild);
    expect(b.acks).toHaveLength(perChild);
    expect(compactions).toBeGreaterThanOrEqual(5);

    const current = (await store.read('default', agent))!;
    const archives = await store.listArchives('default', agent);
    expect(archives).toHaveLength(compactions);
    const seen = new Set(contents(current.messages));
    for (const [k, info] of archives.entries()) {
      const archived = await store.readArchive('default', agent, info.id);
      for (const c of contents(archived.messages)) seen.add(c);
      // Archive k+1 is the whole transcript compaction k left: its header and its summary first.
      if (k > 0) {
        expect(archived.header.conversationId).toBe(`parent-${k}`);
        expect(archived.messages[0]?.content).toMatch(new RegExp(`^summary ${k} of \\d+ messages$`));
      }
      for (const tag of ['A', 'B']) expect(inWriterOrder(archived.messages, tag), `${info.id} ${tag}`).toBe(true);
    }
    for (const ack of [...a.acks, ...b.acks]) expect(seen.has(ack), ack).toBe(true);
    expect(new Set(contents(current.messages)).size).toBe(current.messages.length);
    expect(current.header.conversationId).toBe(`parent-${compactions}`);
    for (const tag of ['A', 'B']) expect(inWriterOrder(current.messages, tag)).toBe(true);
  });

  it('a process killed while it holds withLock leaves no lock behind and none of its uncommitted writes', async () => {
    const path = join(dir, 'killed.db');
    const agent = 'locked';
    const seed = track(createSqliteTranscriptStore({ path }));
    await seed.append('default', agent, [msg('before')], header('c0'));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const run = start({ path, agent, mode: 'hold', tag: 'H', count: 0 }, (m) => {
      if (m.holding) holding();
    });
    await within(
      Promise.race([
        held,
        run.exited.then((e) => Promise.reject(new Error(`child exited: ${run.stderr}`, { cause: e }))),
      ]),
      20_000,
      'the child to take the lock',
    );
    // The lock is really held across processes: a writer with a short busy timeout gives up.
    const impatient: TranscriptStore = track(createSqliteTranscriptStore({ path, busyTimeoutMs: 200 }));
    const err = await impatient.append('default', agent, [msg('too early')], header('c0')).catch((e: unknown) => e);
    expect(MemError.is(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
    // A patient writer gets through once the holder is killed: SQLite's locks die with their process.
    const patient = track(createSqliteTranscriptStore({ path, busyTimeoutMs: 20_000 }));
    const pending = patient.append('default', agent, [msg('after the crash')], header('c0'));
    run.child.kill('SIGKILL');
    expect((await within(run.exited, 10_000, 'the child to die')).signal).toBe('SIGKILL');
    await within(pending, 15_000, 'the append after the crash');
    expect(contents((await patient.read('default', agent))?.messages)).toEqual(['before', 'after the crash']);
  });
});
