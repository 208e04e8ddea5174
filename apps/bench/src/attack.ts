/**
 * apps/bench/README.md — `mem bench attack`: the long runs of issue 15's attacks on a server on 127.0.0.1, each
 * measured with the protection on and off side by side in one run (the CI tests are apps/server/test/auth-attack,
 * fairness and replicas):
 *
 * - flood: `--flood-connections` connections send a known key id with a wrong secret while another key, from
 *   another address (127.0.0.2), makes requests one after another: the good requests' p50 / p95 and how many were
 *   served per second, with the auth-failure limiter on (the default) and off (`authFailures: false`).
 * - slow: `--slow` slow-loris sockets (headers trickled) and `--idle` idle sockets while a prober makes a normal
 *   request every 250 ms: how long until the server closes them, how many the connection cap refused at once, and
 *   the prober's latency, with the configured timeouts and cap (`--headers-timeout`, default the server's) and
 *   without them (Node's own defaults: headers 60 s, request 300 s, no cap).
 * - fairness: space A stores memories of `--large` paragraphs back to back while space B stores `--small` small
 *   memories, one every `--interval` ms; embedding is serial at `--embed-ms` per text (a local model on one core):
 *   B's p50 / p95 with the fair embedding queue (the default) and without it (`fairEmbedding: false`).
 * - replicas (only with MEM_BENCH_POSTGRES_URL): three `mem serve` processes on that database, `--writes` stores
 *   spread over them, every acknowledged write looked for on each replica, and the time until a key revoked
 *   through the CLI is refused by all three.
 *
 *   node --conditions=dev-source --import tsx apps/bench/src/attack.ts [--scenarios flood,slow,fairness,replicas]
 *        [--duration 10] [--flood-connections 16] [--slow 50] [--idle 1000] [--window 15] [--headers-timeout 10000]
 *        [--large 200] [--small 30] [--interval 100] [--embed-ms 2] [--writes 300] [--json] [--out bench-results]
 *
 * Writes `attack-<time>.json`, `.md` and `.svg` (the report format of apps/bench).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack, MemError, type Principal } from '@mem/core';
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_TIMEOUTS,
  KeyStore,
  type ServerOptions,
  silentLogger,
  startServer,
} from '@mem/server';
import {
  closedWithin,
  largeMemory,
  openSocket,
  rawRequest,
  type ServeProcess,
  serialEmbedder,
  slowLoris,
  startServeProcess,
} from '@mem/testkit/attack';
import { memDevBin } from './mem-command.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const SCENARIOS = ['flood', 'slow', 'fairness', 'replicas'] as const;
type Scenario = (typeof SCENARIOS)[number];

const spec = {
  options: {
    scenarios: { type: 'string', default: SCENARIOS.join(',') },
    duration: { type: 'string', default: '10' },
    'flood-connections': { type: 'string', default: '16' },
    slow: { type: 'string', default: '50' },
    idle: { type: 'string', default: '1000' },
    window: { type: 'string', default: '15' },
    'headers-timeout': { type: 'string', default: String(DEFAULT_TIMEOUTS.headersMs) },
    large: { type: 'string', default: '200' },
    small: { type: 'string', default: '30' },
    interval: { type: 'string', default: '100' },
    'embed-ms': { type: 'string', default: '2' },
    writes: { type: 'string', default: '300' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
} as const;

function fail(message: string): never {
  const error = new MemError('INVALID_INPUT', message);
  process.stderr.write(`${error.code}: ${error.message}\n`);
  process.exit(2);
}
function parseArguments() {
  try {
    return parseArgs(spec);
  } catch (e) {
    return fail(
      `${(e as Error).message}. Flags: ${Object.keys(spec.options)
        .map((o) => `--${o}`)
        .join(' ')}.`,
    );
  }
}
const { values } = parseArguments();

function whole(flag: string, min: number): number {
  const v = Number(values[flag as keyof typeof values]);
  if (!Number.isInteger(v) || v < min)
    fail(`--${flag} must be a whole number of at least ${min} (got "${values[flag as keyof typeof values]}").`);
  return v;
}
const scenarios = values.scenarios!.split(',').map((s) => s.trim()) as Scenario[];
for (const s of scenarios)
  if (!SCENARIOS.includes(s)) fail(`--scenarios: unknown scenario "${s}"; choose from ${SCENARIOS.join(', ')}.`);
const opts = {
  durationS: Number(values.duration),
  floodConnections: whole('flood-connections', 1),
  slow: whole('slow', 0),
  idle: whole('idle', 0),
  windowS: Number(values.window),
  headersTimeoutMs: whole('headers-timeout', 1),
  large: whole('large', 1),
  small: whole('small', 1),
  intervalMs: whole('interval', 0),
  embedMs: whole('embed-ms', 0),
  writes: whole('writes', 1),
};
for (const [flag, v] of [
  ['duration', opts.durationS],
  ['window', opts.windowS],
] as const)
  if (!(Number.isFinite(v) && v > 0)) fail(`--${flag} must be a number of seconds above 0 (got "${values[flag]}").`);

const log = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));
const stat = (xs: number[]) => ({
  n: xs.length,
  p50: xs.length ? round(percentile(xs, 50), 1) : null,
  p95: xs.length ? round(percentile(xs, 95), 1) : null,
  max: xs.length ? round(Math.max(...xs), 1) : null,
});
type Stat = ReturnType<typeof stat>;
const main: Principal = { space: 'default', agentId: 'main', role: 'worker' };

function server(options: Partial<ServerOptions>) {
  return startServer({
    stack: createStack({ knowledge: createInMemoryKnowledgeStore(), embedder: createHashingEmbedder() }),
    port: 0,
    defaultPrincipal: main,
    logger: silentLogger,
    closeStack: true,
    ...options,
  });
}

// ---------------------------------------------------------------------------------------------------- flood

interface FloodRun {
  variant: 'limiter on' | 'limiter off';
  /** The good client's requests with its key already verified (cached), and with a key used for the first time. */
  good: Stat & { perSecond: number; failed: number };
  firstUse: Stat & { failed: number };
  flood: { perSecond: number; statuses: Record<string, number>; failed: number };
}

/** Start the flood in a worker thread; `stop` ends it and resolves with what it counted. */
async function startFlood(url: string, key: string) {
  const worker = new Worker(new URL('./attack-flood.ts', import.meta.url), {
    workerData: { url, key, connections: opts.floodConnections },
  });
  const messages: { started?: boolean; statuses?: Record<string, number>; failed?: number }[] = [];
  let wake: (() => void) | undefined;
  worker.on('message', (m) => {
    messages.push(m);
    wake?.();
  });
  const errored = new Promise<never>((_, fail) => worker.once('error', fail));
  const next = () =>
    Promise.race([
      errored,
      new Promise<(typeof messages)[number]>((ok) => {
        const take = () => (messages.length ? ok(messages.shift()!) : (wake = take));
        take();
      }),
    ]);
  await next();
  return {
    async stop() {
      worker.postMessage('stop');
      const done = await next();
      await worker.terminate();
      return { statuses: done.statuses ?? {}, failed: done.failed ?? 0 };
    },
  };
}

async function flood(limiter: boolean): Promise<FloodRun> {
  const keys = KeyStore.open(':memory:');
  const target = (await keys.create({ space: 'acme', agentId: 'lead', role: 'lead' })).key;
  const good = (await keys.create({ space: 'acme', agentId: 'coder', role: 'worker' })).key;
  // Keys the good client uses once each during the flood: their first check needs scrypt, as the flood's do.
  const fresh: string[] = [];
  for (let i = 0; i < 20; i++)
    fresh.push((await keys.create({ space: 'acme', agentId: `new-${i}`, role: 'worker' })).key);
  const s = await server({ keys, rateLimit: false, ...(limiter ? {} : { authFailures: false }) });
  const stats = (key: string) =>
    rawRequest(s.url, 'GET', '/v1/stats', {
      headers: { authorization: `Bearer ${key}` },
      localAddress: '127.0.0.2',
      timeoutMs: 120_000,
    });
  try {
    if ((await stats(good)).status !== 200) throw new Error('the good key was refused before the flood');
    const attack = await startFlood(s.url, target);
    const goodMs: number[] = [];
    const firstMs: number[] = [];
    let goodFailed = 0;
    let firstFailed = 0;
    const t0 = performance.now();
    const end = t0 + opts.durationS * 1000;
    // Two good clients, each one request after another: one with its verified (cached) key, one with a key it never
    // used each time (while any is left). A request still waiting at the end counts when it answers.
    const client = async (next: () => string | undefined, ms: number[], onFail: () => void) => {
      for (let key = next(); key !== undefined && performance.now() < end; key = next()) {
        const t = performance.now();
        try {
          const r = await stats(key);
          if (r.status === 200) ms.push(performance.now() - t);
          else onFail();
        } catch {
          onFail();
        }
      }
    };
    await Promise.all([
      client(
        () => good,
        goodMs,
        () => void goodFailed++,
      ),
      client(
        () => fresh.pop(),
        firstMs,
        () => void firstFailed++,
      ),
    ]);
    const seconds = (performance.now() - t0) / 1000;
    const { statuses, failed } = await attack.stop();
    const floodTotal = Object.values(statuses).reduce((x, y) => x + y, 0);
    return {
      variant: limiter ? 'limiter on' : 'limiter off',
      good: { ...stat(goodMs), perSecond: round(goodMs.length / seconds, 1), failed: goodFailed },
      firstUse: { ...stat(firstMs), failed: firstFailed },
      flood: { perSecond: round(floodTotal / seconds, 1), statuses, failed },
    };
  } finally {
    await s.close();
    keys.close();
  }
}

// ---------------------------------------------------------------------------------------------------- slow clients

interface SlowRun {
  variant: 'timeouts on' | 'timeouts off';
  settings: { headersTimeoutMs: number; requestTimeoutMs: number; maxConnections: number | null };
  loris: Stat & { opened: number; openAtEnd: number; answered408: number };
  idle: Stat & { opened: number; openAtEnd: number; refusedAtOnce: number };
  probe: Stat & { failed: number };
}

async function slowClients(timeouts: boolean): Promise<SlowRun> {
  const settings = timeouts
    ? {
        headersTimeoutMs: opts.headersTimeoutMs,
        requestTimeoutMs: Math.max(opts.headersTimeoutMs, DEFAULT_TIMEOUTS.requestMs),
        maxConnections: DEFAULT_MAX_CONNECTIONS,
      }
    : // Node's own defaults, what the server ran with before issue 15: no connection cap.
      { headersTimeoutMs: 60_000, requestTimeoutMs: 300_000, maxConnections: null };
  const s = await server({
    open: true,
    headersTimeoutMs: settings.headersTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxConnections: settings.maxConnections ?? 1_000_000,
  });
  const windowMs = opts.windowS * 1000;
  const sockets: Socket[] = [];
  try {
    let probing = true;
    const probeMs: number[] = [];
    let probeFailed = 0;
    const prober = (async () => {
      while (probing) {
        const t = performance.now();
        try {
          const r = await rawRequest(s.url, 'GET', '/v1/stats', { timeoutMs: 5_000 });
          if (r.status === 200) probeMs.push(performance.now() - t);
          else probeFailed++;
        } catch {
          probeFailed++;
        }
        await sleep(250);
      }
    })();
    const lorises = [];
    for (let i = 0; i < opts.slow; i++) lorises.push(await slowLoris(s.url, 200));
    const idles: Socket[] = [];
    for (let i = 0; i < opts.idle; i++) {
      try {
        idles.push(await openSocket(s.url));
      } catch {
        // refused before connecting: counted as refused at once below (not in `idles`)
      }
    }
    sockets.push(...lorises.map((l) => l.socket), ...idles);
    const closeTimes = async (list: Socket[]) =>
      Promise.all(list.map((socket) => closedWithin(socket, windowMs).catch(() => null)));
    const [lorisMs, idleMs] = await Promise.all([closeTimes(lorises.map((l) => l.socket)), closeTimes(idles)]);
    probing = false;
    await prober;
    for (const l of lorises) l.stop();
    const closed = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
    // Dropped by the connection cap: closed at once, well before any timeout could cut them off.
    const atOnce = Math.min(1000, settings.headersTimeoutMs / 2);
    return {
      variant: timeouts ? 'timeouts on' : 'timeouts off',
      settings,
      loris: {
        ...stat(closed(lorisMs)),
        opened: lorises.length,
        openAtEnd: lorisMs.filter((x) => x === null).length,
        answered408: lorises.filter((l) => /^HTTP\/1\.1 408 /.test(l.answer())).length,
      },
      idle: {
        // The close times of the sockets the server accepted (the cap's refusals are counted apart).
        ...stat(closed(idleMs).filter((x) => x >= atOnce)),
        opened: opts.idle,
        openAtEnd: idleMs.filter((x) => x === null).length,
        refusedAtOnce: opts.idle - idles.length + closed(idleMs).filter((x) => x < atOnce).length,
      },
      probe: { ...stat(probeMs), failed: probeFailed },
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    await s.close();
  }
}

// ---------------------------------------------------------------------------------------------------- fairness

interface FairnessRun {
  variant: 'fair queue' | 'no fair queue';
  small: Stat & { failed: number };
  large: Stat & { stored: number; chunks: number };
}

async function fairness(fair: boolean): Promise<FairnessRun> {
  const keys = KeyStore.open(':memory:');
  const a = (await keys.create({ space: 'tenant-a', agentId: 'bulk', role: 'worker' })).key;
  const b = (await keys.create({ space: 'tenant-b', agentId: 'small', role: 'worker' })).key;
  const embedder = serialEmbedder(createHashingEmbedder(), () => sleep(opts.embedMs));
  const stack = createStack({ knowledge: createInMemoryKnowledgeStore(), embedder });
  const s = await server({
    stack,
    keys,
    rateLimit: false,
    bodyLimitBytes: 8 * 1024 * 1024,
    ...(fair ? {} : { fairEmbedding: false }),
  });
  const store = (key: string, content: string) =>
    rawRequest(s.url, 'POST', '/v1/memories', {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
      timeoutMs: 600_000,
    });
  try {
    let bulkRunning = true;
    const largeMs: number[] = [];
    let chunks = 0;
    const bulk = (async () => {
      for (let i = 0; bulkRunning; i++) {
        const t = performance.now();
        const r = await store(a, largeMemory(opts.large, `.${i}`));
        if (r.status !== 201) throw new Error(`the large store failed: ${r.status} ${r.text}`);
        largeMs.push(performance.now() - t);
        chunks = r.body.chunkCount;
      }
    })();
    const deadline = performance.now() + 60_000;
    while (embedder.embedded === 0) {
      if (performance.now() > deadline) throw new Error('the large store never reached the embedder');
      await sleep(5);
    }
    const smallMs: number[] = [];
    let smallFailed = 0;
    const smalls: Promise<void>[] = [];
    for (let i = 0; i < opts.small; i++) {
      const t = performance.now();
      smalls.push(
        store(b, `Standup moved to 10:${String(i % 60).padStart(2, '0')} on day ${i}.`).then(
          (r) => void (r.status === 201 ? smallMs.push(performance.now() - t) : smallFailed++),
          () => void smallFailed++,
        ),
      );
      await sleep(opts.intervalMs);
    }
    await Promise.all(smalls);
    bulkRunning = false;
    await bulk;
    return {
      variant: fair ? 'fair queue' : 'no fair queue',
      small: { ...stat(smallMs), failed: smallFailed },
      large: { ...stat(largeMs), stored: largeMs.length, chunks },
    };
  } finally {
    await s.close();
    keys.close();
  }
}

// ---------------------------------------------------------------------------------------------------- replicas

interface ReplicaRun {
  writes: Stat & { acknowledged: number; failed: number; perSecond: number };
  /** Per replica: acknowledged writes found exactly once in its export. */
  foundOnce: number[];
  revokedRefusedByAllMs: number;
}

const memCommand = (args: string[]) => ({ command: process.execPath, args: [memDevBin(), ...args] });

async function replicas(url: string): Promise<ReplicaRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-replicas-'));
  const env = { ...process.env, MEM_EMBEDDER: 'hashing', MEM_STORE: 'postgres', MEM_DB: url, MEM_WORKSPACE: dir };
  const mem = async (args: string[]) =>
    (await promisify(execFile)(process.execPath, [memDevBin(), ...args], { env })).stdout;
  const createKey = async (space: string, agent: string) =>
    JSON.parse(await mem(['keys', 'create', '--space', space, '--agent', agent, '--role', 'worker', '--json'])) as {
      key: string;
      id: string;
    };
  const servers: ServeProcess[] = [];
  try {
    const run = Date.now().toString(36);
    const writer = await createKey(`bench-${run}`, 'writer');
    for (let i = 0; i < 3; i++)
      servers.push(
        await startServeProcess(
          memCommand(['serve', '--port', '0', '--json', '--rate-limit', '100000', '--rate-burst', '100000']),
          env,
        ),
      );
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });
    const acked: string[] = [];
    const storeMs: number[] = [];
    let failed = 0;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < opts.writes; i = next++) {
          const content = `replica bench note ${i} of run ${run}: deploy window ${i * 7}`;
          const t = performance.now();
          try {
            const r = await rawRequest(servers[i % 3]!.url, 'POST', '/v1/memories', {
              headers: { ...auth(writer.key), 'content-type': 'application/json' },
              body: JSON.stringify({ content }),
              timeoutMs: 60_000,
            });
            if (r.status === 201) {
              acked.push(content);
              storeMs.push(performance.now() - t);
            } else failed++;
          } catch {
            failed++;
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const foundOnce: number[] = [];
    for (const r of servers) {
      const exported = await rawRequest(r.url, 'GET', '/v1/export', { headers: auth(writer.key), timeoutMs: 120_000 });
      const counts = new Map<string, number>();
      for (const line of exported.text.split('\n')) {
        if (!line.trim()) continue;
        const content = (JSON.parse(line) as { content?: string }).content;
        if (content) counts.set(content, (counts.get(content) ?? 0) + 1);
      }
      foundOnce.push(acked.filter((c) => counts.get(c) === 1).length);
    }
    const temp = await createKey(`bench-${run}`, 'temp');
    const whoami = (r: ServeProcess) => rawRequest(r.url, 'GET', '/v1/whoami', { headers: auth(temp.key) });
    for (const r of servers)
      if ((await whoami(r)).status !== 200) throw new Error('a fresh key was refused by a replica');
    await mem(['keys', 'revoke', temp.id]);
    const revokedAt = performance.now();
    const refused = new Set<number>();
    while (refused.size < servers.length) {
      if (performance.now() - revokedAt > 60_000) throw new Error('a revoked key was still accepted after 60 s');
      for (const [i, r] of servers.entries()) if (!refused.has(i) && (await whoami(r)).status === 401) refused.add(i);
    }
    return {
      writes: {
        ...stat(storeMs),
        acknowledged: acked.length,
        failed,
        perSecond: round(acked.length / seconds, 1),
      },
      foundOnce,
      revokedRefusedByAllMs: round(performance.now() - revokedAt, 0),
    };
  } finally {
    await Promise.all(servers.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------- the run

const result: {
  options: typeof opts & { scenarios: Scenario[] };
  flood?: FloodRun[];
  slow?: SlowRun[];
  fairness?: FairnessRun[];
  replicas?: ReplicaRun | { skipped: string };
} = { options: { ...opts, scenarios } };

if (scenarios.includes('flood')) {
  result.flood = [];
  for (const on of [true, false]) {
    log(
      `flood: ${opts.floodConnections} wrong-secret connections for ${opts.durationS} s, limiter ${on ? 'on' : 'off'}…`,
    );
    const r = await flood(on);
    result.flood.push(r);
    log(`  first use of a key: p50 ${r.firstUse.p50} ms p95 ${r.firstUse.p95} ms (${r.firstUse.n})`);
    log(
      `  good key: ${r.good.n} answers (${r.good.perSecond}/s), p50 ${r.good.p50} ms p95 ${r.good.p95} ms; flood ${r.flood.perSecond} req/s ${JSON.stringify(r.flood.statuses)}`,
    );
  }
}
if (scenarios.includes('slow')) {
  result.slow = [];
  for (const on of [true, false]) {
    log(
      `slow: ${opts.slow} slow-loris + ${opts.idle} idle sockets for up to ${opts.windowS} s, timeouts ${on ? 'on' : 'off'}…`,
    );
    const r = await slowClients(on);
    result.slow.push(r);
    log(
      `  loris closed p50 ${r.loris.p50} ms (${r.loris.openAtEnd} open at the end); idle closed p50 ${r.idle.p50} ms, ${r.idle.refusedAtOnce} refused at once, ${r.idle.openAtEnd} open; probe p50 ${r.probe.p50} ms, ${r.probe.failed} failed`,
    );
  }
}
if (scenarios.includes('fairness')) {
  result.fairness = [];
  for (const fair of [true, false]) {
    log(
      `fairness: ${opts.small} small stores in B while A stores ${opts.large}-paragraph memories, ${fair ? 'fair queue' : 'no fair queue'}…`,
    );
    const r = await fairness(fair);
    result.fairness.push(r);
    log(
      `  B p50 ${r.small.p50} ms p95 ${r.small.p95} ms; A stored ${r.large.stored} of ${r.large.chunks} chunks (p50 ${r.large.p50} ms)`,
    );
  }
}
if (scenarios.includes('replicas')) {
  const url = process.env.MEM_BENCH_POSTGRES_URL;
  if (!url) {
    result.replicas = { skipped: 'replicas: skipped (set MEM_BENCH_POSTGRES_URL to a PostgreSQL database to run it)' };
    log(result.replicas.skipped);
  } else {
    log(`replicas: three mem serve on one PostgreSQL, ${opts.writes} writes…`);
    result.replicas = await replicas(url);
    log(`  ${JSON.stringify(result.replicas)}`);
  }
}

type Row = (string | number | null)[];
const rows: Row[] = [];
for (const r of result.flood ?? []) {
  rows.push([
    'flood',
    r.variant,
    'good key',
    r.good.p50,
    r.good.p95,
    r.good.perSecond,
    `flood ${r.flood.perSecond} req/s: ${Object.entries(r.flood.statuses)
      .map(([k, v]) => `${v}×${k}`)
      .join(', ')}; good failed ${r.good.failed}`,
  ]);
  rows.push([
    'flood',
    r.variant,
    'key used for the first time',
    r.firstUse.p50,
    r.firstUse.p95,
    null,
    `${r.firstUse.n} answered, ${r.firstUse.failed} failed`,
  ]);
}
for (const r of result.slow ?? [])
  rows.push([
    'slow clients',
    r.variant,
    'normal request',
    r.probe.p50,
    r.probe.p95,
    null,
    `loris closed after p50 ${r.loris.p50 ?? '—'} ms (${r.loris.answered408} got 408, ${r.loris.openAtEnd} of ${r.loris.opened} open after ${opts.windowS} s); idle closed after p50 ${r.idle.p50 ?? '—'} ms (${r.idle.refusedAtOnce} refused at once, ${r.idle.openAtEnd} of ${r.idle.opened} open); normal requests failed ${r.probe.failed} of ${r.probe.n + r.probe.failed}`,
  ]);
for (const r of result.fairness ?? [])
  rows.push([
    'fairness',
    r.variant,
    "B's small store",
    r.small.p50,
    r.small.p95,
    null,
    `A stored ${r.large.stored} memories of ${r.large.chunks} chunks (p50 ${r.large.p50} ms); B failed ${r.small.failed}`,
  ]);
if (result.replicas && 'skipped' in result.replicas)
  rows.push(['replicas', 'skipped', null, null, null, null, result.replicas.skipped]);
else if (result.replicas) {
  const r = result.replicas;
  rows.push([
    'replicas',
    '3 × mem serve',
    'store',
    r.writes.p50,
    r.writes.p95,
    r.writes.perSecond,
    `${r.writes.acknowledged} acknowledged (${r.writes.failed} failed), found once per replica: ${r.foundOnce.join(' / ')}; revoked key refused by all after ${r.revokedRefusedByAllMs} ms`,
  ]);
}

saveReport(
  {
    bench: 'attack',
    title: 'Attacks on mem serve, protection on vs off',
    table: { columns: ['scenario', 'variant', 'measured', 'p50 ms', 'p95 ms', 'served/s', 'detail'], rows },
    chart: {
      title: 'p95 of the requests the attack should not hurt',
      unit: 'ms',
      note: 'lower is better; protection on vs off in one run',
      bars: rows
        .filter((r) => typeof r[4] === 'number')
        .map((r) => ({ label: `${r[0]}: ${r[1]}`, value: r[4] as number })),
    },
    notes: [
      `flood: ${opts.floodConnections} connections from 127.0.0.1 send a known key id with a wrong secret for ${opts.durationS} s; the attack loops run in a worker thread (their own event loop); two good clients ask GET /v1/stats from 127.0.0.2, each one request after another: one with its verified (cached) key, one with a key it never used each time (up to 20; its check needs scrypt like the flood's). Off = authFailures: false.`,
      `slow clients: ${opts.slow} slow-loris sockets (a header byte every 200 ms) and ${opts.idle} idle sockets, watched for ${opts.windowS} s; a normal GET /v1/stats every 250 ms (5 s timeout). On = headers timeout ${opts.headersTimeoutMs} ms, request timeout, cap ${DEFAULT_MAX_CONNECTIONS}; off = Node's defaults (60 s / 300 s, no cap).`,
      `fairness: serial embedder at ${opts.embedMs} ms per text; A stores ${opts.large}-paragraph memories back to back, B ${opts.small} small ones, one every ${opts.intervalMs} ms. Off = fairEmbedding: false.`,
      'replicas: three mem serve processes (hashing embedder) on MEM_BENCH_POSTGRES_URL, writes spread round robin by 8 clients.',
    ],
    data: result,
  },
  values.out,
);
if (values.json) console.log(JSON.stringify(result));
