/**
 * `mem bench writes` (apps/bench/README.md; issue 18 point 3): concurrent single writes through `mem serve`, the
 * stores side by side in one run. Per round and per store a fresh `mem serve` process on 127.0.0.1 (hashing
 * embedder, an API key, no rate limit) on a fresh store; `--clients` clients each store one memory after another
 * (`POST /v1/memories`, every content distinct) until `--writes` were sent; then the export must hold every
 * acknowledged write exactly once. Reports writes/s, p50/p99 latency, errors (which must be 0), the read-back, and the
 * LanceDB/SQLite and PostgreSQL/SQLite ratios of each round and of all rounds together.
 *
 *   pnpm mem bench writes [--writes 400] [--rounds 2] [--clients 8] [--stores sqlite,lancedb,postgres] [--json]
 *        [--out bench-results]
 *
 * `postgres` runs when MEM_BENCH_POSTGRES_URL names a database (each round in a space of its own), and is skipped
 * with a line saying so otherwise. One warm-up write per server (not timed) opens the store before the clock starts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { MemError } from '@mem/core';
import { startServeProcess } from '@mem/testkit/attack';
import { memDevBin } from './mem-command.js';
import { renderMarkdown, saveReport } from './report.js';
import { percentile, round } from './stats.js';

const STORES = ['sqlite', 'lancedb', 'postgres'] as const;
type StoreName = (typeof STORES)[number];

export interface WritesOptions {
  writes: number;
  rounds: number;
  clients: number;
  stores: StoreName[];
}

export interface WritesRun {
  store: StoreName;
  round: number;
  sent: number;
  acknowledged: number;
  errors: number;
  /** The first few error answers, for the report. */
  errorSamples: string[];
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** Acknowledged writes found exactly once in the export afterwards. */
  foundOnce: number;
  ok: boolean;
}

export interface WritesResult {
  bench: 'writes';
  options: WritesOptions;
  runs: WritesRun[];
  skipped: string[];
  /** Over every round of a store: acknowledged writes / seconds of the timed parts. */
  perStore: Partial<Record<StoreName, { acknowledged: number; seconds: number; perSecond: number }>>;
  /** Per round, and over every round (`all`): the store's writes/s divided by SQLite's. */
  ratios: { lancedb?: { rounds: number[]; all: number }; postgres?: { rounds: number[]; all: number } };
  ok: boolean;
}

const fail = (message: string): never => {
  throw new MemError('INVALID_INPUT', message);
};

function whole(flag: string, raw: string | undefined, min: number): number {
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) fail(`--${flag} must be a whole number of at least ${min} (got "${raw}").`);
  return v;
}

/** The flags of `mem bench writes`, checked. */
export function parseWritesOptions(argv: string[]): WritesOptions & { json: boolean; out?: string } {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        writes: { type: 'string', default: '400' },
        rounds: { type: 'string', default: '2' },
        clients: { type: 'string', default: '8' },
        stores: { type: 'string', default: STORES.join(',') },
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
      },
    }));
  } catch (error) {
    return fail(`${(error as Error).message}. Flags: --writes --rounds --clients --stores --json --out.`);
  }
  const stores = String(values.stores)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of stores)
    if (!STORES.includes(s as StoreName)) fail(`--stores: unknown store "${s}"; choose from ${STORES.join(', ')}.`);
  if (!stores.includes('sqlite')) fail('--stores must include sqlite: the other stores are compared with it.');
  return {
    writes: whole('writes', values.writes as string, 1),
    rounds: whole('rounds', values.rounds as string, 1),
    clients: whole('clients', values.clients as string, 1),
    stores: [...new Set(stores)] as StoreName[],
    json: values.json === true,
    ...(typeof values.out === 'string' ? { out: values.out } : {}),
  };
}

const TOPICS = ['billing', 'search', 'checkout', 'auth', 'ingest', 'payments', 'reports', 'alerts'];
const FACTS = ['retries failed jobs', 'rotates its keys', 'archives old rows', 'batches its emails', 'pages on-call'];

/** One round on one store: a fresh `mem serve`, the timed writes, the export checked. */
async function runStore(store: StoreName, roundNo: number, o: WritesOptions, pgUrl: string | undefined) {
  const dir = mkdtempSync(join(tmpdir(), `mem-bench-writes-${store}-`));
  const tag = `${Date.now().toString(36)}-${roundNo}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MEM_EMBEDDER: 'hashing',
    MEM_STORE: store,
    MEM_DB: store === 'postgres' ? pgUrl! : join(dir, store === 'lancedb' ? 'lance' : 'mem.db'),
    MEM_WORKSPACE_DIR: dir,
  };
  const mem = async (args: string[]) =>
    (await promisify(execFile)(process.execPath, [memDevBin(), ...args], { env })).stdout;
  const { key } = JSON.parse(
    await mem(['keys', 'create', '--space', `bench-writes-${tag}`, '--agent', 'writer', '--role', 'worker', '--json']),
  ) as { key: string };
  const server = await startServeProcess(
    { command: process.execPath, args: [memDevBin(), 'serve', '--port', '0', '--json', '--rate-limit', '0'] },
    env,
  );
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = (content: string) =>
    fetch(`${server.url}/v1/memories`, { method: 'POST', headers, body: JSON.stringify({ content }) });
  try {
    const acked: string[] = [];
    const warm = `Warm-up note of round ${roundNo} on ${store}.`;
    const first = await post(warm);
    if (first.status !== 201) throw new Error(`the warm-up write failed: ${first.status} ${await first.text()}`);
    await first.arrayBuffer();
    acked.push(warm);
    const latencies: number[] = [];
    const errorSamples: string[] = [];
    let errors = 0;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: o.clients }, async () => {
        for (let i = next++; i < o.writes; i = next++) {
          const content = `Round ${roundNo} note ${i}: the ${TOPICS[i % TOPICS.length]} service ${FACTS[(i * 7) % FACTS.length]} (writer ${i % o.clients}, ${tag}).`;
          const t = performance.now();
          try {
            const res = await post(content);
            const text = await res.text();
            if (res.status === 201) {
              latencies.push(performance.now() - t);
              acked.push(content);
            } else {
              errors++;
              if (errorSamples.length < 3) errorSamples.push(`${res.status} ${text.slice(0, 200)}`);
            }
          } catch (error) {
            errors++;
            if (errorSamples.length < 3) errorSamples.push(String(error));
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const exported = await fetch(`${server.url}/v1/export`, { headers });
    const counts = new Map<string, number>();
    for (const line of (await exported.text()).split('\n')) {
      if (!line.trim()) continue;
      const content = (JSON.parse(line) as { content?: string }).content;
      if (content) counts.set(content, (counts.get(content) ?? 0) + 1);
    }
    const foundOnce = acked.filter((c) => counts.get(c) === 1).length;
    const timed = acked.length - 1;
    const run: WritesRun = {
      store,
      round: roundNo,
      sent: o.writes,
      acknowledged: timed,
      errors,
      errorSamples,
      seconds: round3(seconds),
      perSecond: round(timed / seconds, 1),
      latencyMs: {
        p50: latencies.length ? round(percentile(latencies, 50), 1) : 0,
        p99: latencies.length ? round(percentile(latencies, 99), 1) : 0,
        max: latencies.length ? round(Math.max(...latencies), 1) : 0,
      },
      foundOnce: foundOnce - (counts.get(warm) === 1 ? 1 : 0),
      ok: errors === 0 && foundOnce === acked.length && timed === o.writes,
    };
    return run;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round3 = (x: number) => round(x, 3);

export async function runWritesBench(o: WritesOptions, log: (s: string) => void): Promise<WritesResult> {
  const pgUrl = process.env.MEM_BENCH_POSTGRES_URL || undefined;
  const skipped: string[] = [];
  const stores = o.stores.filter((s) => {
    if (s !== 'postgres' || pgUrl) return true;
    skipped.push('postgres: skipped (set MEM_BENCH_POSTGRES_URL to a PostgreSQL database to run it)');
    return false;
  });
  for (const s of skipped) log(s);
  const runs: WritesRun[] = [];
  // Rounds outermost, stores side by side inside each round: a change of load hits every store alike.
  for (let r = 1; r <= o.rounds; r++) {
    for (const store of stores) {
      log(`round ${r}/${o.rounds}, ${store}: ${o.clients} clients, ${o.writes} writes…`);
      const run = await runStore(store, r, o, pgUrl);
      runs.push(run);
      log(
        `  ${run.perSecond} writes/s, p50 ${run.latencyMs.p50} ms, p99 ${run.latencyMs.p99} ms, ${run.errors} errors, found ${run.foundOnce}/${run.acknowledged}`,
      );
    }
  }
  const perStore: WritesResult['perStore'] = {};
  for (const store of stores) {
    const mine = runs.filter((x) => x.store === store);
    const acknowledged = mine.reduce((n, x) => n + x.acknowledged, 0);
    const seconds = mine.reduce((n, x) => n + x.seconds, 0);
    perStore[store] = { acknowledged, seconds: round3(seconds), perSecond: round(acknowledged / seconds, 1) };
  }
  const ratios: WritesResult['ratios'] = {};
  for (const store of ['lancedb', 'postgres'] as const) {
    if (!perStore[store]) continue;
    const rounds = Array.from({ length: o.rounds }, (_, i) => {
      const base = runs.find((x) => x.store === 'sqlite' && x.round === i + 1)!;
      const other = runs.find((x) => x.store === store && x.round === i + 1)!;
      return round(other.perSecond / base.perSecond, 2);
    });
    ratios[store] = { rounds, all: round(perStore[store]!.perSecond / perStore.sqlite!.perSecond, 2) };
  }
  return { bench: 'writes', options: o, runs, skipped, perStore, ratios, ok: runs.every((x) => x.ok) };
}

async function main(): Promise<void> {
  const { json, out, ...options } = parseWritesOptions(process.argv.slice(2));
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const result = await runWritesBench(options, log);
  const ratioNote = (name: string, r?: { rounds: number[]; all: number }) =>
    r ? `${name} / SQLite writes/s: ${r.rounds.join(' / ')} per round, ${r.all} over all rounds.` : null;
  const { report } = saveReport(
    {
      bench: 'writes',
      title: `Concurrent single writes through mem serve (${options.clients} clients, ${options.writes} writes, ${options.rounds} rounds)`,
      table: {
        columns: ['round', 'store', 'writes/s', 'p50 / p99 / max ms', 'errors', 'found afterwards', 'result'],
        rows: result.runs.map((x) => [
          x.round,
          x.store,
          x.perSecond,
          `${x.latencyMs.p50} / ${x.latencyMs.p99} / ${x.latencyMs.max}`,
          x.errors,
          `${x.foundOnce} of ${x.acknowledged}`,
          x.ok ? 'OK' : 'FAILED',
        ]),
      },
      chart: {
        title: 'Acknowledged writes per second',
        unit: 'writes/s',
        note: `${options.clients} clients, one memory per request, higher is better`,
        bars: result.runs.map((x) => ({ label: `${x.store} r${x.round}`, value: x.perSecond })),
      },
      notes: [
        `Per round and store a fresh mem serve on 127.0.0.1 (hashing embedder, an API key, no rate limit) on a fresh store; one untimed warm-up write; each client stores one memory after another (POST /v1/memories, distinct contents); "found afterwards" counts acknowledged writes present exactly once in the export.`,
        ...(Object.entries(result.perStore).map(
          ([s, v]) => `${s}: ${v!.acknowledged} writes in ${v!.seconds} s over all rounds, ${v!.perSecond} writes/s.`,
        ) as string[]),
        ...[ratioNote('LanceDB', result.ratios.lancedb), ratioNote('PostgreSQL', result.ratios.postgres)].filter(
          (n): n is string => n !== null,
        ),
        ...result.skipped,
        `Result: ${result.ok ? 'OK' : 'FAILED'}.`,
      ],
      data: result,
    },
    out,
  );
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : renderMarkdown(report));
  if (!result.ok) process.exitCode = 1;
}

main().catch((error: unknown) => {
  const code = error instanceof MemError ? `${error.code}: ` : '';
  process.stderr.write(`bench writes: ${code}${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof MemError && error.code === 'INVALID_INPUT' ? 2 : 1;
});
