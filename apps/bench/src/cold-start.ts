/**
 * Cold start of the `mem` command: a new process per run, timed from spawn to exit, the median over many runs.
 * Compares the built command (dist/bin.js — what `npm install @mem/cli` runs) with the repository's source launcher
 * (bin/mem-dev.js, TypeScript through tsx) side by side in one run. Builds the CLI and its packages first (turbo).
 * Usage: pnpm mem bench cold-start [--runs 30] [--json] [--out bench-results] (through the mem command, which says where
 * it is: src/mem-command.ts)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { memCliDir, memDevBin } from './mem-command.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 3) {
  process.stderr.write(`--runs must be a whole number of at least 3 (got "${values.runs}").\n`);
  process.exit(2);
}

const cliDir = memCliDir();
const built = join(cliDir, 'dist', 'bin.js');
// The built command runs the built packages it depends on: build them all (turbo skips what is up to date).
execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@mem/cli...', '--concurrency=2'], {
  cwd: fileURLToPath(new URL('../../../', import.meta.url)),
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
});
if (!existsSync(built)) throw new Error(`building the CLI left no ${built}`);

const variants = [
  { name: 'mem (built, dist/bin.js)', args: [built] },
  { name: 'mem-dev (source through tsx)', args: [memDevBin()] },
];
const commands = [['--help'], ['search', '--help']];

interface Row {
  variant: string;
  command: string;
  p50_ms: number;
  p95_ms: number;
  min_ms: number;
}
const rows: Row[] = [];
for (const command of commands) {
  const times = new Map(variants.map((v) => [v.name, [] as number[]]));
  // Interleaved, so that a noisy moment of the machine hits both variants alike.
  for (let i = 0; i < runs; i++) {
    for (const v of variants) {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [...v.args, ...command], { stdio: 'ignore' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`${v.name} ${command.join(' ')} exited with ${r.status}`);
      times.get(v.name)!.push(ms);
    }
  }
  for (const v of variants) {
    const t = times.get(v.name)!;
    rows.push({
      variant: v.name,
      command: `mem ${command.join(' ')}`,
      p50_ms: round(percentile(t, 50), 1),
      p95_ms: round(percentile(t, 95), 1),
      min_ms: round(Math.min(...t), 1),
    });
  }
}

saveReport(
  {
    bench: 'cold-start',
    title: 'CLI cold start',
    table: {
      columns: ['variant', 'command', 'p50 ms', 'p95 ms', 'min ms'],
      rows: rows.map((r) => [r.variant, r.command, r.p50_ms, r.p95_ms, r.min_ms]),
    },
    chart: {
      title: 'mem cold start, median',
      unit: 'ms',
      note: 'lower is better; a new Node process per run, spawn to exit',
      bars: rows.map((r) => ({ label: `${r.variant} ${r.command}`, value: r.p50_ms })),
    },
    notes: [`${runs} runs per variant and command, interleaved; ${process.version}.`],
    data: { runs, rows },
  },
  values.out,
);
if (values.json) console.log(JSON.stringify({ runs, rows }));
else
  for (const r of rows)
    console.log(`${r.variant} · ${r.command}: p50 ${r.p50_ms} ms, p95 ${r.p95_ms} ms, min ${r.min_ms} ms`);
