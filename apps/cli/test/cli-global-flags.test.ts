import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { moveLeadingGlobalFlags } from '../src/main.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mem = (args: string[]) => runCli(args, dir, { MEM_EMBEDDER: 'hashing' });

describe('global flags before or after the command, like git', () => {
  it('moves leading global flags behind the command (and behind a group sub-command)', () => {
    expect(moveLeadingGlobalFlags(['--db', 'x.db', '--json', 'search', 'q'])).toEqual([
      'search',
      'q',
      '--db',
      'x.db',
      '--json',
    ]);
    expect(moveLeadingGlobalFlags(['--db=x.db', 'facts', 'get', '--user', 'u'])).toEqual([
      'facts',
      'get',
      '--user',
      'u',
      '--db=x.db',
    ]);
    expect(moveLeadingGlobalFlags(['search', 'q', '--db', 'x.db'])).toEqual(['search', 'q', '--db', 'x.db']);
    expect(moveLeadingGlobalFlags(['--help'])).toEqual(['--help']);
  });

  it('stores with the flags in front and finds it with the flags behind, in the same file', async () => {
    const db = join(dir, 'flags.db');
    const stored = await mem([
      '--db',
      db,
      '--space',
      'acme',
      '--json',
      'store',
      'Release notes go out every second Friday.',
    ]);
    expect(stored.code, stored.stderr).toBe(0);
    const found = await mem(['search', 'when do release notes go out', '--db', db, '--space', 'acme', '--json']);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout).results[0].content).toBe('Release notes go out every second Friday.');
    const otherSpace = await mem(['--db', db, '--space', 'other', '--json', 'search', 'release notes']);
    expect(JSON.parse(otherSpace.stdout).results).toEqual([]);
  });

  it('refuses a flag before the command that is not global, naming the global flags (exit 2)', async () => {
    const r = await mem(['--limit', '3', 'search', 'q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"--limit" is not a global flag');
    expect(r.stderr).toContain('--db');
    const missing = await mem(['--db']);
    expect(missing.code).toBe(2);
  });
});
