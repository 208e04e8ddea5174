/**
 * `mem bench attack` at tiny sizes, through the mem command as a user runs it: every scenario runs with the
 * protection on and off, the report files are written, and the figures say what the protections do. A smoke test of
 * the command, not a timed benchmark: the bounds below are the behaviour (closed or not, refused or not), not speed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const MEM = fileURLToPath(new URL('../../cli/bin/mem-dev.js', import.meta.url));
/** The script `mem bench attack` runs, for the refusals (without the mem command's own start-up). */
const SCRIPT = fileURLToPath(new URL('../src/attack.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');
const out = mkdtempSync(join(tmpdir(), 'mem-bench-attack-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const env = { ...process.env, MEM_BENCH_POSTGRES_URL: '' };
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [MEM, 'bench', 'attack', ...args], { env, maxBuffer: 16 * 1024 * 1024 });
const script = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--conditions=dev-source', '--import', TSX, SCRIPT, ...args], { env });

describe('mem bench attack', () => {
  it('runs every scenario on and off at tiny sizes and writes its report', async () => {
    const { stdout, stderr } = await run([
      '--duration',
      '1',
      '--flood-connections',
      '4',
      '--slow',
      '3',
      '--idle',
      '4',
      '--window',
      '2',
      '--headers-timeout',
      '300',
      '--large',
      '20',
      '--small',
      '3',
      '--interval',
      '10',
      '--embed-ms',
      '1',
      '--out',
      out,
      '--json',
    ]);
    const result = JSON.parse(stdout);
    expect(result.flood.map((r: { variant: string }) => r.variant)).toEqual(['limiter on', 'limiter off']);
    for (const r of result.flood) {
      expect(r.good.n).toBeGreaterThan(0);
      expect(r.good.failed).toBe(0);
      expect(r.firstUse.n + r.firstUse.failed).toBeGreaterThan(0);
      expect(r.firstUse.failed).toBe(0);
      expect(r.flood.statuses['401']).toBeGreaterThan(0);
    }
    const [on, off] = result.slow;
    // With the timeouts, every slow-loris socket got a 408 and every idle one was closed; without, none was.
    expect([on.loris.answered408, on.loris.openAtEnd, on.idle.openAtEnd]).toEqual([3, 0, 0]);
    expect([off.loris.n, off.loris.openAtEnd, off.idle.openAtEnd]).toEqual([0, 3, 4]);
    for (const r of result.slow) expect(r.probe.failed).toBe(0);
    expect(result.fairness.map((r: { variant: string }) => r.variant)).toEqual(['fair queue', 'no fair queue']);
    for (const r of result.fairness) {
      expect([r.small.n, r.small.failed]).toEqual([3, 0]);
      expect(r.large.chunks).toBeGreaterThan(10);
    }
    // Without a PostgreSQL URL the replica run is skipped, and says how to run it.
    expect(result.replicas.skipped).toContain('MEM_BENCH_POSTGRES_URL');
    expect(stderr).toContain('replicas: skipped');

    const md = readdirSync(out).find((f) => f.startsWith('attack-') && f.endsWith('.md'));
    expect(md).toBeDefined();
    const text = readFileSync(join(out, md!), 'utf8');
    for (const row of ['| flood | limiter on |', '| slow clients | timeouts off |', '| fairness | fair queue |'])
      expect(text).toContain(row);
  }, 60_000);

  it('refuses an unknown scenario or a bad size with a clear message, before any run', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'mem-bench-attack-bad-'));
    const refused = (args: string[]) =>
      script([...args, '--out', empty]).then(
        () => null,
        (e: { code?: number; stderr?: string }) => e,
      );
    const [bad, size, unknown] = await Promise.all([
      refused(['--scenarios', 'flood,nope']),
      refused(['--slow', 'many']),
      refused(['--flod', '3']),
    ]);
    expect(bad?.code).toBe(2);
    expect(bad?.stderr).toContain('unknown scenario "nope"');
    expect(size?.code).toBe(2);
    expect(size?.stderr).toContain('--slow must be a whole number of at least 0 (got "many")');
    expect(unknown?.code).toBe(2);
    expect(unknown?.stderr).toContain("Unknown option '--flod'");
    expect(unknown?.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(empty)).toEqual([]);
    rmSync(empty, { recursive: true, force: true });
  }, 30_000);
});
