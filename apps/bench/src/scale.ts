/**
 * Search latency and scale (apps/bench/README.md): a seeded synthetic corpus, vectors from the hashing embedder (512-d) so
 * that embedding time does not hide engine time, 200 queries per size. Per store and size: ingest memories/s,
 * search p50/p95/p99 engine-only (query vector precomputed) and end-to-end with the local embedder, on-disk size,
 * peak RSS, and recall@10 of the store's vector arm against exact brute force (src/scale-run.ts).
 * Each (store, size) runs in a fresh child process (this script with the hidden `--child`), so its peak RSS is its
 * own and a run that dies (out of memory) or overruns its budget becomes a row saying so, not the end of the bench.
 * Ingest goes through `storeMany` in batches of 1,000 (the batch path of `mem import`); the durability cost of one
 * write per memory (`store`, one transaction each) is not measured here but by the per-item store/import paths.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/scale.ts [--n 10000] [--store sqlite,in-memory,lancedb,lancedb-flat,postgres]
 *        [--queries 200] [--json] [--out bench-results]   (postgres needs MEM_BENCH_POSTGRES_URL: tooling/postgres-start)
 *        --curve: issue 18's scale curve in one run: sqlite and lancedb at every size (default 10000,100000,1000000),
 *        postgres, mem0 and langgraph at every size but the largest; `--store` narrows it, `--n` sets the sizes.
 *        Peers: `--store mem0,langgraph` (src/peers/; budgets MEM_BENCH_PEER_INGEST_S=600, MEM_BENCH_PEER_SEARCH_S=180).
 *        Budget of one run: MEM_BENCH_RUN_BUDGET_S (default 7200), then the child is stopped and its row says so.
 *        --reuse <scale-….json>: the rows of an earlier scale report for (store, size) pairs this run does not run join
 *        this report (marked with the earlier run's time), e.g. to re-measure one store without re-running the peers.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { installedPeers } from './peers/index.js';
import { saveReport } from './report.js';
import { scaleReport } from './scale-report.js';
import { runScale } from './scale-run.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string' },
    store: { type: 'string' },
    queries: { type: 'string', default: '200' },
    curve: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
    child: { type: 'boolean', default: false },
    reuse: { type: 'string' },
  },
});
const qn = Number(values.queries);
const log = (s: string) => process.stderr.write(`${s}\n`);
const RESULT = '@@scale-result ';
const PROGRESS = '@@scale-progress ';

function parseList(flag: string, text: string): string[] {
  const list = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (list.length === 0) throw new Error(`--${flag} needs at least one value`);
  return list;
}

function parseSizes(text: string): number[] {
  return parseList('n', text).map((s) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 1) {
      log(`scale: --n takes positive whole numbers, got "${s}"`);
      process.exit(2);
    }
    return n;
  });
}

/** Stores that run at every size of the curve; the others stop one size short of the largest. */
const CURVE_FULL = ['sqlite', 'lancedb'];
const CURVE_SHORT = ['postgres', 'mem0', 'langgraph'];
export const CURVE_SIZES = [10_000, 100_000, 1_000_000];

/** The runs of a plan, smallest size first (so that a long run that is stopped leaves the small figures). */
function plan(): { store: string; n: number }[] {
  if (values.curve) {
    const sizes = values.n ? parseSizes(values.n) : CURVE_SIZES;
    const only = values.store ? new Set(parseList('store', values.store)) : undefined;
    const largest = Math.max(...sizes);
    const runs: { store: string; n: number }[] = [];
    for (const n of [...new Set(sizes)].sort((a, b) => a - b)) {
      for (const store of [...CURVE_FULL, ...CURVE_SHORT]) {
        if (only && !only.has(store)) continue;
        if (CURVE_SHORT.includes(store) && n === largest && sizes.length > 1) continue;
        runs.push({ store, n });
      }
    }
    return runs;
  }
  const sizes = parseSizes(values.n ?? '10000');
  // Peers (mem0, langgraph) run by default when their packages are installed.
  const stores = parseList('store', values.store ?? ['sqlite', ...installedPeers()].join(','));
  return sizes.flatMap((n) => stores.map((store) => ({ store, n })));
}

/**
 * One run in a fresh child process. Its stdout carries progress and result lines (other output passes through to
 * stderr); a child that exits without a result, is killed, or overruns the budget gives a row with `error`.
 */
function runChild(store: string, n: number): Promise<Record<string, unknown>> {
  const budgetS = Number(process.env.MEM_BENCH_RUN_BUDGET_S ?? 7200);
  const args = [...process.execArgv, process.argv[1]!, '--child', '--store', store, '--n', String(n)];
  args.push('--queries', String(qn));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let result: Record<string, unknown> | undefined;
  let last: { phase: string; done?: number; rss: number } | undefined;
  let buffer = '';
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    child.kill('SIGKILL');
  }, budgetS * 1000);
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith(RESULT)) result = JSON.parse(line.slice(RESULT.length));
      else if (line.startsWith(PROGRESS)) last = JSON.parse(line.slice(PROGRESS.length));
      else if (line !== '') log(line);
      nl = buffer.indexOf('\n');
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (result) return resolve(result);
      const where = last
        ? ` during ${last.phase}${last.done !== undefined ? ` (${last.done} of ${n} ingested)` : ''}, RSS ${Math.round(last.rss / 1e6)} MB at its last report`
        : '';
      const why = overran
        ? `stopped: over its budget of ${budgetS} s (MEM_BENCH_RUN_BUDGET_S)`
        : signal === 'SIGKILL' || code === 137
          ? 'died: killed (SIGKILL, most likely out of memory)'
          : code === 134 || signal === 'SIGABRT'
            ? 'died: aborted (out of memory in the JavaScript heap or a native abort)'
            : `died: exit ${code ?? signal} without a result`;
      resolve({ store, n, error: `${why}${where}` });
    });
  });
}

if (values.child) {
  const progress = (phase: string, done?: number) =>
    process.stdout.write(`${PROGRESS}${JSON.stringify({ phase, done, rss: process.memoryUsage.rss() })}\n`);
  const row = await runScale(values.store!, Number(values.n), qn, progress);
  // This process ran only this store at this size: its own peak RSS (the corpus and its vectors included).
  if (!row.error) row.peak_rss_bytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${RESULT}${JSON.stringify(row)}\n`);
  process.exit(0);
}

const runs: Record<string, unknown>[] = [];
for (const { store, n } of plan()) {
  log(`${store} n=${n}: running…`);
  const row = await runChild(store, n);
  runs.push(row);
  // Each run as it ends, so that a long run that is stopped still leaves its finished figures.
  log(`done: ${JSON.stringify(row)}`);
}

if (values.reuse) {
  // Rows of an earlier report, for the pairs this run did not measure again.
  const earlier = JSON.parse(readFileSync(values.reuse, 'utf8')) as {
    at: string;
    data: { runs: Record<string, unknown>[] };
  };
  const ran = new Set(runs.map((r) => `${r.store}@${r.n}`));
  const kept = earlier.data.runs
    .filter((r) => !ran.has(`${r.store}@${r.n}`))
    .map((r) => ({ ...r, measured_at: earlier.at }));
  runs.push(...kept);
  runs.sort((a, b) => Number(a.n) - Number(b.n));
  log(`reused ${kept.length} rows of ${values.reuse} (${earlier.at})`);
}

const { report } = saveReport(scaleReport(runs, values.curve), values.out);
if (values.json) console.log(JSON.stringify({ runs }));
else {
  const { renderText } = await import('./report.js');
  console.log(renderText(report.table));
  for (const r of runs as any[]) {
    if (r.hop_ms !== undefined)
      console.log(
        `${r.store} n=${r.n}: HTTP hop ${r.hop_ms} ms p50 (an embedding request answered without computing); ${r.queries} queries`,
      );
  }
}
