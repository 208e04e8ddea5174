import { parseArgs } from 'node:util';
import { MemError } from '@mem/core';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUTS } from '@mem/server';
import { type AttackOptions, log } from './attack-common.js';
import type { FairnessRun } from './attack-fairness.js';
import { fairness } from './attack-fairness.js';
import type { FloodRun } from './attack-flood.js';
import { flood } from './attack-flood.js';
import type { ReplicaRun } from './attack-replicas.js';
import { replicas } from './attack-replicas.js';
import type { SlowRun } from './attack-slow.js';
import { slowClients } from './attack-slow.js';
import { saveReport } from './report.js';

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
const opts: AttackOptions = {
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

// ---------------------------------------------------------------------------------------------------- the run

const result: {
  options: AttackOptions & { scenarios: Scenario[] };
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
    const r = await flood(opts, on);
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
    const r = await slowClients(opts, on);
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
    const r = await fairness(opts, fair);
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
    result.replicas = await replicas(opts, url);
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
