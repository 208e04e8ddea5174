import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-cli-stores-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mem = (args: string[], env: Record<string, string>) =>
  runCli(args, dir, { MEM_EMBEDDER: 'hashing', MEM_WORKSPACE_DIR: join(dir, 'ws'), ...env });

const pgUrl = process.env.MEM_TEST_POSTGRES_URL;

describe('mem --store postgres', () => {
  it('says STORE_UNAVAILABLE, without a stack trace or the password, when the server is not there', async () => {
    const r = await mem(['search', 'x'], { MEM_STORE: 'postgres', MEM_DB: 'postgres://mem:s3cret-pw@127.0.0.1:1/mem' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('STORE_UNAVAILABLE');
    expect(r.stderr).not.toContain('s3cret-pw');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect((await mem(['search', 'x'], { MEM_STORE: 'postgres', MEM_DB: join(dir, 'not-a-url') })).code).toBe(2);
  });

  it.skipIf(!pgUrl)(
    'runs knowledge, facts, episodes and conversation commands on PostgreSQL (CI sets MEM_TEST_POSTGRES_URL)',
    async () => {
      const env = {
        MEM_STORE: 'postgres',
        MEM_DB: pgUrl!,
        MEM_SPACE: `cli-${Date.now().toString(36)}`,
        MEM_TRANSCRIPTS: 'store',
      };
      const stored = await mem(['store', 'The release train leaves every Tuesday.', '--json'], env);
      expect(stored.code, stored.stderr).toBe(0);
      const found = (await mem(['search', 'when does the release train leave', '--json'], env)).json().results;
      expect(found[0].id).toBe(stored.json().id);
      expect((await mem(['facts', 'set', 'tz', '"UTC"', '--user', 'ada', '--json'], env)).json().status).toBe(
        'created',
      );
      expect((await mem(['episodes', 'add', 'Shipped the train', '--outcome', 'success', '--json'], env)).code).toBe(0);
      expect((await mem(['convo', 'add', 'hello from postgres', '--role', 'user'], env)).code).toBe(0);
      expect((await mem(['convo', 'show'], env)).stdout).toContain('hello from postgres');
      expect((await mem(['notes', 'write', 'pg note', '--json'], env)).json().status).toBe('created');
    },
  );
});

describe('mem --store lancedb', () => {
  it('runs knowledge and episode commands; relational commands name a store that has them', async () => {
    const env = { MEM_STORE: 'lancedb', MEM_DB: join(dir, 'lance') };
    const stored = await mem(['store', 'LanceDB keeps vectors in columnar files.', '--json'], env);
    expect(stored.code, stored.stderr).toBe(0);
    const found = (await mem(['search', 'columnar vectors', '--json'], env)).json().results;
    expect(found[0].id).toBe(stored.json().id);
    expect((await mem(['episodes', 'add', 'Indexed the docs', '--tags', 'docs', '--json'], env)).code).toBe(0);
    expect((await mem(['episodes', 'by-tag', 'docs', '--json'], env)).json().episodes).toHaveLength(1);
    const facts = await mem(['facts', 'set', 'k', '1', '--user', 'u'], env);
    expect(facts.code).toBe(1);
    expect(facts.stderr).toContain('CAPABILITY_MISSING');
    expect(facts.stderr).toContain('--store sqlite');
    const convo = await mem(['convo', 'add', 'x', '--role', 'user'], { ...env, MEM_TRANSCRIPTS: 'store' });
    expect(convo.stderr).toContain('CAPABILITY_MISSING');
  }, 120_000);
});
