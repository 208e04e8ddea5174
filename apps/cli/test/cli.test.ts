import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { run } from '../src/main.js';

const exec = promisify(execFile);
const BIN = join(import.meta.dirname, '..', 'bin', 'mem-dev.js');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the CLI in-process against a real SQLite file with the hashing embedder. */
async function mem(args: string[], opts: { stdin?: string; env?: Record<string, string>; db?: string } = {}) {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    readStdin: async () => opts.stdin ?? '',
    env: { MEM_DB: opts.db ?? join(dir, 'main.db'), MEM_EMBEDDER: 'hashing', ...opts.env },
    cwd: dir,
  };
  const code = await run(args, io);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

describe('mem CLI (in process)', () => {
  it('round-trips store → search → get → edit → move → rate → delete', async () => {
    const stored = await mem([
      'store',
      'The nightly build publishes artifacts to the staging bucket.',
      '--name',
      'Nightly artifacts',
      '--tags',
      'ci,build',
      '--json',
    ]);
    expect(stored.code).toBe(0);
    const { id, key } = stored.json();
    expect(key).toBe(`/agent/manual/${id}`);

    const search = await mem(['search', 'nightly build artifacts', '--json']);
    expect(search.code).toBe(0);
    const first = search.json().results[0];
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([
        'id',
        'key',
        'name',
        'content',
        'scope',
        'source',
        'tags',
        'similarity',
        'relevance',
        'score',
        'createdAt',
      ]),
    );
    expect(first).toMatchObject({
      id,
      name: 'Nightly artifacts',
      tags: ['ci', 'build'],
      scope: 'agent',
      source: 'manual',
    });

    const human = await mem(['search', 'nightly build artifacts']);
    expect(human.stdout).toContain('1. Nightly artifacts');

    const got = await mem(['get', id, '--json']);
    expect(got.json()).toMatchObject({
      id,
      content: 'The nightly build publishes artifacts to the staging bucket.',
      accessCount: 1,
    });

    const edited = await mem([
      'edit',
      id,
      '--intent',
      'bucket renamed',
      '--old-text',
      'staging bucket',
      '--new-text',
      'release bucket',
      '--json',
    ]);
    expect(edited.json()).toMatchObject({ id, version: 2, action: 'replaced' });

    const moved = await mem([
      'edit',
      id,
      '--intent',
      'promote',
      '--new-key',
      '/longterm/facts/ci/nightly-artifacts',
      '--json',
    ]);
    expect(moved.json()).toMatchObject({ id, key: '/longterm/facts/ci/nightly-artifacts', action: 'moved' });
    const byKey = await mem(['get', '--key', '/longterm/facts/ci/nightly-artifacts', '--json']);
    expect(byKey.json().content).toContain('release bucket');

    const history = await mem(['history', id, '--json']);
    expect(history.json().versions.map((v: { intent: string }) => v.intent)).toEqual(['bucket renamed', 'promote']);

    const rated = await mem(['rate', id, '--useful', 'true', '--task-id', 'task-9', '--json']);
    expect(rated.json()).toMatchObject({ alpha: 1, beta: 1, counted: false }); // own memory: recorded, not counted
    const again = await mem(['rate', id, '--useful', 'false', '--task-id', 'task-9']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ALREADY_RATED');

    const deleted = await mem(['delete', id, '--json']);
    expect(deleted.json()).toMatchObject({ id, deletedChunks: 1 });
    const gone = await mem(['get', id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('NOT_FOUND');
  });

  it('prints the recall block and flags an exact duplicate', async () => {
    const db = join(dir, 'recall.db');
    await mem(['store', 'Payments API requests must carry an idempotency key.', '--name', 'Idempotency'], { db });
    await mem(['store', 'The office plants are watered on Mondays.'], { db });
    const recall = await mem(['recall', 'Add an idempotency key to payments API requests'], { db });
    expect(recall.code).toBe(0);
    expect(recall.stdout).toContain('### Relevant Past Knowledge');
    expect(recall.stdout).toContain('**Idempotency**');
    expect(recall.stdout).not.toContain('plants');
    const dup = await mem(['dedup-check', 'Payments API requests must carry an idempotency key.', '--json'], { db });
    expect(dup.json()).toMatchObject({ isDuplicate: true });
    expect(dup.json().topSimilarity).toBeGreaterThanOrEqual(0.85);
    const none = await mem(['recall', 'quantum chromodynamics lattice'], { db });
    expect(none.stdout).toContain('No relevant past knowledge.');
  });

  it('answers bad input with exit 1 and a code, bad usage with exit 2, and changes nothing', async () => {
    const db = join(dir, 'bad.db');
    await mem(['store', 'Keep me.', '--key', '/notes/keep'], { db });
    const before = (await mem(['export'], { db })).stdout;
    const cases: [string[], number, string][] = [
      [['store', 'x', '--key', 'no-slash'], 1, 'INVALID_KEY'],
      [['store', 'x', '--key', '/longterm/rumours/x'], 1, 'INVALID_KEY'],
      [['store', 'x', '--key', '/longterm/entities/pets/rex', '--role', 'lead'], 1, 'INVALID_KEY'],
      [['store', 'x', '--key', '/longterm/company-story'], 1, 'FORBIDDEN_KEY'],
      [['store', 'other', '--key', '/notes/keep'], 1, 'KEY_TAKEN'],
      [['store', '   '], 1, 'INVALID_INPUT'],
      [['store', 'our key AKIAIOSFODNN7EXAMPLE'], 1, 'SECRET_DETECTED'],
      [['store', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789'], 1, 'SECRET_DETECTED'],
      [['store', '--', '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'], 1, 'SECRET_DETECTED'],
      [['store', 'db at postgres://app:hunter22@db/prod'], 1, 'SECRET_DETECTED'],
      [['get', 'nope'], 1, 'NOT_FOUND'],
      [['search', 'x', '--limit', '500'], 1, 'INVALID_INPUT'],
      [['search', 'x', '--limit', 'ten'], 2, 'whole number'],
      [['store', 'x', '--bogus'], 2, 'Unknown option'],
      [['frobnicate'], 2, 'unknown command'],
      [['rate', 'x', '--useful', 'maybe', '--task-id', 't'], 2, 'true or false'],
      [['edit', 'x', '--content', 'y'], 2, '--intent'],
      [['store', 'x', '--role', 'boss'], 2, '--role'],
    ];
    for (const [args, code, text] of cases) {
      const r = await mem(args, { db });
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr, args.join(' ')).toContain(text);
      expect(r.stdout).toBe('');
    }
    const secret = await mem(['store', 'db at postgres://app:hunter22@db/prod'], { db });
    expect(secret.stderr).not.toContain('hunter22');
    expect((await mem(['export'], { db })).stdout).toBe(before);
  });

  it('exports and imports JSON Lines with timestamps kept; a bad line is reported and skipped', async () => {
    const src = join(dir, 'src.db');
    await mem(['store', 'First memory.', '--tags', 'a'], { db: src });
    await mem(['store', 'Second memory.', '--scope', 'swarm'], { db: src });
    const exported = (await mem(['export'], { db: src })).stdout.trim().split('\n');
    expect(exported).toHaveLength(2);
    const lines = [
      exported[0],
      '{not json',
      JSON.stringify({ content: 'From the past.', createdAt: '2024-05-06T07:08:09.000Z', source: 'manual' }),
      JSON.stringify({ content: 'bad key', key: 'Nope' }),
      exported[1],
    ];
    const file = join(dir, 'in.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const dst = join(dir, 'dst.db');
    const r = await mem(['import', file, '--json'], { db: dst });
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({ imported: 3, skipped: 2 });
    expect(r.stderr).toContain('line 2: INVALID_INPUT');
    expect(r.stderr).toContain('line 4: INVALID_KEY');
    const out = (await mem(['export'], { db: dst })).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.content)).toEqual(['From the past.', 'First memory.', 'Second memory.']);
    expect(out[0].createdAt).toBe('2024-05-06T07:08:09.000Z');
    const orig = exported.map((l) => JSON.parse(l!));
    expect(out[1].createdAt).toBe(orig[0].createdAt);
    expect(out[2].scope).toBe('swarm');
  });

  it('keeps memories in process with --store in-memory and names the store choices when one is wrong', async () => {
    const stored = await mem(['store', 'Kept in process only.', '--json', '--store', 'in-memory']);
    expect(stored.code).toBe(0);
    expect(stored.json().id).toEqual(expect.any(String));
    const wrong = await mem(['search', 'x', '--store', 'memory']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('sqlite, postgres, lancedb, in-memory');
  });

  it('gc removes expired memories; reindex switches embedders', async () => {
    const db = join(dir, 'gc.db');
    await mem(['store', 'A short-lived summary.', '--source', 'session_summary', '--json'], { db });
    expect((await mem(['gc', '--json'], { db })).json()).toMatchObject({ deletedChunks: 0 });
    const mismatch = await mem(['search', 'summary'], { db, env: { MEM_HASHING_DIMENSION: '128' } });
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain('EMBEDDING_MISMATCH');
    expect(mismatch.stderr).toContain('mem reindex');
    const re = await mem(['reindex', '--json'], { db, env: { MEM_HASHING_DIMENSION: '128' } });
    expect(re.json()).toMatchObject({ chunks: 1, dimension: 128 });
    expect(
      (await mem(['search', 'summary', '--json'], { db, env: { MEM_HASHING_DIMENSION: '128' } })).json().results,
    ).toHaveLength(1);
  });

  it('indexes files by path and refuses a database file that is not SQLite', async () => {
    const doc = join(dir, 'RUNBOOK.md');
    writeFileSync(doc, '# Runbook\n\nRestart the queue worker with the deploy tool.\n');
    const r = await mem(['index', doc, '--json']);
    expect(r.json().results[0]).toMatchObject({ status: 'created', chunkCount: 1 });
    expect((await mem(['index', doc, '--json'])).json().results[0].status).toBe('unchanged');
    const notDb = join(dir, 'notes.txt');
    writeFileSync(notDb, 'just some text, not a database at all '.repeat(200));
    const bad = await mem(['search', 'x'], { db: notDb });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('STORE_CORRUPT');
    expect(readFileSync(notDb, 'utf8')).toContain('just some text');
  });
});

describe('mem CLI (real process, default stack)', () => {
  it('keeps stdout to one JSON document and uses the local embedder by default', async () => {
    const db = join(dir, 'proc.db');
    const env: NodeJS.ProcessEnv = { ...process.env, MEM_DB: db };
    delete env.MEM_EMBEDDER;
    const stored = await exec(
      process.execPath,
      [BIN, 'store', 'The on-call rotation changes every Monday at 09:00.', '--json'],
      { env },
    );
    const { id } = JSON.parse(stored.stdout);
    const found = await exec(process.execPath, [BIN, 'search', 'when does the on-call rotation change', '--json'], {
      env,
    });
    const results = JSON.parse(found.stdout).results;
    expect(results[0].id).toBe(id);
    expect(results[0].similarity).toBeGreaterThan(0.3);
    const got = JSON.parse((await exec(process.execPath, [BIN, 'get', id, '--json'], { env })).stdout);
    expect(got.embeddingModel).toBe('use-lite-512');
    const failed = await exec(process.execPath, [BIN, 'get', 'missing-id'], { env }).catch((e) => e);
    expect(failed.code).toBe(1);
    const usage = await exec(process.execPath, [BIN, 'search'], { env }).catch((e) => e);
    expect(usage.code).toBe(2);
  }, 120_000);
});
