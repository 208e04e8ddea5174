import { type KnowledgeStore, OPEN_VALIDITY, type SearchFilter } from '@mem/core/adapter';
import { keywordHits, vectorHits } from '@mem/testkit';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  backend,
  closedPort,
  dropSchema,
  expectCode,
  freshSchema,
  randomVector,
  record,
  url,
} from '../test/helpers.js';
import { startPgliteServer } from '../test/pglite-server.js';
import {
  createPostgresStore,
  knowledgeMigrations,
  type PortMigrations,
  type PostgresKnowledgeStore,
  runMigrations,
} from './index.js';
import { compileFilter, vectorQuery } from './queries.js';
import { vectorLiteral } from './vectors.js';

const admin = adminClient(4);
const schemas: string[] = [];
const stores: KnowledgeStore[] = [];
const clients: postgres.Sql[] = [];

afterAll(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const c of clients.splice(0)) await c.end({ timeout: 5 }).catch(() => undefined);
  for (const schema of schemas.splice(0)) await dropSchema(admin, schema);
  await admin.end({ timeout: 5 });
});

function schemaFor(prefix: string): string {
  const schema = freshSchema(prefix);
  schemas.push(schema);
  return schema;
}

async function open(schema: string, extra: Partial<Parameters<typeof createPostgresStore>[0]> = {}) {
  const store = await createPostgresStore({ url, schema, max: 4, ...extra });
  stores.push(store);
  return store;
}

function client(max = 2, options: postgres.Options<Record<string, postgres.PostgresType>> = {}): postgres.Sql {
  const c = postgres(url, { max, onnotice: () => {}, ...options });
  clients.push(c);
  return c;
}

const filter = (extra: Partial<SearchFilter> = {}): SearchFilter => ({
  space: 'acme',
  viewerAgentId: 'alice',
  now: '2026-03-01T12:00:00.000Z',
  ...extra,
});

describe('migrations', () => {
  it('apply each step once, also when two pools migrate the same schema at the same moment', async () => {
    const schema = schemaFor('mig');
    const [a, b] = [client(), client()];
    const results = await Promise.all([runMigrations(a, { schema }), runMigrations(b, { schema })]);
    // Every family of the package, each once, in the order of `migrations`.
    const families = ['knowledge', 'transcripts', 'notebooks', 'structured', 'episodic'];
    const steps = [
      { port: 'knowledge', version: 1, name: 'knowledge' },
      { port: 'knowledge', version: 2, name: 'ratings-counted' },
      { port: 'knowledge', version: 3, name: 'formation' },
      ...families.slice(1).flatMap((port) => [
        { port, version: 1, name: port },
        // The structured family's second step: the memory graph.
        ...(port === 'structured' ? [{ port, version: 2, name: 'graph' }] : []),
      ]),
    ];
    expect(results.flatMap((r) => r.applied)).toEqual(steps);
    const current = { ...Object.fromEntries(families.map((port) => [port, 1])), knowledge: 3, structured: 2 };
    for (const r of results) expect(r.current).toEqual(current);
    const rows = await admin.unsafe(`SELECT port, version FROM "${schema}".schema_migrations`);
    expect(rows).toHaveLength(steps.length);
    const again = await runMigrations(a, { schema });
    expect(again).toEqual({ applied: [], current });
  });

  it('two stores opened at once on a new schema both work', async () => {
    const schema = schemaFor('open2');
    const [s1, s2] = await Promise.all([open(schema), open(schema)]);
    await s1.insertDocument([record({ content: 'written through the first pool' })]);
    expect((await s2.stats('acme')).documents).toBe(1);
  });

  // autoMigrate: false on a new schema: the knowledge conformance suite (tooling/testkit), as for every store.

  it('another port records its own steps in the same table', async () => {
    const schema = schemaFor('ports');
    const c = client();
    const notes: PortMigrations = {
      port: 'notes',
      steps: [
        {
          version: 1,
          name: 'notes',
          async up(tx, ctx) {
            await tx.unsafe(`CREATE TABLE ${ctx.schema}.notes (id text PRIMARY KEY)`);
          },
        },
      ],
    };
    const first = await runMigrations(c, { schema, ports: [knowledgeMigrations, notes] });
    expect(first.current).toEqual({ knowledge: 3, notes: 1 });
    expect((await runMigrations(c, { schema, ports: [notes] })).applied).toEqual([]);
    const store = await open(schema);
    expect((await store.migrate()).applied).toEqual([]);
  });

  it('a schema at knowledge version 2 with a row migrates to formation; the row reads back written on purpose', async () => {
    const schema = schemaFor('v2');
    const c = client();
    const upToV2: PortMigrations = {
      port: 'knowledge',
      steps: knowledgeMigrations.steps.filter((step) => step.version <= 2),
    };
    expect((await runMigrations(c, { schema, ports: [upToV2] })).current).toEqual({ knowledge: 2 });
    // A row as a store of version 2 wrote it (none of the formation columns exist yet).
    await c.unsafe(
      `INSERT INTO "${schema}".chunks (id, doc_id, space, scope, agent_id, key, name, content, chunk_index, chunk_count,
         source, tags, content_hash, created_at, updated_at)
       VALUES ('old-1', 'old-1', 'acme', 'swarm', 'alice', '/notes/old', 'old', 'Written before formation existed.',
         0, 1, 'manual', '{kept}', 'h-old', '2026-01-05T10:00:00Z', '2026-01-05T10:00:00Z')`,
    );
    const store = await open(schema, { autoMigrate: false });
    await expectCode(store.getChunk('acme', 'old-1'), 'STORE_UNAVAILABLE');
    expect((await store.migrate()).applied).toEqual([{ port: 'knowledge', version: 3, name: 'formation' }]);
    const [old] = await store.getDocument('acme', 'old-1');
    expect(old).toMatchObject({
      id: 'old-1',
      content: 'Written before formation existed.',
      tags: ['kept'],
      createdAt: '2026-01-05T10:00:00.000Z',
      ...OPEN_VALIDITY,
    });
    // Current by default and found by a search of no user; the new decision log is there and empty.
    const hits = await keywordHits(store, { filter: filter(), terms: ['formation'], limit: 5 });
    expect(hits.map((h) => h.id)).toEqual(['old-1']);
    expect(await store.formationLog('acme', ['old-1'])).toEqual([]);
    // It can be closed like any formed memory.
    await store.form('acme', {
      insert: [],
      close: [
        {
          docId: 'old-1',
          validTo: '2026-03-01T00:00:00.000Z',
          invalidatedAt: '2026-03-01T00:00:00.000Z',
          supersededBy: null,
        },
      ],
      log: [],
    });
    expect(await keywordHits(store, { filter: filter(), terms: ['formation'], limit: 5 })).toEqual([]);
    expect((await store.getChunk('acme', 'old-1'))?.validTo).toBe('2026-03-01T00:00:00.000Z');
  });
});

describe('keyword arm', () => {
  it('reads words with punctuation the way the tsquery parser does', async () => {
    const store = await open(schemaFor('fts'));
    const docs = {
      reilly: record({ content: "O'Reilly published the book on C++ and C#." }),
      colon: record({ content: 'The config line reads foo:bar & baz | qux.' }),
      paren: record({ content: 'A (parenthesised) remark, and a bang!' }),
      slash: record({ content: 'Windows paths use back\\slash separators.' }),
      star: record({ content: 'The prefix* wildcard is not special here.' }),
    };
    for (const d of Object.values(docs)) await store.insertDocument([d]);
    // Every engine's query syntax as plain words: the knowledge conformance suite. Here, how tsquery reads words.
    const ids = async (terms: string[]) =>
      (await keywordHits(store, { filter: filter(), terms, limit: 10 })).map((h) => h.id);
    expect(await ids(["o'reilly"])).toEqual([docs.reilly.id]);
    expect(await ids(['foo:bar'])).toEqual([docs.colon.id]);
    expect(await ids(['(parenthesised)'])).toEqual([docs.paren.id]);
    expect(await ids(['back\\slash'])).toEqual([docs.slash.id]);
    expect(await ids(['prefix*'])).toEqual([docs.star.id]);
    expect(await ids(['-qux!'])).toEqual([docs.colon.id]);
    // Stop words only: nothing to search for, no error.
    expect(await ids(['the', 'and'])).toEqual([]);
    // The table is still there.
    expect((await store.stats('acme')).documents).toBe(5);
  });

  it('matches word forms (english stemming) and ranks the denser match first', async () => {
    const store = await open(schemaFor('stem'));
    const weak = record({ content: 'Notes from the meeting; someone mentioned deploy once.' });
    const strong = record({ content: 'Deploying: the deploy script deploys every service. Deployment takes minutes.' });
    await store.insertDocument([weak]);
    await store.insertDocument([strong]);
    const hits = await keywordHits(store, { filter: filter(), terms: ['deploys'], limit: 10 });
    expect(hits.map((h) => h.id)).toEqual([strong.id, weak.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('past the scored pool (more matches than it ranks), the top is still ts_rank_cd over every match', async () => {
    const schema = schemaFor('pool');
    const store = await open(schema);
    // 1,200 matches of "deploy" (the pool at limit 10 is 500): notes that mention it once, and ten that are about it.
    const strong = Array.from({ length: 10 }, (_, i) =>
      record({ content: `Deploy runbook ${i}: the deploy script deploys the service; a failed deploy rolls back.` }),
    );
    const weak = Array.from({ length: 1_190 }, (_, i) =>
      record({ content: `Meeting notes of day ${i}: someone mentioned the deploy once, then we moved on to lunch.` }),
    );
    const docs = [...weak.slice(0, 600), ...strong, ...weak.slice(600)];
    for (let i = 0; i < docs.length; i += 300) await store.insertDocument(docs.slice(i, i + 300));
    const got = await keywordHits(store, { filter: filter(), terms: ['deploys'], limit: 10 });
    const all = await admin.unsafe<{ id: string }[]>(
      `SELECT id FROM "${schema}".chunks c WHERE c.fts @@ 'deploy'::tsquery
       ORDER BY ts_rank_cd(c.fts, 'deploy'::tsquery, 1) DESC, c.created_at, c.id LIMIT 10`,
    );
    expect(got.map((h) => h.id)).toEqual(all.map((r) => r.id));
    expect(new Set(got.map((h) => h.id))).toEqual(new Set(strong.map((d) => d.id)));
  });
});

describe('vector arm', () => {
  it('keeps one HNSW index, for the recorded dimension', async () => {
    const schema = schemaFor('idx');
    const store = await open(schema);
    const indexes = async () =>
      (
        await admin.unsafe<{ name: string }[]>(
          `SELECT indexname AS name FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'chunks_embedding%' ORDER BY 1`,
          [schema],
        )
      ).map((r) => r.name);
    expect(await indexes()).toEqual([]);
    await store.setEmbeddingInfo({ model: 'm8', dimension: 8 });
    expect(await indexes()).toEqual(['chunks_embedding_hnsw_8']);
    expect(await store.getEmbeddingInfo()).toEqual({ model: 'm8', dimension: 8 });
    await store.updateEmbeddings([], { model: 'm4', dimension: 4 });
    expect(await indexes()).toEqual(['chunks_embedding_hnsw_4']);
    // Above pgvector's 2,000-dimension index limit: no index, exact search still answers.
    await store.setEmbeddingInfo({ model: 'big', dimension: 2500 });
    expect(await indexes()).toEqual([]);
    const v = randomVector(2500, 1);
    const r = record({ embedding: v, embeddingModel: 'big' });
    await store.insertDocument([r]);
    const hits = await vectorHits(store, { filter: filter(), vector: v, limit: 5 });
    expect(hits.map((h) => h.id)).toEqual([r.id]);
    expect(hits[0]!.similarity).toBeCloseTo(1, 5);
  });

  it('uses the HNSW index on a larger table and still applies filters before the cut', async () => {
    const schema = schemaFor('hnsw');
    const store = (await open(schema)) as PostgresKnowledgeStore;
    const dims = 16;
    await store.setEmbeddingInfo({ model: 'rand', dimension: dims });
    const docs = Array.from({ length: 3000 }, (_, i) =>
      record({ key: `/bulk/item-${i}`, embedding: randomVector(dims, i + 10), embeddingModel: 'rand' }),
    );
    for (let i = 0; i < docs.length; i += 500) {
      await Promise.all(docs.slice(i, i + 500).map((d) => store.insertDocument([d])));
    }
    const inside = Array.from({ length: 5 }, (_, i) =>
      record({ key: `/kb/facts/f-${i}`, embedding: randomVector(dims, 90_000 + i), embeddingModel: 'rand' }),
    );
    for (const d of inside) await store.insertDocument([d]);
    await admin.unsafe(`ANALYZE "${schema}".chunks`);
    const query = randomVector(dims, 4242);
    // The approximate form of the query is planned as an index scan on the per-dimension HNSW index.
    const built = vectorQuery(
      { schema: `"${schema}"`, vectorSchema: `"${await vectorSchemaName()}"` },
      compileFilter(filter()),
      vectorLiteral(query),
      dims,
      10,
      true,
    );
    const plan = (await admin.unsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${built.text}`, built.params))
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain('chunks_embedding_hnsw_16');
    // Recall against brute force: the top 10 of the index match the exact top 10 (at this size, ef_search covers it).
    const approx = await vectorHits(store, { filter: filter(), vector: query, limit: 10 });
    const exact = await admin.unsafe<{ id: string }[]>(
      `SELECT id FROM "${schema}".chunks ORDER BY embedding OPERATOR("${await vectorSchemaName()}".<=>) $1::"${await vectorSchemaName()}".vector LIMIT 10`,
      [vectorLiteral(query)],
    );
    const overlap = approx.filter((h) => exact.some((e) => e.id === h.id)).length;
    expect(overlap).toBeGreaterThanOrEqual(9);
    for (let i = 1; i < approx.length; i++) {
      expect(approx[i - 1]!.similarity).toBeGreaterThanOrEqual(approx[i]!.similarity);
    }
    // 5 rows under /kb/facts/ among 3,005: all of them come back, in exact order.
    const filtered = await vectorHits(store, {
      filter: filter({ keyPrefix: '/kb/facts/' }),
      vector: query,
      limit: 10,
    });
    expect(filtered.map((h) => h.id).sort()).toEqual(inside.map((d) => d.id).sort());
    const top3 = await vectorHits(store, { filter: filter({ keyPrefix: '/kb/facts/' }), vector: query, limit: 3 });
    expect(top3.map((h) => h.id)).toEqual(filtered.slice(0, 3).map((h) => h.id));
  });
});

async function vectorSchemaName(): Promise<string> {
  const [row] = await admin.unsafe<{ schema: string }[]>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
  );
  return row?.schema ?? 'public';
}

describe('writes', () => {
  it('maps duplicate keys, stale versions, repeated ratings and NUL characters to their codes', async () => {
    const store = await open(schemaFor('codes'));
    const a = record({ key: '/notes/taken' });
    await store.insertDocument([a]);
    const taken = await expectCode(store.insertDocument([record({ key: '/notes/taken' })]), 'KEY_TAKEN');
    expect(taken.message).toContain(a.id);
    await expectCode(store.insertDocument([record({ id: a.id, key: '/notes/other' })]), 'CONFLICT');
    const version = {
      docId: a.id,
      space: 'acme',
      version: 1,
      oldContent: a.content,
      oldKey: a.key,
      intent: 'edit',
      agentId: 'alice',
      at: '2026-03-01T12:00:01.000Z',
    };
    await expectCode(
      store.moveDocument('acme', a.id, { newKey: '/notes/x', updatedAt: version.at }, version, 7),
      'CONFLICT',
    );
    await expectCode(
      store.moveDocument('acme', 'missing', { newKey: '/notes/x', updatedAt: version.at }, version, 1),
      'NOT_FOUND',
    );
    const rating = {
      docId: a.id,
      space: 'acme',
      taskId: 't1',
      useful: false,
      note: null,
      agentId: 'alice',
      at: version.at,
      counted: true,
    };
    await store.addRating(rating);
    await expectCode(store.addRating(rating), 'ALREADY_RATED');
    await expectCode(store.addRating({ ...rating, docId: 'missing' }), 'NOT_FOUND');
    expect((await store.getChunk('acme', a.id))?.beta).toBe(2);
    await expectCode(store.insertDocument([record({ content: 'nul \u0000 inside' })]), 'INVALID_INPUT');
    expect((await store.stats('acme')).documents).toBe(1);
  });

  it('two concurrent edits of one version: one wins, the other gets CONFLICT', async () => {
    const schema = schemaFor('race');
    const [s1, s2] = [await open(schema), await open(schema)];
    const doc = record({ key: '/notes/raced' });
    await s1.insertDocument([doc]);
    const edit = (store: KnowledgeStore, content: string) =>
      store.replaceDocument(
        'acme',
        doc.id,
        [{ ...doc, content, updatedAt: '2026-03-01T12:00:01.000Z' }],
        {
          docId: doc.id,
          space: 'acme',
          version: 1,
          oldContent: doc.content,
          oldKey: doc.key,
          intent: content,
          agentId: 'alice',
          at: '2026-03-01T12:00:01.000Z',
        },
        1,
      );
    const settled = await Promise.allSettled([edit(s1, 'first edit'), edit(s2, 'second edit')]);
    expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = settled.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'CONFLICT' });
    const [after] = await s2.getDocument('acme', doc.id);
    expect(after?.version).toBe(2);
    expect(await s1.listVersions('acme', doc.id)).toHaveLength(1);
  });

  it('two concurrent formations closing one memory: one wins, the other gets CONFLICT and writes nothing', async () => {
    const schema = schemaFor('formrace');
    const [s1, s2] = [await open(schema), await open(schema)];
    for (let round = 0; round < 5; round++) {
      const old = record({ content: `The user lives in town ${round}.` });
      await s1.insertDocument([old]);
      const distil = (store: KnowledgeStore, city: string) => {
        const next = record({ content: `The user lives in ${city}.`, supersedes: old.id });
        const at = '2026-03-01T12:00:01.000Z';
        return store
          .form('acme', {
            insert: [[next]],
            close: [{ docId: old.id, validTo: at, invalidatedAt: at, supersededBy: next.id }],
            log: [
              {
                id: `log-${next.id}`,
                space: 'acme',
                memoryId: next.id,
                decision: 'update',
                previousId: old.id,
                text: next.content,
                evidence: ['m-1'],
                extractor: 'offline',
                model: null,
                promptVersion: 'offline-1',
                related: [old.id],
                agentId: 'alice',
                userId: null,
                at,
              },
            ],
          })
          .then(() => next.id);
      };
      const settled = await Promise.allSettled([distil(s1, 'Lisbon'), distil(s2, 'Porto')]);
      const won = settled.filter((r): r is PromiseFulfilledResult<string> => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const rejected = settled.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toMatchObject({ code: 'CONFLICT', retryable: true });
      expect(String(rejected.reason.message)).toMatch(/already closed/);
      const [closed] = await s2.getDocument('acme', old.id);
      expect(closed?.supersededBy).toBe(won[0]!.value);
      // The loser's memory and log line are not there: of the two, only the winner's.
      const formed = (await s1.scan({ space: 'acme', limit: 100 })).filter((r) => r.supersedes === old.id);
      expect(formed.map((r) => r.id)).toEqual([won[0]!.value]);
      const lines = await s1.formationLog(
        'acme',
        formed.map((r) => r.id),
      );
      expect(lines.map((e) => e.memoryId)).toEqual([won[0]!.value]);
    }
  });

  it('shares a caller’s client (even with a column transform) and leaves it open on close', async () => {
    const schema = schemaFor('shared');
    const shared = client(2, { transform: postgres.camel });
    const store = await createPostgresStore({ sql: shared, schema });
    const r = record({ tags: ['a', 'b'], embedding: randomVector(8, 3), embeddingModel: 'm' });
    await store.setEmbeddingInfo({ model: 'm', dimension: 8 });
    await store.insertDocument([r]);
    const got = await store.getChunk('acme', r.id);
    expect(got).toMatchObject({ id: r.id, docId: r.id, agentId: 'alice', tags: ['a', 'b'], createdAt: r.createdAt });
    expect(Array.from(got!.embedding!)).toEqual(Array.from(r.embedding!));
    expect((await vectorHits(store, { filter: filter(), vector: r.embedding!, limit: 3 }))[0]?.id).toBe(r.id);
    await store.close();
    expect(await shared`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });
});

describe('STORE_UNAVAILABLE', () => {
  const noStack = (message: string) => expect(message).not.toMatch(/\n\s+at /);

  // A closed store on every method: the knowledge conformance suite (tooling/testkit), as for every store.

  it('for a server that is down, without leaking the password', async () => {
    const port = await closedPort();
    const e = await expectCode(
      createPostgresStore({ url: `postgres://mem:hunter2@127.0.0.1:${port}/mem`, connectTimeoutSeconds: 3 }),
      'STORE_UNAVAILABLE',
    );
    expect(e.message).toContain(`127.0.0.1:${port}/mem`);
    expect(e.message).toMatch(/cannot reach the PostgreSQL server .* Check that the server is running/);
    expect(e.message).not.toContain('hunter2');
    expect(e.retryable).toBe(true);
    noStack(e.message);
  });

  it('for a URL that is not one', async () => {
    const e = await expectCode(createPostgresStore({ url: 'not a url' }), 'STORE_UNAVAILABLE');
    expect(e.message).toMatch(/not a usable connection URL .*postgres:\/\/user:password@host:5432\/database/);
    noStack(e.message);
  });

  it('for a server without pgvector, saying how to install it', { timeout: 120_000 }, async () => {
    const bare = await startPgliteServer({ withVector: false });
    try {
      const e = await expectCode(createPostgresStore({ url: bare.url, schema: 'mem' }), 'STORE_UNAVAILABLE');
      expect(e.message).toMatch(/pgvector extension is not installed on the server/);
      expect(e.message).toMatch(/CREATE EXTENSION vector/);
      noStack(e.message);
      // Nothing was created on the way.
      const c = postgres(bare.url, { max: 1, onnotice: () => {} });
      const [row] = await c.unsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'mem'`,
      );
      await c.end({ timeout: 5 });
      expect(row?.n).toBe(0);
    } finally {
      await bare.stop();
    }
  });

  it.skipIf(backend !== 'server')('for a role that may not enable pgvector in its database', async () => {
    const suffix = freshSchema('nv').slice(4);
    const db = `mem_db_${suffix}`;
    const role = `mem_role_${suffix}`;
    await admin.unsafe(`CREATE ROLE "${role}" LOGIN PASSWORD 'pw'`);
    await admin.unsafe(`CREATE DATABASE "${db}"`);
    try {
      await admin.unsafe(`REVOKE CREATE ON DATABASE "${db}" FROM PUBLIC`);
      const u = new URL(url);
      u.username = role;
      u.password = 'pw';
      u.pathname = `/${db}`;
      const e = await expectCode(createPostgresStore({ url: u.toString() }), 'STORE_UNAVAILABLE');
      expect(e.message).toMatch(/pgvector is installed on the server .* cannot enable it/);
      expect(e.message).toMatch(/CREATE EXTENSION vector/);
      expect(e.message).not.toContain('pw@');
      noStack(e.message);
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      await admin.unsafe(`DROP ROLE IF EXISTS "${role}"`);
    }
  });

  it.skipIf(backend !== 'server')('for a database that does not exist', async () => {
    const u = new URL(url);
    u.pathname = '/mem_no_such_database';
    const e = await expectCode(createPostgresStore({ url: u.toString() }), 'STORE_UNAVAILABLE');
    expect(e.message).toMatch(/mem_no_such_database.*does not exist.*Create the database/);
    noStack(e.message);
  });
});
