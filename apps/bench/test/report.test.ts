import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type BenchReport, machine, renderSvg, renderText, writeReport } from '../src/report.js';
import { latestReports, writeReportPage } from '../src/report-page.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mem-bench-report-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const report = (bench: string, at: string, p50: number): BenchReport => ({
  bench,
  title: `${bench} title`,
  at,
  machine: machine(),
  table: {
    columns: ['store', 'p50 ms'],
    rows: [
      ['sqlite|a', p50],
      ['memory', null],
    ],
  },
  chart: {
    title: `${bench} <chart>`,
    unit: 'ms',
    bars: [
      { label: 'sqlite', value: p50 },
      { label: 'memory', value: 2 * p50 },
    ],
  },
  notes: ['a note'],
  data: { p50 },
});

describe('bench reports', () => {
  it('writes JSON, Markdown and SVG named after the bench and time; the JSON holds the whole report', () => {
    const dir = tempDir();
    const r = report('scale', '2026-01-02T03:04:05.678Z', 4.5);
    const files = writeReport(r, dir);
    expect(readdirSync(dir).sort()).toEqual([
      'scale-2026-01-02T03-04-05-678Z.json',
      'scale-2026-01-02T03-04-05-678Z.md',
      'scale-2026-01-02T03-04-05-678Z.svg',
    ]);
    expect(files).toHaveLength(3);
    expect(JSON.parse(readFileSync(join(dir, 'scale-2026-01-02T03-04-05-678Z.json'), 'utf8'))).toEqual(r);
    const md = readFileSync(join(dir, 'scale-2026-01-02T03-04-05-678Z.md'), 'utf8');
    expect(md).toContain('| sqlite\\|a | 4.5 |');
    expect(md).toContain('| memory | — |');
    expect(md).toContain('](scale-2026-01-02T03-04-05-678Z.svg)');
  });

  it('draws one bar per value, scaled to the largest, with text escaped', () => {
    const svg = renderSvg({
      title: 'a < b & c',
      unit: 'ms',
      bars: [
        { label: 'x', value: 10 },
        { label: 'y', value: 5 },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('a &lt; b &amp; c');
    const widths = [...svg.matchAll(/<rect x="\d+" y="\d+" width="(\d+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([420, 210]);
    expect(renderText({ columns: ['a', 'bb'], rows: [[1, null]] })).toBe('a  bb\n1  —');
  });

  it('the page takes the newest report of each bench, in the order of apps/bench/README.md, and skips other JSON', () => {
    const dir = tempDir();
    writeReport(report('server', '2026-01-01T00:00:00.000Z', 1), dir);
    writeReport(report('scale', '2026-01-01T00:00:00.000Z', 7), dir);
    writeReport(report('scale', '2026-01-03T00:00:00.000Z', 3), dir);
    writeReport(report('retrieval', '2026-01-02T00:00:00.000Z', 2), dir);
    writeFileSync(join(dir, 'cache.json'), '{"vectors":{}}');
    writeFileSync(join(dir, 'broken.json'), '{');
    expect(latestReports(dir).map((r) => [r.bench, r.at])).toEqual([
      ['retrieval', '2026-01-02T00:00:00.000Z'],
      ['scale', '2026-01-03T00:00:00.000Z'],
      ['server', '2026-01-01T00:00:00.000Z'],
    ]);
    const { files } = writeReportPage(dir);
    const md = readFileSync(files[0]!, 'utf8');
    expect(md.indexOf('## retrieval title')).toBeLessThan(md.indexOf('## scale title'));
    expect(md).toContain('| sqlite\\|a | 3 |');
    expect(md).not.toContain('| sqlite\\|a | 7 |');
    const html = readFileSync(files[1]!, 'utf8');
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect(html).toContain('scale &lt;chart&gt;');
  });

  it('`mem bench report` renders the page, and explains an empty or missing folder with exit 1', () => {
    const script = fileURLToPath(new URL('../src/report-page.ts', import.meta.url));
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const run = (dir: string) =>
      spawnSync(process.execPath, ['--conditions=dev-source', '--import', tsx, script, '--dir', dir], {
        encoding: 'utf8',
      });
    const empty = tempDir();
    const none = run(empty);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('no bench reports in');
    const missing = run(join(empty, 'nope'));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('run a bench first');
    writeReport(report('convo', '2026-01-01T00:00:00.000Z', 1), empty);
    const ok = run(empty);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('convo title');
    expect(readdirSync(empty)).toContain('report.html');
  });
});
