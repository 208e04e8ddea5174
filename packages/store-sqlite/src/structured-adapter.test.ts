// Adapter-specific behaviour of the structured stores only; structured.suite.test.ts runs the port contracts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHashingEmbedder, type Episode, MemError, type Procedure } from '@mem/core';
import { canonicalJson, factPriority } from '@mem/core/adapter';
import { keywordHits } from '@mem/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSqliteEpisodeStore,
  createSqliteProcedureStore,
  createSqliteStore,
  createSqliteStructuredStores,
  GRAPH_SCHEMA_VERSION,
  migrations,
  openDatabase,
  runMigrations,
  type SqliteHandle,
  STRUCTURED_SCHEMA_VERSION,
} from './index.js';

const NOW = '2026-01-01T00:00:00.000Z';

function episode(id: string, summary: string, extra: Partial<Episode> = {}): Episode {
  return {
    id,
    summary,
    keyDecisions: [],
    toolsUsed: [],
    outcome: 'success',
    sessionId: null,
    timestamp: NOW,
    tags: [],
    metadata: {},
    ...extra,
  };
}

function procedure(id: string, name: string): Procedure {
  return {
    id,
    name,
    description: '',
    trigger: '',
    steps: [],
    successCount: 0,
    failureCount: 0,
    tags: [],
    metadata: {},
    createdAt: NOW,
    updatedAt: NOW,
  };
}

let dir: string;
const open: { close(): Promise<void> }[] = [];

function track<T extends { close(): Promise<void> }>(store: T): T {
  open.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-structured-'));
});

afterEach(async () => {
  for (const store of open.splice(0).reverse()) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migration 2 (structured)', () => {
  it('applies on a file made by migration 1 and keeps its knowledge rows', async () => {
    const path = join(dir, 'v1.db');
    const v1 = openDatabase(path);
    expect(runMigrations(v1, migrations.slice(0, 1))).toEqual({ applied: [1], current: 1 });
    v1.prepare(
      `INSERT INTO chunks (id, doc_id, space, scope, agent_id, key, name, content, chunk_index, chunk_count, source,
         content_hash, created_at, updated_at)
       VALUES ('c1', 'c1', 'acme', 'swarm', 'a1', '/k/c1', 'old note', 'kept across the migration', 0, 1, 'manual',
         'h1', ?, ?)`,
    ).run(NOW, NOW);
    v1.close();

    const stores = track(createSqliteStructuredStores({ path }));
    const versions = stores.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
    expect(versions).toEqual(migrations.map((m) => ({ version: m.version })));
    await stores.episodes.insert('acme', episode('e1', 'after the upgrade'), null);
    expect(await stores.episodes.count('acme')).toBe(1);

    const knowledge = track(createSqliteStore({ path }));
    expect((await knowledge.getChunk('acme', 'c1'))?.content).toBe('kept across the migration');
    expect(
      await keywordHits(knowledge, {
        filter: { space: 'acme', viewerAgentId: 'a1', now: NOW },
        terms: ['kept'],
        limit: 5,
      }),
    ).toHaveLength(1);
  });

  it('with autoMigrate off, refuses work on an older file until migrate() runs', async () => {
    const path = join(dir, 'manual.db');
    const v1 = openDatabase(path);
    runMigrations(v1, migrations.slice(0, 1));
    v1.close();
    const stores = track(createSqliteStructuredStores({ path, autoMigrate: false }));
    const err = await stores.messages.count('acme', 's1').catch((e: unknown) => e);
    expect(MemError.is(err, 'STORE_UNAVAILABLE')).toBe(true);
    // The structured bundle needs the graph's step too, the newest of the two.
    expect((err as Error).message).toMatch(new RegExp(`^sqlite: .*step ${GRAPH_SCHEMA_VERSION}.*migrate\\(\\)`));
    const applied = (await stores.migrate()).applied;
    expect(applied).toContain(STRUCTURED_SCHEMA_VERSION);
    expect(applied).toContain(GRAPH_SCHEMA_VERSION);
    expect(await stores.messages.count('acme', 's1')).toBe(0);
  });
});

describe('sharing one connection', () => {
  it('runs beside the knowledge store on its connection and never closes it', async () => {
    const knowledge = track(createSqliteStore({ path: join(dir, 'shared.db') }));
    const stores = createSqliteStructuredStores({ db: knowledge.db });
    expect(stores.db).toBe(knowledge.db);
    expect(stores.nativeVector).toBe(true);
    await stores.sessionState.set('acme', 's1', { step: 1 }, NOW);
    await stores.close();
    await stores.close(); // twice is harmless
    expect(knowledge.db.open).toBe(true);
    expect(knowledge.db.prepare('SELECT count(*) AS n FROM session_state').get()).toEqual({ n: 1 });
    const err = await stores.sessionState.get('acme', 's1').catch((e: unknown) => e);
    expect(MemError.is(err, 'STORE_UNAVAILABLE')).toBe(true);
    expect((err as Error).message).toMatch(/^sqlite: .*closed/);
  });

  it('closes a connection it opened only with its last lease', async () => {
    const stores = createSqliteStructuredStores({ path: join(dir, 'leases.db') });
    const episodes = createSqliteEpisodeStore({ db: stores.db });
    const procedures = createSqliteProcedureStore({ db: stores.db });
    const leases: SqliteHandle[] = [stores, episodes, procedures];
    await stores.close();
    expect(stores.db.open).toBe(true);
    await episodes.insert('acme', episode('e1', 'still writable'), null);
    await procedures.close();
    await procedures.close();
    expect(episodes.db.open).toBe(true);
    await episodes.close();
    expect(leases.every((l) => !l.db.open)).toBe(true);
  });

  it('refuses a closed connection and a missing source', () => {
    const db = openDatabase(join(dir, 'closed.db'));
    db.close();
    expect(() => createSqliteStructuredStores({ db })).toThrow(/closed/);
    expect(() => createSqliteStructuredStores({} as never)).toThrow(/path.*db/);
  });
});

describe('storage details', () => {
  it('stores fact values as canonical JSON with the source priority', async () => {
    const stores = track(createSqliteStructuredStores({ path: join(dir, 'facts.db') }));
    const value = { b: [2, { z: 1, a: null }], a: 'x' };
    await stores.facts.upsert('acme', { user: 'u1', topic: null, key: 'k', value, source: 'ai_inferred', at: NOW });
    expect(stores.db.prepare('SELECT value, priority FROM facts').get()).toEqual({
      value: canonicalJson(value),
      priority: factPriority('ai_inferred'),
    });
    // An empty topic is a topic, not the global scope.
    await stores.facts.upsert('acme', { user: 'u1', topic: '', key: 'k', value: 1, source: 'other', at: NOW });
    expect((await stores.facts.find('acme', 'u1', 'k', null))?.value).toEqual(value);
    expect((await stores.facts.find('acme', 'u1', 'k', ''))?.value).toBe(1);
  });

  it('ensure with the same candidate twice returns the stored user, not a conflict', async () => {
    const stores = track(createSqliteStructuredStores({ path: join(dir, 'users.db') }));
    const first = await stores.users.ensure('acme', 'ext', { id: 'u1', at: NOW });
    expect(await stores.users.ensure('acme', 'ext', { id: 'u1', at: NOW })).toEqual({ ...first, created: false });
  });

  // Query syntax in the terms as plain words: the episode and procedure conformance suites (tooling/testkit).
  it('stems with porter and keeps the index in sync on delete', async () => {
    const stores = track(createSqliteStructuredStores({ path: join(dir, 'fts.db') }));
    await stores.episodes.insert('acme', episode('e1', 'NEAR the deploy: run (all) tests - quickly* "now"'), null);
    await stores.episodes.insert('acme', episode('e2', 'deploying on fridays', { tags: ['release'] }), null);
    // Porter stemming: "deploys" meets "deploy" and "deploying".
    expect((await stores.episodes.keywordSearch('acme', ['deploys'], 5)).map((h) => h.id).sort()).toEqual(['e1', 'e2']);
    expect(await stores.episodes.delete('acme', 'e2')).toBe(true);
    expect((await stores.episodes.keywordSearch('acme', ['fridays'], 5)).map((h) => h.id)).toEqual([]);
    expect(stores.db.prepare('SELECT count(*) AS n FROM episode_tags').get()).toEqual({ n: 0 });
    stores.db.prepare("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 1)").run();
    stores.db.prepare("INSERT INTO procedures_fts (procedures_fts, rank) VALUES ('integrity-check', 1)").run();
  });

  it('the JavaScript vector fallback returns what sqlite-vec returns', async () => {
    const path = join(dir, 'vec.db');
    const native = track(createSqliteStructuredStores({ path }));
    const fallback = track(createSqliteStructuredStores({ path, vectorExtension: false }));
    expect(native.nativeVector).toBe(true);
    expect(fallback.nativeVector).toBe(false);
    const embedder = createHashingEmbedder({ dimension: 32 });
    const texts = ['deploy the api', 'back up postgres', 'rotate certificates', 'deploy the web app', 'order lunch'];
    const vectors = await embedder.embed(texts);
    for (const [i, text] of texts.entries()) {
      const embedding = { vector: vectors[i]!, model: embedder.id };
      await native.episodes.insert('acme', episode(`e${i}`, text), embedding);
      await native.procedures.insert('acme', procedure(`p${i}`, text), embedding);
    }
    await native.episodes.insert('acme', episode('zero', 'zero'), { vector: new Float32Array(32), model: embedder.id });
    await native.episodes.insert('acme', episode('short', 'short'), {
      vector: new Float32Array(8).fill(1),
      model: embedder.id,
    });
    const [q] = await embedder.embed(['deploy api']);
    for (const port of ['episodes', 'procedures'] as const) {
      const a = await native[port].vectorSearch('acme', q!, embedder.id, 10);
      const b = await fallback[port].vectorSearch('acme', q!, embedder.id, 10);
      expect(b.map((h) => h.id)).toEqual(a.map((h) => h.id));
      for (const [i, hit] of b.entries()) expect(hit.similarity).toBeCloseTo(a[i]?.similarity ?? Number.NaN, 5);
    }
    const hits = await native.episodes.vectorSearch('acme', q!, embedder.id, 10);
    expect(hits.find((h) => h.id === 'zero')?.similarity).toBe(0);
    expect(hits.some((h) => h.id === 'short')).toBe(false); // another dimension never mixes in
  });
});

describe('several processes', () => {
  it('lose no outcome, keep one active goal and agree on one user', async () => {
    const path = join(dir, 'procs', 'shared.db');
    const seed = track(createSqliteStructuredStores({ path }));
    await seed.procedures.insert('acme', procedure('p1', 'contested'), null);
    const script = join(dir, 'worker.mts');
    const entry = join(fileURLToPath(new URL('.', import.meta.url)), 'index.ts');
    writeFileSync(
      script,
      `import { createSqliteStructuredStores } from ${JSON.stringify(entry)};
       const start = Number(process.argv[2]);
       const me = process.argv[3];
       const stores = createSqliteStructuredStores({ path: ${JSON.stringify(path)} });
       while (Date.now() < start) {}
       for (let i = 0; i < 25; i++) {
         await stores.procedures.incrementOutcome('acme', 'p1', i % 5 !== 0, '${NOW}');
         await stores.goals.setActive('acme', { id: me + '-' + i, user: 'u1', topic: 'race', goal: 'g', metadata: {}, at: '${NOW}' });
         await stores.users.ensure('acme', 'ext-1', { id: 'cand-' + me, at: '${NOW}' });
       }
       await stores.close();`,
    );
    const start = Date.now() + 2000;
    const runs = Array.from(
      { length: 4 },
      (_, n) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(
            process.execPath,
            ['--conditions=dev-source', '--import', 'tsx', script, String(start), `w${n}`],
            { cwd: fileURLToPath(new URL('..', import.meta.url)) },
          );
          let stderr = '';
          child.stderr.on('data', (d: Buffer) => {
            stderr += d.toString();
          });
          child.on('close', (code) => resolve({ code, stderr }));
        }),
    );
    for (const r of await Promise.all(runs)) expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(await seed.procedures.get('acme', 'p1')).toMatchObject({ successCount: 80, failureCount: 20 });
    const goals = await seed.goals.list('acme', 'u1', { topic: 'race' });
    expect(goals).toHaveLength(100);
    expect(goals.filter((g) => g.status === 'active')).toHaveLength(1);
    expect(seed.db.prepare('SELECT count(*) AS n FROM users').get()).toEqual({ n: 1 });
  });
});
