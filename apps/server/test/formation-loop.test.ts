/**
 * The flight example end to end, offline, through the AI SDK adapter (and a LangGraph graph) over two processes on one SQLite file (the
 * stack `mem` opens from the same settings): the second process's recall block holds the afternoon as current and
 * not the morning; `mem search --as-of` before the change answers the morning; `mem why` names both turns.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { distillMessageId } from '@mem/core/adapter';
import { afterAll, describe, expect, it } from 'vitest';
import { openStack } from '../src/compose.js';
import { readSettings } from '../src/settings.js';
import { memProcess } from './helpers.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mem-formation-loop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = {
  ...process.env,
  MEM_EMBEDDER: 'hashing',
  MEM_DB: join(dir, 'mem.db'),
  MEM_WORKSPACE_DIR: join(dir, 'ws'),
};
const tsx = createRequire(import.meta.url).resolve('tsx');
const run = (fixture: string, step: string, on = env) =>
  exec(
    process.execPath,
    ['--conditions=dev-source', '--import', tsx, join(import.meta.dirname, 'fixtures', fixture), step],
    { env: on, cwd: dir },
  );
const agent = (step: string) => run('flight-agent.ts', step);
const mem = async (...args: string[]) => {
  const p = memProcess([...args, '--user', 'ben', '--json']);
  return JSON.parse((await exec(p.command, p.args, { env, cwd: dir })).stdout);
};

describe('memory that forms itself, inside the loop', () => {
  it('the next process recalls the afternoon as current; as of before the change, the morning; why names both turns', async () => {
    await agent('first');
    const second = JSON.parse((await agent('second')).stdout) as { recall: string };
    expect(second.recall).toContain('afternoon flights');
    expect(second.recall).not.toContain('morning flights');

    const now = await mem('search', 'flights');
    expect(now.results.map((r: { content: string }) => r.content)).toEqual(['User prefers afternoon flights.']);
    const then = await mem('search', 'flights', '--as-of', '2026-05-05');
    expect(then.results.map((r: { content: string }) => r.content)).toEqual(['User prefers morning flights.']);

    const stats = await mem('stats');
    expect(stats.formation).toMatchObject({
      memories: { open: 1, closed: 1 },
      decisions: { add: 1, update: 1, invalidate: 0 },
      runners: { runs: 0 },
    });

    const why = await mem('why', now.results[0].id);
    const stack = await openStack(readSettings(env));
    try {
      const transcript = await stack.conversations!.store.read('default', 'travel');
      const turns = transcript!.messages.filter((m) => m.role === 'user').map((m) => distillMessageId('travel', m));
      expect(turns).toHaveLength(2);
      expect(why.evidence).toEqual(turns);
    } finally {
      await stack.close();
    }
  });

  it('the same through a LangGraph graph with the memory node: the next process recalls the afternoon, not the morning', async () => {
    const graphEnv = { ...env, MEM_DB: join(dir, 'graph.db'), MEM_WORKSPACE_DIR: join(dir, 'graph-ws') };
    await run('flight-graph.ts', 'first', graphEnv);
    const second = JSON.parse((await run('flight-graph.ts', 'second', graphEnv)).stdout) as { recall: string };
    expect(second.recall).toContain('afternoon flights');
    expect(second.recall).not.toContain('morning flights');
    const p = memProcess(['search', 'flights', '--user', 'ben', '--history', '--json']);
    const history = JSON.parse((await exec(p.command, p.args, { env: graphEnv, cwd: dir })).stdout);
    expect(history.results.map((r: { content: string }) => r.content).sort()).toEqual([
      'User prefers afternoon flights.',
      'User prefers morning flights.',
    ]);
  });
});
