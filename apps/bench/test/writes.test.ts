/**
 * `mem bench writes` at tiny sizes, through the mem command as a user runs it: a real `mem serve` per store on
 * 127.0.0.1, every acknowledged write found in the export, the ratio to SQLite computed, the report written. A smoke
 * test of the command, not a timed benchmark: nothing here bounds a speed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const MEM = fileURLToPath(new URL('../../cli/bin/mem-dev.js', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'mem-bench-writes-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const env = { ...process.env, MEM_BENCH_POSTGRES_URL: '' };
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [MEM, 'bench', 'writes', ...args], { env, maxBuffer: 16 * 1024 * 1024 });

describe('mem bench writes', () => {
  it('runs every store side by side at tiny sizes, finds every acknowledged write and writes its report', async () => {
    const { stdout, stderr } = await run(['--writes', '12', '--rounds', '1', '--clients', '3', '--out', out, '--json']);
    const result = JSON.parse(stdout);
    expect(result.runs.map((r: { store: string }) => r.store)).toEqual(['sqlite', 'lancedb']);
    for (const r of result.runs) {
      expect(r).toMatchObject({ round: 1, sent: 12, acknowledged: 12, errors: 0, foundOnce: 12, ok: true });
      expect(r.perSecond).toBeGreaterThan(0);
      expect(r.latencyMs.p99).toBeGreaterThanOrEqual(r.latencyMs.p50);
    }
    const [sqlite, lancedb] = result.runs;
    expect(result.ratios.lancedb.rounds).toEqual([Math.round((lancedb.perSecond / sqlite.perSecond) * 100) / 100]);
    expect(result.ratios.postgres).toBeUndefined();
    expect(result.ok).toBe(true);
    // Without a PostgreSQL URL, postgres is skipped and says how to run it.
    expect(stderr).toContain('postgres: skipped (set MEM_BENCH_POSTGRES_URL');

    const md = readdirSync(out).find((f) => f.startsWith('writes-') && f.endsWith('.md'));
    expect(md).toBeDefined();
    const text = readFileSync(join(out, md!), 'utf8');
    expect(text).toContain('Concurrent single writes through mem serve');
    expect(text).toContain('LanceDB / SQLite writes/s');
    expect(readdirSync(out).some((f) => f.startsWith('writes-') && f.endsWith('.svg'))).toBe(true);
  }, 180_000);

  it('refuses bad flags with INVALID_INPUT and exit code 2', async () => {
    for (const [args, message] of [
      [['--writes', '0'], '--writes must be a whole number of at least 1'],
      [['--stores', 'lancedb'], '--stores must include sqlite'],
      [['--stores', 'sqlite,mongo'], '--stores: unknown store "mongo"'],
    ] as const) {
      const failed = await run([...args, '--out', out]).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stderr).toContain(`INVALID_INPUT: ${message}`);
    }
  }, 60_000);
});
