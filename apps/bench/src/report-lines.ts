/**
 * Line charts of the bench reports (the scale curve): series of (x, y) points on linear or logarithmic axes, as a
 * standalone SVG document with a legend. Points that a log axis cannot show (zero, negative, not finite) are left out.
 */
import { formatValue, xmlEscape } from './chart-text.js';
import type { LineChart } from './report.js';

const PALETTE = ['#2f6fd6', '#d6542f', '#2f9e4f', '#8a3fd6', '#c79a12', '#1b9aa8', '#b03a7a', '#555555'];
const WIDTH = 780;
const HEIGHT = 440;
const LEFT = 78;
const RIGHT = 200;
const BOTTOM = 52;

interface Axis {
  /** Maps a value to [0, 1] along the axis. */
  at(v: number): number;
  ticks: number[];
  drawable(v: number): boolean;
}

/** 1,000 → "1k", 1,000,000 → "1M": how the sizes of the curve are read. */
export function formatCount(v: number): string {
  if (v >= 1e6 && v % 1e5 === 0) return `${v / 1e6}M`;
  if (v >= 1e3 && v % 100 === 0) return `${v / 1e3}k`;
  return formatValue(v);
}

function axis(values: number[], log: boolean): Axis {
  const drawable = (v: number) => Number.isFinite(v) && (!log || v > 0);
  const vs = values.filter(drawable);
  if (log) {
    let lo = Math.floor(Math.log10(vs.length ? Math.min(...vs) : 1));
    let hi = Math.ceil(Math.log10(vs.length ? Math.max(...vs) : 10));
    if (hi <= lo) hi = lo + 1;
    const ticks: number[] = [];
    // Within two decades the 2 and 5 of each decade are marked too, so a short curve still has a readable scale.
    const steps = hi - lo <= 2 ? [1, 2, 5] : [1];
    for (let e = lo; e <= hi; e++) for (const s of steps) if (e < hi || s === 1) ticks.push(s * 10 ** e);
    lo = Math.log10(ticks[0]!);
    hi = Math.log10(ticks[ticks.length - 1]!);
    return { at: (v) => (Math.log10(v) - lo) / (hi - lo), ticks, drawable };
  }
  const max = vs.length ? Math.max(0, ...vs) : 1;
  const step = niceStep((max || 1) / 5);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const ticks: number[] = [];
  for (let t = 0; t <= top + step / 2; t += step) ticks.push(round(t));
  return { at: (v) => v / top, ticks, drawable };
}

const round = (v: number) => Math.round(v * 1e9) / 1e9;

function niceStep(raw: number): number {
  const e = 10 ** Math.floor(Math.log10(raw));
  const f = raw / e;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

export function renderLineSvg(chart: LineChart): string {
  const top = chart.note ? 62 : 44;
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - top - BOTTOM;
  const points = chart.series.flatMap((s) => s.points);
  const xa = axis(
    points.map((p) => p.x),
    !!chart.x.log,
  );
  const ya = axis(
    points.map((p) => p.y),
    !!chart.y.log,
  );
  const px = (v: number) => LEFT + xa.at(v) * plotW;
  const py = (v: number) => top + plotH - ya.at(v) * plotH;
  const f = (v: number) => v.toFixed(1);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="8" y="20" font-size="14" font-weight="bold">${xmlEscape(chart.title)}</text>`,
  ];
  if (chart.note) parts.push(`<text x="8" y="38" fill="#555555">${xmlEscape(chart.note)}</text>`);
  for (const t of xa.ticks) {
    parts.push(
      `<line x1="${f(px(t))}" y1="${top}" x2="${f(px(t))}" y2="${top + plotH}" stroke="#e4e4e4"/>`,
      `<text x="${f(px(t))}" y="${top + plotH + 16}" text-anchor="middle">${xmlEscape(formatCount(t))}</text>`,
    );
  }
  for (const t of ya.ticks) {
    parts.push(
      `<line x1="${LEFT}" y1="${f(py(t))}" x2="${LEFT + plotW}" y2="${f(py(t))}" stroke="#e4e4e4"/>`,
      `<text x="${LEFT - 6}" y="${f(py(t) + 4)}" text-anchor="end">${xmlEscape(String(Number(formatValue(t))))}</text>`,
    );
  }
  parts.push(
    `<rect x="${LEFT}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888888"/>`,
    `<text x="${LEFT + plotW / 2}" y="${HEIGHT - 12}" text-anchor="middle">${xmlEscape(`${chart.x.label}${chart.x.log ? ' (log)' : ''}`)}</text>`,
    `<text x="16" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + plotH / 2})">${xmlEscape(`${chart.y.label}, ${chart.y.unit}${chart.y.log ? ' (log)' : ''}`)}</text>`,
  );
  const groups = [...new Set(chart.series.map((s) => s.group ?? s.label))];
  let legendY = top + 8;
  for (const s of chart.series) {
    const drawn = s.points.filter((p) => xa.drawable(p.x) && ya.drawable(p.y)).sort((a, b) => a.x - b.x);
    if (drawn.length === 0) continue;
    const colour = PALETTE[groups.indexOf(s.group ?? s.label) % PALETTE.length]!;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    const label = xmlEscape(s.label);
    parts.push(
      `<polyline class="series" data-label="${label}" fill="none" stroke="${colour}" stroke-width="2"${dash} points="${drawn.map((p) => `${f(px(p.x))},${f(py(p.y))}`).join(' ')}"/>`,
    );
    for (const p of drawn) {
      parts.push(
        `<circle cx="${f(px(p.x))}" cy="${f(py(p.y))}" r="3" fill="${colour}"><title>${label}: ${xmlEscape(`${formatCount(p.x)} → ${formatValue(p.y)} ${chart.y.unit}`)}</title></circle>`,
      );
    }
    const lx = LEFT + plotW + 14;
    parts.push(
      `<line x1="${lx}" y1="${legendY}" x2="${lx + 24}" y2="${legendY}" stroke="${colour}" stroke-width="2"${dash}/>`,
      `<text x="${lx + 30}" y="${legendY + 4}">${label}</text>`,
    );
    legendY += 18;
  }
  if (legendY === top + 8) {
    parts.push(
      `<text x="${LEFT + plotW / 2}" y="${top + plotH / 2}" text-anchor="middle" fill="#555555">no finished runs</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
