/**
 * apps/bench/README.md — the server under load: autocannon against a server on loopback (its own process, SQLite file,
 * API keys on), a fixed number of connections each doing memory-store, memory-search and memory-get in turn for
 * N seconds, `--runs` times against the same server process. Reports per run requests/s, latency p50/p99, errors
 * (which must be 0), gets answered with the wrong content (0), the read-back of every acknowledged write, and the
 * server's RSS (start / end / peak, sampled every 250 ms); after the last run every acknowledged write of every run
 * is read back again, and RSS is flat when the last run ends at most 10 % above the first run's end.
 *
 *   node --conditions=dev-source --import tsx apps/bench/src/server.ts [--duration 20] [--connections 16]
 *        [--runs 1] [--seed 500] [--embedder hashing|local] [--json] [--out bench-results]
 *
 * Writes `server-<time>.json`, `.md` and `.svg` under bench-results/ (git-ignored; the report format of apps/bench).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { seededRandom } from '@mem/core/adapter';
import autocannon from 'autocannon';
import { type BenchReport, machine, renderMarkdown, writeReport } from './report.js';

export interface ServerBenchOptions {
  durationSeconds: number;
  connections: number;
  /** Memories stored before the first run, so that search has something to rank. */
  seed: number;
  embedder: 'hashing' | 'local';
  /** Consecutive rounds against the same server process (RSS must stay flat across them). */
  runs: number;
}

/** Resident set size of the server process in MiB, sampled during a run. */
export interface RssStats {
  startMiB: number;
  endMiB: number;
  peakMiB: number;
  samples: number;
}

export interface ServerBenchRun {
  run: number;
  requests: { total: number; perSecond: number };
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  byOperation: { store: number; search: number; get: number };
  errors: { connection: number; timeouts: number; non2xx: number; total: number };
  statusCodes: Record<string, number>;
  /** Gets whose answer was not the content the id was stored with. */
  getMismatches: number;
  /** This run's acknowledged writes, read back right after it. */
  readBack: { acknowledged: number; verified: number; missing: number; wrong: number };
  rss: RssStats;
  ok: boolean;
}

export interface ServerBenchResult {
  bench: 'server';
  at: string;
  options: ServerBenchOptions;
  machine: { cpus: number; node: string };
  runs: ServerBenchRun[];
  /** Over every run. */
  requests: { total: number; perSecond: number };
  errors: { total: number };
  /** Every write acknowledged in any run, read back once more after the last run. */
  readBack: { acknowledged: number; verified: number; missing: number; wrong: number };
  /**
   * RSS is flat when the end RSS of the last run is at most `tolerancePercent` above the end RSS of the first (a
   * drop is not growth: the garbage collector gave memory back).
   */
  rss: { firstEndMiB: number; lastEndMiB: number; changePercent: number; tolerancePercent: number; flat: boolean };
  ok: boolean;
}

/** How far the end RSS of the last run may be from the first run's. */
const RSS_TOLERANCE_PERCENT = 10;

/** Resident set size of a process in bytes (Linux /proc, else `ps`), or null when it cannot be read. */
function rssBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux: ask ps
  }
  try {
    const kb = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return Number.isFinite(kb) && kb > 0 ? kb * 1024 : null;
  } catch {
    return null;
  }
}

const mib = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

/** Samples a process's RSS every `everyMs` until stopped. */
function rssSampler(pid: number, everyMs = 250): { stop(): RssStats } {
  const first = rssBytes(pid) ?? 0;
  let peak = first;
  let samples = 1;
  const timer = setInterval(() => {
    const v = rssBytes(pid);
    if (v !== null) {
      peak = Math.max(peak, v);
      samples++;
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const last = rssBytes(pid) ?? 0;
      peak = Math.max(peak, last);
      return { startMiB: mib(first), endMiB: mib(last), peakMiB: mib(peak), samples: samples + 1 };
    },
  };
}

const SERVICES = ['billing', 'search', 'checkout', 'auth', 'notifications', 'reporting', 'ingest', 'payments'];
const VERBS = ['retries', 'caches', 'validates', 'archives', 'batches', 'throttles', 'replicates', 'encrypts'];
const OBJECTS = [
  'failed invoices',
  'session tokens',
  'nightly exports',
  'webhook events',
  'audit logs',
  'user uploads',
];
const WHEN = [
  'every hour',
  'at midnight UTC',
  'after each deploy',
  'on the first of the month',
  'when the queue backs up',
];

/** Seeded, so two runs send the same texts. */
const rng = seededRandom;

function sentence(r: () => number, n: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  return `The ${pick(SERVICES)} service ${pick(VERBS)} ${pick(OBJECTS)} ${pick(WHEN)} (note ${n}).`;
}

// ---------- the server process ----------

async function serveChild(args: { db: string; embedder: string }): Promise<void> {
  const [{ createStack }, { createSqliteStore }, { KeyStore, startServer, jsonLogger }] = await Promise.all([
    import('@mem/core'),
    import('@mem/store-sqlite'),
    import('@mem/server'),
  ]);
  let embedder: import('@mem/core/adapter').Embedder;
  if (args.embedder === 'local') embedder = (await import('@mem/embed-local')).createLocalEmbedder();
  else embedder = (await import('@mem/core')).createHashingEmbedder();
  const stack = createStack({ knowledge: createSqliteStore({ path: args.db }), embedder });
  const keys = KeyStore.open(`${args.db}.keys.db`);
  const { key } = await keys.create({ space: 'bench', agentId: 'bench-agent', role: 'worker' });
  const server = await startServer({
    stack,
    keys,
    port: 0,
    defaultPrincipal: { space: 'bench', agentId: 'bench-agent', role: 'worker' },
    rateLimit: false,
    closeStack: true,
    logger: jsonLogger(),
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, key })}\n`);
  await new Promise<void>((ok) => process.once('SIGTERM', () => ok()));
  await server.close();
  keys.close();
}

// ---------- the load ----------

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export async function runServerBench(
  options: ServerBenchOptions,
  log: (s: string) => void = () => {},
): Promise<ServerBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-server-'));
  const db = join(dir, 'bench.db');
  let child: ChildProcess | undefined;
  try {
    child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        '--serve-child',
        '--db',
        db,
        '--embedder',
        options.embedder,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const { url, key } = await new Promise<{ url: string; key: string }>((ok, fail) => {
      let out = '';
      child!.stdout!.on('data', (c) => {
        out += c;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) ok(JSON.parse(line));
      });
      child!.once('exit', (code) => fail(new Error(`the bench server exited early (code ${code})`)));
    });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    log(`server on ${url}; seeding ${options.seed} memories…`);

    const known: { id: string; content: string }[] = [];
    const seedRandom = rng(1);
    await pool(
      Array.from({ length: options.seed }, (_, i) => i),
      options.connections,
      async (i) => {
        const content = `Seed ${i}: ${sentence(seedRandom, i)}`;
        const res = await fetch(`${url}/v1/memories`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ content, tags: ['seed'] }),
        });
        if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
        known.push({ id: ((await res.json()) as { id: string }).id, content });
      },
    );

    /** Read back acknowledged writes: each must be there with exactly the content it was stored with. */
    const readBack = async (acked: { id: string; content: string }[]) => {
      let verified = 0;
      let missing = 0;
      let wrong = 0;
      await pool(acked, options.connections, async ({ id, content }) => {
        const res = await fetch(`${url}/v1/memories/${encodeURIComponent(id)}?peek=true`, { headers });
        if (res.status !== 200) {
          missing++;
          await res.text();
          return;
        }
        const doc = (await res.json()) as { content: string };
        if (doc.content === content) verified++;
        else wrong++;
      });
      return { acknowledged: acked.length, verified, missing, wrong };
    };

    const pid = child.pid!;
    const loadRandom = rng(2);
    let counter = 0;
    const runs: ServerBenchRun[] = [];
    const allAcked: { id: string; content: string }[] = [];
    for (let run = 1; run <= options.runs; run++) {
      log(
        `run ${run}/${options.runs}: ${options.connections} connections for ${options.durationSeconds} s (store / search / get in turn)…`,
      );
      const acked: { id: string; content: string }[] = [];
      const byOperation = { store: 0, search: 0, get: 0 };
      let getMismatches = 0;
      const sampler = rssSampler(pid);
      const result = await autocannon({
        url,
        connections: options.connections,
        duration: options.durationSeconds,
        headers,
        requests: [
          {
            method: 'POST',
            path: '/v1/memories',
            setupRequest: (req, context) => {
              const n = counter++;
              const content = `Run ${run}.${n}: ${sentence(loadRandom, n)}`;
              (context as { content?: string }).content = content;
              return { ...req, body: JSON.stringify({ content, tags: ['bench'] }) };
            },
            onResponse: (status, body, context) => {
              byOperation.store++;
              if (status === 201) {
                const item = {
                  id: (JSON.parse(body) as { id: string }).id,
                  content: (context as { content: string }).content,
                };
                acked.push(item);
                known.push(item);
              }
            },
          },
          {
            method: 'POST',
            path: '/v1/memories/search',
            setupRequest: (req) => {
              const query = `${SERVICES[Math.floor(loadRandom() * SERVICES.length)]} ${OBJECTS[Math.floor(loadRandom() * OBJECTS.length)]}`;
              return { ...req, body: JSON.stringify({ query, limit: 10 }) };
            },
            onResponse: () => {
              byOperation.search++;
            },
          },
          {
            // A get of a memory acknowledged earlier (a seed or a write of this or an earlier run); counts an access.
            method: 'GET',
            setupRequest: (req, context) => {
              const target = known[Math.floor(loadRandom() * known.length)]!;
              (context as { target?: { id: string; content: string } }).target = target;
              const { body: _body, ...rest } = req as typeof req & { body?: unknown };
              return { ...rest, method: 'GET', path: `/v1/memories/${encodeURIComponent(target.id)}` };
            },
            onResponse: (status, body, context) => {
              byOperation.get++;
              const target = (context as { target: { content: string } }).target;
              if (status === 200 && (JSON.parse(body) as { content: string }).content !== target.content)
                getMismatches++;
            },
          },
        ],
      });
      log(`run ${run}: read-back of ${acked.length} acknowledged writes…`);
      const back = await readBack(acked);
      const rss = sampler.stop();
      allAcked.push(...acked);
      const statusCodes = Object.fromEntries(
        Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [
          code,
          Number((v as { count: number | string }).count),
        ]),
      );
      const errors = {
        connection: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        total: result.errors + result.timeouts + result.non2xx,
      };
      runs.push({
        run,
        requests: { total: result.requests.total, perSecond: Math.round(result.requests.total / result.duration) },
        latencyMs: {
          p50: result.latency.p50,
          p90: result.latency.p90,
          p99: result.latency.p99,
          max: result.latency.max,
          mean: Math.round(result.latency.average * 100) / 100,
        },
        byOperation,
        errors,
        statusCodes,
        getMismatches,
        readBack: back,
        rss,
        ok:
          errors.total === 0 &&
          getMismatches === 0 &&
          back.missing === 0 &&
          back.wrong === 0 &&
          back.verified === acked.length,
      });
      log(
        `run ${run}: ${runs.at(-1)!.requests.perSecond} req/s, ${errors.total} errors, read back ${back.verified}/${back.acknowledged}, RSS ${rss.startMiB} → ${rss.endMiB} MiB (peak ${rss.peakMiB})`,
      );
    }

    log(`final read-back of all ${allAcked.length} acknowledged writes…`);
    const finalBack = await readBack(allAcked);
    const firstEnd = runs[0]!.rss.endMiB;
    const lastEnd = runs.at(-1)!.rss.endMiB;
    const changePercent = firstEnd > 0 ? Math.round(((lastEnd - firstEnd) / firstEnd) * 1000) / 10 : 0;
    const flat = firstEnd > 0 && changePercent <= RSS_TOLERANCE_PERCENT;
    const total = runs.reduce((n, r) => n + r.requests.total, 0);
    const seconds = runs.length * options.durationSeconds;
    return {
      bench: 'server',
      at: new Date().toISOString(),
      options,
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      runs,
      requests: { total, perSecond: Math.round(total / seconds) },
      errors: { total: runs.reduce((n, r) => n + r.errors.total, 0) },
      readBack: finalBack,
      rss: { firstEndMiB: firstEnd, lastEndMiB: lastEnd, changePercent, tolerancePercent: RSS_TOLERANCE_PERCENT, flat },
      ok:
        runs.every((r) => r.ok) &&
        finalBack.verified === allAcked.length &&
        finalBack.missing === 0 &&
        finalBack.wrong === 0 &&
        (runs.length < 2 || flat),
    };
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((ok) => child!.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench's report (bench-results/ and `mem bench report`): one row per run, the checks as notes. */
export function toReport(r: ServerBenchResult): BenchReport {
  const o = r.options;
  return {
    bench: 'server',
    title: `Server under load (${o.connections} connections, ${o.runs} × ${o.durationSeconds} s, ${o.embedder} embedder)`,
    at: r.at,
    machine: machine(),
    table: {
      columns: [
        'run',
        'requests (store / search / get)',
        'requests/s',
        'p50 / p90 / p99 / max ms',
        'errors (conn / timeouts / non-2xx)',
        'get mismatches',
        'read back',
        'server RSS start / end / peak MiB',
        'result',
      ],
      rows: r.runs.map((x) => [
        x.run,
        `${x.requests.total} (${x.byOperation.store} / ${x.byOperation.search} / ${x.byOperation.get})`,
        x.requests.perSecond,
        `${x.latencyMs.p50} / ${x.latencyMs.p90} / ${x.latencyMs.p99} / ${x.latencyMs.max}`,
        `${x.errors.connection} / ${x.errors.timeouts} / ${x.errors.non2xx}`,
        x.getMismatches,
        `${x.readBack.verified} of ${x.readBack.acknowledged} (missing ${x.readBack.missing}, wrong ${x.readBack.wrong})`,
        `${x.rss.startMiB} / ${x.rss.endMiB} / ${x.rss.peakMiB}`,
        x.ok ? 'OK' : 'FAILED',
      ]),
    },
    chart: {
      title: 'Requests per second, per run',
      unit: 'req/s',
      note: `${o.connections} connections, store / search / get in turn`,
      bars: r.runs.map((x) => ({ label: `run ${x.run}`, value: x.requests.perSecond })),
    },
    notes: [
      `One server process on a SQLite file, ${o.embedder} embedder, API key auth, ${o.seed} memories seeded; server and load generator share the machine; RSS is the server's, sampled every 250 ms.`,
      `All runs: ${r.requests.total} requests, ${r.requests.perSecond} requests/s, ${r.errors.total} errors.`,
      `Every acknowledged write read back after the last run: ${r.readBack.verified} of ${r.readBack.acknowledged} (missing ${r.readBack.missing}, wrong ${r.readBack.wrong}).`,
      `Server RSS at the end of run 1 → run ${r.runs.length}: ${r.rss.firstEndMiB} → ${r.rss.lastEndMiB} MiB (${r.rss.changePercent >= 0 ? '+' : ''}${r.rss.changePercent} %; flat means at most +${r.rss.tolerancePercent} %): ${r.rss.flat ? 'flat' : 'NOT flat'}.`,
      `Result: ${r.ok ? 'OK' : 'FAILED'}.`,
    ],
    data: r,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'serve-child': { type: 'boolean' },
      db: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      seed: { type: 'string' },
      embedder: { type: 'string' },
      runs: { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
    },
  });
  if (values['serve-child']) return serveChild({ db: values.db!, embedder: values.embedder ?? 'hashing' });
  const embedder = values.embedder ?? 'hashing';
  if (embedder !== 'hashing' && embedder !== 'local') throw new Error('--embedder must be hashing or local');
  const options: ServerBenchOptions = {
    durationSeconds: Number(values.duration ?? 20),
    connections: Number(values.connections ?? 16),
    seed: Number(values.seed ?? 500),
    embedder,
    runs: Number(values.runs ?? 1),
  };
  for (const [flag, v] of Object.entries({
    duration: options.durationSeconds,
    connections: options.connections,
    runs: options.runs,
  })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${flag} must be a whole number of at least 1`);
  }
  if (!Number.isInteger(options.seed) || options.seed < 1)
    throw new Error('--seed must be a whole number of at least 1');
  const result = await runServerBench(options, values.json ? () => {} : (s) => process.stderr.write(`${s}\n`));
  const report = toReport(result);
  const files = writeReport(report, values.out);
  process.stderr.write(`report: ${files.join(', ')}\n`);
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : renderMarkdown(report));
  if (!result.ok) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
