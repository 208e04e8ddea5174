/**
 * BENCH.md §4 — the server under load: autocannon against a server on loopback (its own process, SQLite file,
 * API keys on), a fixed number of connections each alternating memory-store and memory-search for N seconds.
 * Reports requests/s, latency p50/p99 and errors (which must be 0), then reads back every acknowledged write.
 *
 *   node --conditions=dev-source --import tsx apps/server/src/bench.ts [--duration 20] [--connections 16]
 *        [--seed 500] [--embedder hashing|local] [--json] [--out bench-results]
 *
 * Writes `server-<time>.json` and `.md` under bench-results/ (git-ignored).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

export interface ServerBenchOptions {
  durationSeconds: number;
  connections: number;
  /** Memories stored before the run, so that search has something to rank. */
  seed: number;
  embedder: 'hashing' | 'local';
}

export interface ServerBenchResult {
  bench: 'server';
  at: string;
  options: ServerBenchOptions;
  machine: { cpus: number; node: string };
  requests: { total: number; perSecond: number };
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  byOperation: { store: number; search: number };
  errors: { connection: number; timeouts: number; non2xx: number; total: number };
  statusCodes: Record<string, number>;
  readBack: { acknowledged: number; verified: number; missing: number; wrong: number };
  ok: boolean;
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

/** A small deterministic PRNG (mulberry32), so two runs send the same texts. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(r: () => number, n: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  return `The ${pick(SERVICES)} service ${pick(VERBS)} ${pick(OBJECTS)} ${pick(WHEN)} (note ${n}).`;
}

// ---------- the server process ----------

async function serveChild(args: { db: string; embedder: string }): Promise<void> {
  const [{ createStack }, { createSqliteStore }, { KeyStore }, { startServer }, { jsonLogger }] = await Promise.all([
    import('@mem/core'),
    import('@mem/store-sqlite'),
    import('./keys.js'),
    import('./server.js'),
    import('./log.js'),
  ]);
  let embedder: import('@mem/core').Embedder;
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

    const seedRandom = rng(1);
    await pool(
      Array.from({ length: options.seed }, (_, i) => i),
      options.connections,
      async (i) => {
        const res = await fetch(`${url}/v1/memories`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ content: `Seed ${i}: ${sentence(seedRandom, i)}`, tags: ['seed'] }),
        });
        if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
      },
    );

    log(`running ${options.connections} connections for ${options.durationSeconds} s (store / search alternating)…`);
    const loadRandom = rng(2);
    let counter = 0;
    const acked: { id: string; content: string }[] = [];
    const byOperation = { store: 0, search: 0 };
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
            const content = `Run ${n}: ${sentence(loadRandom, n)}`;
            (context as { content?: string }).content = content;
            return { ...req, body: JSON.stringify({ content, tags: ['bench'] }) };
          },
          onResponse: (status, body, context) => {
            byOperation.store++;
            if (status === 201)
              acked.push({
                id: (JSON.parse(body) as { id: string }).id,
                content: (context as { content: string }).content,
              });
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
      ],
    });

    log(`read-back of ${acked.length} acknowledged writes…`);
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
    const readBack = { acknowledged: acked.length, verified, missing, wrong };
    return {
      bench: 'server',
      at: new Date().toISOString(),
      options,
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
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
      readBack,
      ok: errors.total === 0 && missing === 0 && wrong === 0 && verified === acked.length,
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

export function renderMarkdown(r: ServerBenchResult): string {
  return [
    `# mem bench server — ${r.at}`,
    '',
    `${r.options.connections} connections, ${r.options.durationSeconds} s, store/search alternating, SQLite file, ${r.options.embedder} embedder, API key auth; ${r.options.seed} memories seeded; ${r.machine.cpus} CPUs, Node ${r.machine.node}. Server and load generator share the machine.`,
    '',
    '| metric | value |',
    '|---|---|',
    `| requests | ${r.requests.total} (${r.byOperation.store} store, ${r.byOperation.search} search) |`,
    `| requests/s | ${r.requests.perSecond} |`,
    `| latency p50 / p90 / p99 / max (ms) | ${r.latencyMs.p50} / ${r.latencyMs.p90} / ${r.latencyMs.p99} / ${r.latencyMs.max} |`,
    `| errors (connection / timeouts / non-2xx) | ${r.errors.connection} / ${r.errors.timeouts} / ${r.errors.non2xx} |`,
    `| acknowledged writes read back | ${r.readBack.verified} of ${r.readBack.acknowledged} (missing ${r.readBack.missing}, wrong ${r.readBack.wrong}) |`,
    `| result | ${r.ok ? 'OK' : 'FAILED'} |`,
    '',
  ].join('\n');
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
  };
  const result = await runServerBench(options, values.json ? () => {} : (s) => process.stderr.write(`${s}\n`));
  const outDir = resolve(values.out ?? join(fileURLToPath(new URL('../../../', import.meta.url)), 'bench-results'));
  mkdirSync(outDir, { recursive: true });
  const stamp = result.at.replace(/[:.]/g, '-');
  writeFileSync(join(outDir, `server-${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(outDir, `server-${stamp}.md`), renderMarkdown(result));
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : renderMarkdown(result));
  if (!result.ok) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
