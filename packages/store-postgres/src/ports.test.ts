import { createHashingEmbedder, createStack, type TranscriptMessage } from '@mem/core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  backend,
  dropSchema,
  expectCode,
  freshSchema,
  type SharedSchema,
  sharedSchema,
  url,
} from '../test/helpers.js';
import {
  createPostgresEpisodeStore,
  createPostgresStores,
  createPostgresStructuredStores,
  createPostgresTranscriptStore,
  POSTGRES_COMPACTION_STEPS,
  type PostgresStores,
} from './index.js';

const admin = adminClient(2);
const schemas: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
let db: SharedSchema;

beforeAll(async () => {
  db = await sharedSchema('ports');
});

afterAll(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  for (const schema of schemas.splice(0)) await dropSchema(admin, schema);
  await db.drop();
  await admin.end({ timeout: 5 });
});

function schemaFor(prefix: string): string {
  const schema = freshSchema(prefix);
  schemas.push(schema);
  return schema;
}

async function bundle(options: Partial<Parameters<typeof createPostgresStores>[0]> = {}): Promise<PostgresStores> {
  const stores = await createPostgresStores({ url, schema: schemaFor('bundle'), max: 3, ...options } as never);
  closers.push(() => stores.close());
  return stores;
}

const T = '2026-03-01T12:00:00.000Z';
const msg = (content: string, role: TranscriptMessage['role'] = 'user'): TranscriptMessage => ({
  role,
  content,
  at: T,
});
const header = (id: string) => ({ conversationId: id, createdAt: T });

describe('createPostgresStores', () => {
  it('puts every port on one client and one schema, and serves a stack', async () => {
    const stores = await bundle();
    for (const port of [stores.knowledge, stores.transcripts, stores.notebooks, stores.structured]) {
      expect(port.sql).toBe(stores.sql);
      expect(port.schema).toBe(stores.schema);
    }
    const stack = createStack({
      knowledge: stores.knowledge,
      structured: stores.structured,
      transcripts: stores.transcripts,
      notebooks: stores.notebooks,
      embedder: createHashingEmbedder({ dimension: 32 }),
    });
    const alice = { space: 'acme', agentId: 'alice', role: 'worker' } as const;
    await stack.knowledge.store(alice, { content: 'The billing service retries failed invoices three times.' });
    expect(await stack.knowledge.search(alice, { query: 'invoice retries' })).toHaveLength(1);
    await stack
      .port('facts')
      .upsert('acme', { user: 'u1', topic: null, key: 'city', value: 'Lisbon', source: 'user', at: T });
    expect((await stores.structured.facts.get('acme', 'u1')).map((f) => f.value)).toEqual(['Lisbon']);
    await stores.transcripts.append('acme', 'alice', [msg('hello')], header('c1'));
    await stores.notebooks.write({ space: 'acme', agent: 'alice' }, 'MEMORY.md', '- note\n', {
      expectedVersion: null,
      at: T,
    });
    const tables = await admin.unsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1`,
      [stores.schema],
    );
    // chunks, versions, ratings, meta, formation_log, schema_migrations + 4 transcript + 1 notebook + 8 structured
    // + 5 graph + 2 episodic.
    expect(tables[0]?.n).toBe(26);
  });

  it('closing one port leaves the others; close() ends the client it created, every port says closed', async () => {
    const stores = await bundle();
    await stores.transcripts.close();
    await expectCode(stores.transcripts.read('acme', 'alice'), 'STORE_UNAVAILABLE');
    expect(await stores.notebooks.list({ space: 'acme', agent: 'alice' })).toEqual([]);
    await stores.close();
    await stores.close();
    const calls: (() => Promise<unknown>)[] = [
      () => stores.knowledge.stats('acme'),
      () => stores.notebooks.list({ space: 'acme', agent: 'alice' }),
      () => stores.structured.messages.count('acme', 's1'),
      () => stores.structured.facts.get('acme', 'u1'),
      () => stores.structured.episodes.count('acme'),
      () => stores.structured.procedures.count('acme'),
      () => stores.migrate(),
    ];
    for (const call of calls) expect((await expectCode(call(), 'STORE_UNAVAILABLE')).message).toMatch(/closed/);
    await expect(stores.sql`SELECT 1`).rejects.toThrow();
  });

  it('leaves a shared client open, and works through a column-name transform', async () => {
    const shared = postgres(url, { max: 2, onnotice: () => {}, transform: postgres.camel });
    closers.push(() => shared.end({ timeout: 5 }));
    const stores = await createPostgresStores({ sql: shared, schema: schemaFor('camel') });
    const { structured: st } = stores;
    await stores.transcripts.append('acme', 'alice', [msg('one'), msg('two', 'assistant')], header('c1'));
    const compacted = await stores.transcripts.compact('acme', 'alice', {
      basis: { conversationId: 'c1', messageCount: 2 },
      header: header('c2'),
      messages: [msg('summary', 'system')],
      archivedAt: T,
    });
    expect(await stores.transcripts.listArchives('acme', 'alice')).toEqual([compacted.archive]);
    expect((await stores.transcripts.read('acme', 'alice'))?.messages).toEqual([msg('summary', 'system')]);
    const scope = { space: 'acme', agent: 'alice', user: 'u1' };
    await stores.notebooks.write(scope, 'plans/q3.md', 'x\n', { expectedVersion: null, at: T });
    expect(await stores.notebooks.list(scope)).toEqual([{ path: 'plans/q3.md', size: 2, updatedAt: T }]);
    await st.messages.save('acme', {
      id: 'm1',
      sessionId: 's1',
      role: 'assistant',
      content: 'hi',
      toolCalls: [{ id: 'c', name: 'n', arguments: { a_b: 1 } }],
      name: 'tool_name',
      metadata: { snake_case: true },
      createdAt: T,
    });
    expect((await st.messages.recent('acme', 's1', 5))[0]).toMatchObject({
      sessionId: 's1',
      toolCalls: [{ arguments: { a_b: 1 } }],
      metadata: { snake_case: true },
    });
    expect(
      (await st.facts.upsert('acme', { user: 'u1', topic: 't', key: 'k', value: 1, source: 'mcp', at: T })).fact,
    ).toMatchObject({
      user: 'u1',
      createdAt: T,
    });
    expect(
      (await st.goals.setActive('acme', { id: 'g1', user: 'u1', topic: null, goal: 'ship', metadata: {}, at: T })).goal,
    ).toMatchObject({ user: 'u1', createdAt: T });
    expect(
      (await st.summaries.save('acme', { sessionId: 's1', summary: 'x', messagesCovered: 3, at: T })).messagesCovered,
    ).toBe(3);
    expect((await st.users.ensure('acme', 'ext', { id: 'u1', at: T })).user.externalId).toBe('ext');
    await st.toolEvents.record('acme', {
      id: 'e1',
      sessionId: 's1',
      tool: 't',
      input: {},
      output: null,
      latencyMs: 5,
      error: null,
      at: T,
    });
    expect((await st.toolEvents.list('acme', {}, 5))[0]).toMatchObject({ sessionId: 's1', latencyMs: 5 });
    await st.episodes.insert(
      'acme',
      {
        id: 'e1',
        summary: 'deployed',
        keyDecisions: ['a'],
        toolsUsed: ['b'],
        outcome: 'success',
        sessionId: 's1',
        timestamp: T,
        tags: ['t'],
        metadata: {},
      },
      null,
    );
    expect(await st.episodes.get('acme', 'e1')).toMatchObject({
      keyDecisions: ['a'],
      toolsUsed: ['b'],
      sessionId: 's1',
      timestamp: T,
    });
    await stores.close();
    expect(await shared`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it('autoMigrate: false leaves the schema alone until migrate(), which applies every family', async () => {
    const stores = await bundle({ autoMigrate: false });
    for (const call of [
      () => stores.knowledge.stats('acme'),
      () => stores.transcripts.read('acme', 'alice'),
      () => stores.notebooks.list({ space: 'acme', agent: 'alice' }),
      () => stores.structured.goals.list('acme', 'u1'),
      () => stores.structured.procedures.list('acme', 5),
    ]) {
      expect((await expectCode(call(), 'STORE_UNAVAILABLE')).message).toMatch(/migrate\(\)/);
    }
    const result = await stores.migrate();
    expect(result.applied.map((a) => a.port)).toEqual([
      'knowledge',
      'knowledge',
      'knowledge',
      'transcripts',
      'notebooks',
      'structured',
      'structured',
      'episodic',
    ]);
    expect(await stores.transcripts.read('acme', 'alice')).toBeNull();
    expect(await stores.structured.procedures.list('acme', 5)).toEqual([]);
    expect((await stores.knowledge.stats('acme')).documents).toBe(0);
  });

  it('a store of one family says which migration it misses', async () => {
    const schema = schemaFor('family');
    const store = await createPostgresStructuredStores({ url, schema, autoMigrate: false, max: 1 });
    closers.push(() => store.close());
    const e = await expectCode(store.messages.count('acme', 's1'), 'STORE_UNAVAILABLE');
    expect(e.message).toMatch(/structured schema version 0; the structured stores need version 2/);
    expect((await store.migrate()).applied.map((a) => a.port)).toEqual(['structured', 'structured', 'episodic']);
    expect(await store.messages.count('acme', 's1')).toBe(0);
  });
});

describe('transcripts', () => {
  it('calls the step hook before exactly the documented steps', async () => {
    await db.wipe();
    const steps: string[] = [];
    const store = await createPostgresTranscriptStore({
      sql: db.sql,
      schema: db.schema,
      onCompactionStep: (step) => void steps.push(step),
    });
    await store.append('acme', 'alice', [msg('a')], header('c1'));
    await store.compact('acme', 'alice', {
      basis: { conversationId: 'c1', messageCount: 1 },
      header: header('c2'),
      messages: [],
      archivedAt: T,
    });
    expect(steps).toEqual([...POSTGRES_COMPACTION_STEPS]);
    await store.close();
  });

  it('keeps call order for appends one instance makes without awaiting each', async () => {
    await db.wipe();
    const store = await createPostgresTranscriptStore({ sql: db.sql, schema: db.schema });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.append('acme', 'alice', [msg(`m${i}`)], header('c1'))),
    );
    expect((await store.read('acme', 'alice'))?.messages.map((m) => m.content)).toEqual(
      Array.from({ length: 40 }, (_, i) => `m${i}`),
    );
    await store.close();
  });

  it('refuses a withLock handle used after its body ended, and passes the body’s own errors through', async () => {
    await db.wipe();
    const store = await createPostgresTranscriptStore({ sql: db.sql, schema: db.schema });
    const leaked = await store.withLock('acme', 'alice', async (tx) => tx);
    await expectCode(leaked.read(), 'INVALID_INPUT');
    class Mine extends Error {}
    await expect(
      store.withLock('acme', 'alice', async () => Promise.reject(new Mine('body failed'))),
    ).rejects.toBeInstanceOf(Mine);
    // The failed body rolled back what it wrote.
    await expect(
      store.withLock('acme', 'alice', async (tx) => {
        await tx.append([msg('rolled back')], header('c1'));
        throw new Mine('after a write');
      }),
    ).rejects.toBeInstanceOf(Mine);
    expect(await store.read('acme', 'alice')).toBeNull();
    await store.close();
  });

  it.skipIf(backend !== 'server')('an append from another pool waits while withLock holds the transcript', async () => {
    await db.wipe();
    const a = await createPostgresTranscriptStore({ sql: db.sql, schema: db.schema });
    const b = await createPostgresTranscriptStore({ url, schema: db.schema, max: 1 });
    closers.push(() => b.close());
    await a.append('acme', 'alice', [msg('first')], header('c1'));
    let appended: Promise<unknown> | undefined;
    await a.withLock('acme', 'alice', async (tx) => {
      appended = b.append('acme', 'alice', [msg('from b')], header('c1'));
      // Poll until b's statement waits for the advisory lock (a lock that is not granted).
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [row] = await admin.unsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
        );
        if ((row?.n ?? 0) > 0) break;
        if (Date.now() > deadline) throw new Error('the append never waited for the lock');
        await new Promise((r) => setTimeout(r, 10));
      }
      const t = await tx.read();
      await tx.compact({
        basis: { conversationId: 'c1', messageCount: t?.messages.length ?? 0 },
        header: header('c2'),
        messages: [msg('summary', 'system')],
        archivedAt: T,
      });
    });
    await appended;
    // The append ran after the compaction, into the new transcript.
    expect((await a.read('acme', 'alice'))?.messages.map((m) => m.content)).toEqual(['summary', 'from b']);
    await a.close();
  });
});

describe('structured', () => {
  it('maps NUL characters and unreadable times to INVALID_INPUT', async () => {
    await db.wipe();
    const st = await createPostgresStructuredStores({ sql: db.sql, schema: db.schema });
    const base = {
      id: 'm1',
      sessionId: 's1',
      role: 'user' as const,
      toolCalls: [],
      name: null,
      metadata: {},
      createdAt: T,
    };
    await expectCode(st.messages.save('acme', { ...base, content: 'nul \u0000 here' }), 'INVALID_INPUT');
    await expectCode(st.messages.save('acme', { ...base, content: 'x', createdAt: 'not a time' }), 'INVALID_INPUT');
    await expectCode(st.sessionState.set('acme', 's1', { text: 'a\u0000b' }, T), 'INVALID_INPUT');
    expect(await st.messages.count('acme', 's1')).toBe(0);
  });

  it('episode keyword search reads words as the knowledge store’s tsquery does, and stems', async () => {
    await db.wipe();
    const episodes = await createPostgresEpisodeStore({ sql: db.sql, schema: db.schema });
    const ep = (id: string, summary: string) => ({
      id,
      summary,
      keyDecisions: [],
      toolsUsed: [],
      outcome: 'success' as const,
      sessionId: null,
      timestamp: T,
      tags: [],
      metadata: {},
    });
    await episodes.insert('acme', ep('reilly', "O'Reilly: foo & bar | (baz)!"), null);
    await episodes.insert('acme', ep('deploy', 'Deployment of the api'), null);
    // Every engine's query syntax as plain words, never throwing: the episode conformance suite. Here, tsquery's words.
    expect((await episodes.keywordSearch('acme', ["o'reilly", 'foo:*'], 5)).map((h) => h.id)).toEqual(['reilly']);
    expect((await episodes.keywordSearch('acme', ['deploying'], 5)).map((h) => h.id)).toEqual(['deploy']);
    expect(await episodes.keywordSearch('acme', ['the', 'of'], 5)).toEqual([]);
    expect(await episodes.count('acme')).toBe(2);
    await episodes.close();
  });
});
