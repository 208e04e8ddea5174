/**
 * `mem bench report`: the latest report of each bench in bench-results/ rendered into one page —
 * `report.md` (charts linked) and `report.html` (charts inline, one file to open or send).
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/report-page.ts [--dir bench-results] [--json]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type BenchReport,
  DEFAULT_RESULTS_DIR,
  describeMachine,
  fileStamp,
  renderMarkdown,
  renderSvg,
  renderText,
} from './report.js';

/** Benches in the order of apps/bench/README.md; any other bench follows, by name. */
const ORDER = ['retrieval', 'scale', 'convo', 'server', 'crash', 'runner', 'cold-start'];

function isReport(value: unknown): value is BenchReport {
  const r = value as Partial<BenchReport> | null;
  return (
    !!r &&
    typeof r.bench === 'string' &&
    typeof r.title === 'string' &&
    typeof r.at === 'string' &&
    Array.isArray(r.table?.columns) &&
    Array.isArray(r.table?.rows)
  );
}

/** The newest report of each bench found in `dir` (files that are not reports are skipped). */
export function latestReports(dir: string): BenchReport[] {
  const latest = new Map<string, BenchReport>();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      continue;
    }
    if (!isReport(parsed)) continue;
    const seen = latest.get(parsed.bench);
    if (!seen || seen.at < parsed.at) latest.set(parsed.bench, parsed);
  }
  const rank = (b: string) => (ORDER.includes(b) ? ORDER.indexOf(b) : ORDER.length);
  return [...latest.values()].sort((a, b) => rank(a.bench) - rank(b.bench) || a.bench.localeCompare(b.bench));
}

const html = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function renderHtml(reports: BenchReport[]): string {
  const sections = reports.map((r) => {
    const head = r.table.columns.map((c) => `<th>${html(c)}</th>`).join('');
    const rows = r.table.rows
      .map((row) => `<tr>${r.table.columns.map((_, i) => `<td>${html(String(row[i] ?? '—'))}</td>`).join('')}</tr>`)
      .join('\n');
    const notes = (r.notes ?? []).map((n) => `<li>${html(n)}</li>`).join('');
    return [
      `<section><h2>${html(r.title)}</h2>`,
      `<p>Run ${html(r.at)} on ${html(describeMachine(r.machine))}.</p>`,
      `<table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`,
      notes ? `<ul>${notes}</ul>` : '',
      r.chart ? renderSvg(r.chart) : '',
      '</section>',
    ].join('\n');
  });
  return [
    '<!doctype html><html><head><meta charset="utf-8"><title>mem benchmarks</title>',
    '<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse}',
    'td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}</style></head><body>',
    '<h1>mem benchmarks</h1>',
    ...sections,
    '</body></html>',
    '',
  ].join('\n');
}

export function writeReportPage(dir: string): { reports: BenchReport[]; files: string[] } {
  const reports = latestReports(dir);
  const md = [
    '# mem benchmarks',
    '',
    'The latest run of each bench (apps/bench/README.md); every figure of one table was measured side by side in one run.',
    '',
    ...reports.map((r) => renderMarkdown(r, r.chart ? `${r.bench}-${fileStamp(r.at)}.svg` : undefined)),
  ].join('\n');
  const files = [join(dir, 'report.md'), join(dir, 'report.html')];
  writeFileSync(files[0]!, md);
  writeFileSync(files[1]!, renderHtml(reports));
  return { reports, files };
}

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  const { values } = parseArgs({
    options: { dir: { type: 'string', default: DEFAULT_RESULTS_DIR }, json: { type: 'boolean', default: false } },
  });
  const dir = resolve(values.dir!);
  let result: { reports: BenchReport[]; files: string[] };
  try {
    result = writeReportPage(dir);
  } catch (error) {
    process.stderr.write(
      `bench report: cannot read ${dir} (${(error as Error).message}); run a bench first (mem bench scale …) or pass --dir.\n`,
    );
    process.exit(1);
  }
  if (result.reports.length === 0) {
    process.stderr.write(`bench report: no bench reports in ${dir}; run a bench first (mem bench scale …).\n`);
    process.exit(1);
  }
  if (values.json) console.log(JSON.stringify({ files: result.files, benches: result.reports.map((r) => r.bench) }));
  else {
    for (const r of result.reports) console.log(`${r.title} (${r.at})\n${renderText(r.table)}\n`);
    console.log(`page: ${result.files.join(', ')}`);
  }
}
