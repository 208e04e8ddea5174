/**
 * `mem bench` finds its scripts through the declared @mem/bench package (not a path into another app's folder) and
 * runs them in a child process: an unknown or missing benchmark is a usage error, and `mem bench report` renders a
 * results folder into one page through the resolved script.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-cli-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mem = (args: string[]) => runCli(args, dir, { MEM_DB: join(dir, 'unused.db'), MEM_EMBEDDER: 'hashing' });

describe('mem bench', () => {
  it('refuses a missing or unknown benchmark and names the ones there are', async () => {
    for (const args of [['bench'], ['bench', 'nope']]) {
      const r = await mem(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'give a benchmark: retrieval, scale, convo, server, crash, cold-start, runner, attack',
      );
    }
  });

  it('runs the report script of @mem/bench on a results folder', async () => {
    const results = join(dir, 'results');
    const report = {
      bench: 'scale',
      title: 'Scale (test)',
      at: '2026-01-02T03:04:05.000Z',
      machine: { cpus: 2, cpu_model: 'test', memory_gib: 4, node: 'v22', platform: 'linux-x64', load_avg: 0 },
      table: { columns: ['store', 'p50 ms'], rows: [['sqlite', 1.5]] },
      data: {},
    };
    rmSync(results, { recursive: true, force: true });
    mkdirSync(results);
    writeFileSync(join(results, 'scale-20260102-030405.json'), JSON.stringify(report));
    const r = await mem(['bench', 'report', '--dir', results]);
    expect(r.code).toBe(0);
    expect(existsSync(join(results, 'report.md'))).toBe(true);
    expect(readFileSync(join(results, 'report.md'), 'utf8')).toContain('Scale (test)');
  });
});
