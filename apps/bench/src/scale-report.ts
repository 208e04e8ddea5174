/**
 * The scale bench's report (src/report.ts shape): one table row per (store, size), a failed run's row saying why,
 * and the scale curve — engine p50 (solid) and end-to-end p50 (dashed) against the number of memories, both axes
 * logarithmic, one colour per store.
 */
import type { BenchReport, LineChart } from './report.js';
import { round } from './stats.js';

type Row = Record<string, any>;

export const SCALE_COLUMNS = [
  'store',
  'n',
  'ingest/s',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'cold p50 ms',
  'e2e p50 ms',
  'e2e p95 ms',
  'e2e p99 ms',
  'recall@10 vs exact',
  'disk MB',
  'peak RSS MB',
  'error',
];

/** The curve of a set of runs: per store, engine p50 and e2e p50 at each size it finished. */
export function scaleCurve(runs: Row[]): LineChart {
  const ok = runs.filter((r) => !r.error && r.search_ms);
  const stores = [...new Set(ok.map((r) => r.store as string))];
  const series: LineChart['series'] = [];
  for (const store of stores) {
    const mine = ok.filter((r) => r.store === store).sort((a, b) => a.n - b.n);
    series.push({ label: `${store} engine`, group: store, points: mine.map((r) => ({ x: r.n, y: r.search_ms.p50 })) });
    const e2e = mine.filter((r) => typeof r.e2e_ms?.p50 === 'number');
    if (e2e.length > 0)
      series.push({
        label: `${store} e2e`,
        group: store,
        dashed: true,
        points: e2e.map((r) => ({ x: r.n, y: r.e2e_ms.p50 })),
      });
  }
  return {
    kind: 'lines',
    title: 'Scale curve: search p50 against memories stored',
    note: 'solid: engine only (query vector precomputed); dashed: end to end (local embedder); log axes, lower is better',
    x: { label: 'memories', log: true },
    y: { label: 'p50', unit: 'ms', log: true },
    series,
  };
}

export function scaleReport(runs: Row[], curve: boolean): Omit<BenchReport, 'at' | 'machine'> {
  return {
    bench: 'scale',
    title: curve ? 'Search latency and scale: the scale curve' : 'Search latency and scale',
    table: {
      columns: SCALE_COLUMNS,
      rows: runs.map((r) =>
        r.error
          ? [r.store, r.n, r.ingest_per_s ?? null, null, null, null, null, null, null, null, null, null, null, r.error]
          : [
              r.store,
              r.n,
              r.ingest_per_s,
              r.search_ms.p50,
              r.search_ms.p95,
              r.search_ms.p99,
              r.search_cold_ms?.p50 ?? null,
              r.e2e_ms?.p50 ?? null,
              r.e2e_ms?.p95 ?? null,
              r.e2e_ms?.p99 ?? null,
              r.recall10_vs_exact ?? null,
              r.disk_bytes ? round(r.disk_bytes / 1e6, 1) : null,
              r.peak_rss_bytes ? Math.round(r.peak_rss_bytes / 1e6) : null,
              null,
            ],
      ),
    },
    chart: scaleCurve(runs),
    notes: [
      'Seeded synthetic corpus, 512-d hashing vectors; e2e embeds each query with the local embedder.',
      "mem's stores first serve a warm-up pass of other queries of the same kind (its p50 is 'cold'); the measured pass follows. Peers have no warm-up.",
      'Each store and size ran in a fresh process: peak RSS is that run alone (its corpus and vectors included).',
      'postgres: disk is the bench schema on the server (tables, indexes, TOAST); tmpfs or in-memory peers show none.',
      ...[...new Set(runs.map((r) => r.measured_at).filter((at) => typeof at === 'string'))].map(
        (at) =>
          `Rows of ${runs
            .filter((r) => r.measured_at === at)
            .map((r) => `${r.store} @${r.n}`)
            .join(', ')} were measured by an earlier run (${at}, --reuse).`,
      ),
    ],
    data: { runs },
  };
}
