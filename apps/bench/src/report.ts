/**
 * Bench reports (apps/bench/README.md: "each writes a JSON result and a Markdown report with a chart (SVG) under bench-results/").
 * One report shape for every bench: the JSON file holds the whole report (raw data, summary table, chart), so the
 * Markdown, the SVG and the combined page (`mem bench report`) are all rendered from it and can be rendered again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatValue, xmlEscape } from './chart-text.js';
import { renderLineSvg } from './report-lines.js';

export interface Machine {
  cpus: number;
  cpu_model: string;
  memory_gib: number;
  node: string;
  platform: string;
  /** 1-minute load average when the report was written: how noisy the machine was. */
  load_avg: number;
}

export interface BenchTable {
  columns: string[];
  rows: (string | number | null)[][];
}

/** A horizontal bar chart (the kind of every report written before line charts existed: `kind` absent). */
export interface BarChart {
  kind?: 'bars';
  title: string;
  /** Unit of the bar values, shown on each bar ("ms", "recall@10", "req/s"…). */
  unit: string;
  bars: { label: string; value: number }[];
  /** Shown under the title, e.g. "lower is better". */
  note?: string;
}

/** Lines of (x, y) points, one per series, on linear or logarithmic axes (the scale curve). */
export interface LineChart {
  kind: 'lines';
  title: string;
  note?: string;
  x: { label: string; log?: boolean };
  y: { label: string; unit: string; log?: boolean };
  /** Series of one `group` share a colour (e.g. a store's engine and end-to-end lines); `dashed` tells them apart. */
  series: { label: string; group?: string; dashed?: boolean; points: { x: number; y: number }[] }[];
}

export type BenchChart = BarChart | LineChart;

export interface BenchReport {
  /** Short name of the bench: the file prefix (`retrieval`, `scale`, `convo`, `server`, `crash`). */
  bench: string;
  title: string;
  /** ISO time the run finished. */
  at: string;
  machine: Machine;
  table: BenchTable;
  chart?: BenchChart;
  /** Sentences printed under the table (what was measured, caveats). */
  notes?: string[];
  /** The bench's full result (the `--json` document). */
  data: unknown;
}

export const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../../../bench-results', import.meta.url));

export function machine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpu_model: list[0]?.model.trim() ?? 'unknown',
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    load_avg: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** The machine line of a report: cores, memory, Node, load. */
export function describeMachine(m: Machine): string {
  return `${m.cpus} cores (${m.cpu_model}), ${m.memory_gib} GiB, Node ${m.node}, ${m.platform}, load average ${m.load_avg} when written`;
}

const cell = (v: string | number | null): string => (v === null ? '—' : String(v));

/** The summary table as plain aligned text (what a bench prints). */
export function renderText(table: BenchTable): string {
  const widths = table.columns.map((c, i) => Math.max(c.length, ...table.rows.map((r) => cell(r[i] ?? null).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(table.columns), ...table.rows.map((r) => line(table.columns.map((_, i) => cell(r[i] ?? null))))].join(
    '\n',
  );
}

const mdEscape = (s: string) => s.replace(/\|/g, '\\|');

export function renderMarkdownTable(table: BenchTable): string {
  return [
    `| ${table.columns.map(mdEscape).join(' | ')} |`,
    `|${table.columns.map(() => '---').join('|')}|`,
    ...table.rows.map((r) => `| ${table.columns.map((_, i) => mdEscape(cell(r[i] ?? null))).join(' | ')} |`),
  ].join('\n');
}

/** The chart as a standalone SVG document (no fonts or scripts to fetch). */
export function renderSvg(chart: BenchChart): string {
  return chart.kind === 'lines' ? renderLineSvg(chart) : renderBarSvg(chart);
}

/** A horizontal bar chart. */
function renderBarSvg(chart: BarChart): string {
  const labelWidth = Math.min(280, 20 + 7 * Math.max(4, ...chart.bars.map((b) => b.label.length)));
  const plot = 420;
  const rowHeight = 24;
  const top = chart.note ? 52 : 36;
  const width = labelWidth + plot + 110;
  const height = top + rowHeight * Math.max(1, chart.bars.length) + 12;
  const max = Math.max(0, ...chart.bars.map((b) => (Number.isFinite(b.value) ? b.value : 0)));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="8" y="20" font-size="14" font-weight="bold">${xmlEscape(chart.title)}</text>`,
  ];
  if (chart.note) parts.push(`<text x="8" y="38" fill="#555555">${xmlEscape(chart.note)}</text>`);
  chart.bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    const value = Number.isFinite(bar.value) && bar.value > 0 ? bar.value : 0;
    const w = max > 0 ? Math.max(1, Math.round((value / max) * plot)) : 1;
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${xmlEscape(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 3}" width="${w}" height="${rowHeight - 8}" fill="${i % 2 ? '#5b8def' : '#2f6fd6'}"/>`,
      `<text x="${labelWidth + w + 6}" y="${y + 15}">${xmlEscape(`${formatValue(bar.value)} ${chart.unit}`)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** The Markdown report; `svgFile` is the chart's file name next to it. */
export function renderMarkdown(report: BenchReport, svgFile?: string): string {
  const lines = [
    `## ${report.title}`,
    '',
    `Run ${report.at} on ${describeMachine(report.machine)}.`,
    '',
    renderMarkdownTable(report.table),
    '',
  ];
  for (const note of report.notes ?? []) lines.push(`- ${note}`);
  if (report.notes?.length) lines.push('');
  if (report.chart && svgFile) lines.push(`![${report.chart.title}](${svgFile})`, '');
  return `${lines.join('\n')}`;
}

export function fileStamp(at: string): string {
  return at.replace(/[:.]/g, '-');
}

/**
 * Writes `<bench>-<time>.json`, `.md` and (with a chart) `.svg` under `dir` (default: bench-results/ at the repo
 * root). Returns the paths written.
 */
export function writeReport(report: BenchReport, dir: string = DEFAULT_RESULTS_DIR): string[] {
  const outDir = resolve(dir);
  mkdirSync(outDir, { recursive: true });
  const base = `${report.bench}-${fileStamp(report.at)}`;
  const written: string[] = [];
  const put = (name: string, text: string) => {
    const path = join(outDir, name);
    writeFileSync(path, text);
    written.push(path);
  };
  put(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  if (report.chart) put(`${base}.svg`, renderSvg(report.chart));
  put(`${base}.md`, renderMarkdown(report, report.chart ? `${base}.svg` : undefined));
  return written;
}

/** Builds a report with this machine and time, writes it, and logs where (to stderr, so stdout stays the result). */
export function saveReport(
  fields: Omit<BenchReport, 'at' | 'machine'> & { at?: string },
  dir?: string,
): { report: BenchReport; files: string[] } {
  const report: BenchReport = { ...fields, at: fields.at ?? new Date().toISOString(), machine: machine() };
  const files = writeReport(report, dir);
  process.stderr.write(`report: ${files.join(', ')}\n`);
  return { report, files };
}
