// Issue 9 §7 at CI size: `mem bench server` (the load bench) against a real server process, mixed store / search /
// get from several connections, in consecutive runs against one process: no error, every acknowledged write read
// back with its content, the server's RSS sampled. The 60 s × 32 connections × 3 runs version is `mem bench server`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ServerBenchResult } from '../src/server.js';

describe('the server under load (mem bench server, CI size)', () => {
  it('answers every request of two runs with no error and reads back every acknowledged write', () => {
    const out = mkdtempSync(join(tmpdir(), 'mem-load-'));
    try {
      const script = fileURLToPath(new URL('../src/server.ts', import.meta.url));
      const tsx = createRequire(import.meta.url).resolve('tsx');
      const run = spawnSync(
        process.execPath,
        [
          '--conditions=dev-source',
          '--import',
          tsx,
          script,
          ...['--duration', '3', '--connections', '8', '--runs', '2', '--seed', '40', '--json', '--out', out],
        ],
        { encoding: 'utf8', timeout: 120_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as ServerBenchResult;
      expect(result.runs).toHaveLength(2);
      for (const r of result.runs) {
        expect(r.errors.total).toBe(0);
        expect(r.getMismatches).toBe(0);
        expect(r.byOperation.store).toBeGreaterThan(0);
        expect(r.byOperation.search).toBeGreaterThan(0);
        expect(r.byOperation.get).toBeGreaterThan(0);
        expect(r.readBack.verified).toBe(r.readBack.acknowledged);
        expect(r.rss.samples).toBeGreaterThan(0);
        expect(r.rss.peakMiB).toBeGreaterThan(0);
      }
      expect(result.readBack.acknowledged).toBeGreaterThan(0);
      expect(result.readBack.verified).toBe(result.readBack.acknowledged);
      expect(result.ok).toBe(true);
      // The report of apps/bench's format: JSON, Markdown and the chart.
      expect(
        readdirSync(out)
          .map((f) => f.split('.').pop())
          .sort(),
      ).toEqual(['json', 'md', 'svg']);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
