import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type BenchReport, machine, renderSvg, writeReport } from '../src/report.js';
import { writeReportPage } from '../src/report-page.js';
import { scaleCurve, scaleReport } from '../src/scale-report.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mem-bench-scale-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const row = (store: string, n: number, p50: number, e2e: number) => ({
  store,
  n,
  ingest_per_s: 1000,
  search_ms: { p50, p95: p50 * 2, p99: p50 * 3 },
  e2e_ms: { p50: e2e, p95: e2e * 2, p99: e2e * 3 },
  recall10_vs_exact: 1,
  disk_bytes: 5e6,
  peak_rss_bytes: 3e8,
});

/** A fabricated scale run: two stores over three sizes, a third store that died at the largest. */
const RUNS = [
  row('sqlite', 10_000, 1, 10),
  row('sqlite', 100_000, 10, 100),
  row('sqlite', 1_000_000, 100, 1000),
  row('lancedb', 10_000, 10, 20),
  row('lancedb', 100_000, 100, 200),
  { store: 'lancedb', n: 1_000_000, error: 'died: killed (SIGKILL, most likely out of memory) during ingest' },
];

/** The points of each polyline of an SVG, by its series label. */
function polylines(svg: string): Map<string, { x: number; y: number }[]> {
  const lines = new Map<string, { x: number; y: number }[]>();
  for (const m of svg.matchAll(/<polyline class="series" data-label="([^"]+)"[^>]* points="([^"]+)"/g)) {
    lines.set(
      m[1]!,
      m[2]!.split(' ').map((p) => {
        const [x, y] = p.split(',').map(Number);
        return { x: x!, y: y! };
      }),
    );
  }
  return lines;
}

describe('the scale curve', () => {
  it('draws engine and e2e p50 per store against n on log axes; a failed run is no point, but a table row', () => {
    const chart = scaleCurve(RUNS);
    expect(chart.kind).toBe('lines');
    expect(chart.series.map((s) => [s.label, s.dashed ?? false, s.points.length])).toEqual([
      ['sqlite engine', false, 3],
      ['sqlite e2e', true, 3],
      ['lancedb engine', false, 2],
      ['lancedb e2e', true, 2],
    ]);
    const svg = renderSvg(chart);
    const lines = polylines(svg);
    expect([...lines.keys()]).toEqual(['sqlite engine', 'sqlite e2e', 'lancedb engine', 'lancedb e2e']);
    const sqlite = lines.get('sqlite engine')!;
    // Log x: 10k → 100k → 1M are equal steps; log y: ×10 in latency is the same rise each step.
    expect(sqlite[1]!.x - sqlite[0]!.x).toBeCloseTo(sqlite[2]!.x - sqlite[1]!.x, 0);
    expect(sqlite[0]!.y - sqlite[1]!.y).toBeCloseTo(sqlite[1]!.y - sqlite[2]!.y, 0);
    expect(sqlite[2]!.y).toBeLessThan(sqlite[0]!.y);
    // lancedb's engine p50 equals sqlite's one size later: same height, one step to the left.
    const lance = lines.get('lancedb engine')!;
    expect(lance[0]!.y).toBeCloseTo(sqlite[1]!.y, 5);
    expect(lance[0]!.x).toBeCloseTo(sqlite[0]!.x, 5);
    expect(svg).toMatch(/data-label="sqlite e2e" fill="none" stroke="[^"]+" stroke-width="2" stroke-dasharray/);
    expect(svg).toContain('>1M</text>');
    expect(svg).toContain('>10k</text>');

    const report = scaleReport(RUNS, true);
    expect(report.table.rows).toHaveLength(6);
    const dead = report.table.rows[5]!;
    expect(dead.slice(0, 2)).toEqual(['lancedb', 1_000_000]);
    expect(dead[dead.length - 1]).toContain('out of memory');
    const e2eAt = report.table.columns.indexOf('e2e p50 ms');
    expect(report.table.rows[0]!.slice(e2eAt, e2eAt + 3)).toEqual([10, 20, 30]);
    // Rows without a warm-up pass (peers, older reports) leave the cold column empty.
    expect(report.table.rows[0]![report.table.columns.indexOf('cold p50 ms')]).toBeNull();
  });

  it('`mem bench report` renders a line-chart report next to an old bar-chart one', () => {
    const dir = tempDir();
    const curve: BenchReport = { ...scaleReport(RUNS, true), at: '2026-01-02T00:00:00.000Z', machine: machine() };
    writeReport(curve, dir);
    const old: BenchReport = {
      bench: 'server',
      title: 'server title',
      at: '2026-01-01T00:00:00.000Z',
      machine: machine(),
      table: { columns: ['run', 'req/s'], rows: [[1, 68]] },
      chart: { title: 'requests', unit: 'req/s', bars: [{ label: 'run 1', value: 68 }] },
      data: {},
    };
    writeReport(old, dir);
    const svgFile = readdirSync(dir).find((f) => f.startsWith('scale-') && f.endsWith('.svg'))!;
    expect(polylines(readFileSync(join(dir, svgFile), 'utf8')).size).toBe(4);
    const { files } = writeReportPage(dir);
    const html = readFileSync(files[1]!, 'utf8');
    expect(polylines(html).size).toBe(4);
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain('width="420"');
    expect(readFileSync(files[0]!, 'utf8')).toContain(`](${svgFile})`);
  });

  it('an empty curve says so instead of drawing nothing', () => {
    expect(renderSvg(scaleCurve([{ store: 'x', n: 1, error: 'boom' }]))).toContain('no finished runs');
  });
});

describe('the scale bench, each run in its own process', () => {
  const script = fileURLToPath(new URL('../src/scale.ts', import.meta.url));
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const run = (args: string[], env: Record<string, string> = {}) => {
    const { MEM_BENCH_POSTGRES_URL: _, ...rest } = process.env;
    return spawnSync(process.execPath, ['--conditions=dev-source', '--import', tsx, script, ...args], {
      encoding: 'utf8',
      env: { ...rest, ...env },
    });
  };

  it('runs the curve plan at tiny sizes: full stores at each size, the others one size short, a skip is a row', () => {
    const out = tempDir();
    const args = ['--curve', '--n', '200,400', '--store', 'sqlite,langgraph,postgres', '--queries', '10'];
    const r = run([...args, '--json', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(out).filter((f) => f.endsWith('.svg'))).toHaveLength(1);
    const rows = (JSON.parse(r.stdout) as { runs: Record<string, any>[] }).runs;
    expect(rows.map((x) => `${x.store}@${x.n}`)).toEqual(['sqlite@200', 'postgres@200', 'langgraph@200', 'sqlite@400']);
    for (const x of rows.filter((y) => y.store !== 'postgres')) {
      expect(x.error).toBeUndefined();
      expect(x.search_ms.p99).toBeGreaterThan(0);
      expect(x.e2e_ms.p99).toBeGreaterThanOrEqual(x.e2e_ms.p50);
      // mem's stores serve a warm-up pass first (its times are the cold figures); peers have none.
      if (x.store === 'sqlite') expect(x.search_cold_ms.p50).toBeGreaterThan(0);
      else expect(x.search_cold_ms).toBeUndefined();
      expect(x.recall10_vs_exact).toBeGreaterThan(0.5);
      // Each run's own process: its peak RSS, not the sum of the runs before it.
      expect(x.peak_rss_bytes).toBeGreaterThan(20e6);
    }
    expect(rows[1]!.error).toContain('MEM_BENCH_POSTGRES_URL');
  }, 180_000);

  it('a run over its budget becomes a row saying so, and the bench goes on', () => {
    const out = tempDir();
    const r = run(['--n', '300', '--store', 'sqlite', '--queries', '5', '--out', out], {
      MEM_BENCH_RUN_BUDGET_S: '0.05',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('stopped: over its budget of 0.05 s');
    const json = readdirSync(out).find((f) => f.endsWith('.json'))!;
    const report = JSON.parse(readFileSync(join(out, json), 'utf8')) as BenchReport;
    expect(report.table.rows[0]![report.table.columns.indexOf('error')]).toContain('over its budget');
  }, 60_000);
});
