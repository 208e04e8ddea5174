/**
 * Crash safety and concurrency (issue 9, docs/safety.md): the long runs of the tests in packages/store-*\/test/crash*.test.ts
 * and concurrency.test.ts, on the harness of @mem/testkit (`crash/`).
 *   - Crash: a writer process is killed with SIGKILL at a random point, `--kills` times per store and workload
 *     (knowledge store/edit/move on SQLite and PostgreSQL; transcript appends + compactions and notebook writes on
 *     Markdown, SQLite and PostgreSQL); after every kill the store is reopened and every acknowledged write checked.
 *   - Soak: `--processes` writers doing store, edit, move, delete, rate and search on one SQLite file and on one
 *     PostgreSQL schema for `--soak` seconds; the final state must equal the log of acknowledged operations.
 * PostgreSQL runs when MEM_BENCH_POSTGRES_URL (or --postgres-url) names a server.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/crash.ts [--kills 200] [--soak 20]
 *          [--stores sqlite,markdown,postgres] [--workloads knowledge,transcript,notebook] [--processes 8] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from '@mem/store-postgres';
import { createSqliteStore } from '@mem/store-sqlite';
import {
  bundleChild,
  type CrashReport,
  type CrashWorkload,
  crashCampaign,
  type HarnessTarget,
  type SoakReport,
  soak,
} from '@mem/testkit/internal';
import { openBenchPorts } from './crash-ports.js';
import { saveReport } from './report.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '200' },
    soak: { type: 'string', default: '20' },
    stores: { type: 'string' },
    workloads: { type: 'string', default: 'knowledge,transcript,notebook' },
    processes: { type: 'string', default: '8' },
    lanes: { type: 'string', default: '2' },
    'postgres-url': { type: 'string' },
    seed: { type: 'string' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

const kills = Number(values.kills);
const soakSeconds = Number(values.soak);
const processes = Number(values.processes);
const lanes = Number(values.lanes);
const seed = values.seed === undefined ? undefined : Number(values.seed);
const postgresUrl = values['postgres-url'] ?? process.env.MEM_BENCH_POSTGRES_URL;
const stores = (values.stores ?? `sqlite,markdown${postgresUrl ? ',postgres' : ''}`).split(',');
const workloads = values.workloads!.split(',') as CrashWorkload[];
for (const w of workloads)
  if (!['knowledge', 'transcript', 'notebook'].includes(w)) throw new Error(`unknown workload "${w}"`);
if (stores.includes('postgres') && !postgresUrl)
  throw new Error(
    '--stores postgres needs MEM_BENCH_POSTGRES_URL or --postgres-url (a server several processes share).',
  );

/** Markdown keeps no knowledge memories; each store's writers get time for a few operations before most kills. */
const SUPPORTS: Record<string, CrashWorkload[]> = {
  sqlite: ['knowledge', 'transcript', 'notebook'],
  markdown: ['transcript', 'notebook'],
  postgres: ['knowledge', 'transcript', 'notebook'],
};
const MAX_DELAY_MS: Record<string, number> = { sqlite: 400, markdown: 600, postgres: 800 };

const log = (line: string) => process.stderr.write(`${line}\n`);
const program = await bundleChild(fileURLToPath(new URL('./crash-child.ts', import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), 'mem-bench-crash-'));
const admin = postgresUrl ? createClient(postgresUrl, { max: 1 }) : undefined;
const schemas: string[] = [];

function target(store: string, name: string): HarnessTarget {
  if (store === 'sqlite') return { store, path: join(dir, `${name}.db`) };
  if (store === 'markdown') return { store, root: join(dir, `md-${name}`) };
  const schema = `mem_bench_${name}_${process.pid}`;
  schemas.push(schema);
  return { store, url: postgresUrl!, schema };
}

/** SQLite's own page, index and foreign-key checks on the file the writers left. */
function sqliteIntegrity(path: string): string {
  const store = createSqliteStore({ path });
  try {
    const ok = store.db.pragma('integrity_check', { simple: true });
    const orphans = (store.db.pragma('foreign_key_check') as unknown[]).length;
    return ok === 'ok' && orphans === 0 ? 'ok' : `${String(ok)}, ${orphans} orphan rows`;
  } finally {
    void store.close();
  }
}

interface CrashRow extends Partial<CrashReport> {
  store: string;
  workload: CrashWorkload;
  integrity?: string;
  error?: string;
}
interface SoakRow extends Partial<SoakReport> {
  store: string;
  error?: string;
}

const crashes: CrashRow[] = [];
const soaks: SoakRow[] = [];
let failed = false;

try {
  for (const store of stores) {
    for (const workload of workloads.filter((w) => SUPPORTS[store]?.includes(w))) {
      const t = target(store, `crash_${workload}`);
      log(`crash: ${store} ${workload}, ${kills} kills…`);
      try {
        const report = await crashCampaign({
          program,
          open: openBenchPorts,
          target: t,
          workload,
          kills,
          lanes,
          maxDelayMs: MAX_DELAY_MS[store]!,
          ...(seed === undefined ? {} : { seed }),
          progress: (done, r) => {
            if (done % 25 === 0) log(`  ${store} ${workload}: ${done}/${kills} kills, ${r.acked} acked`);
          },
        });
        const row: CrashRow = { store, ...report };
        if (store === 'sqlite') {
          row.integrity = sqliteIntegrity(String(t.path));
          if (row.integrity !== 'ok') failed = true;
        }
        crashes.push(row);
      } catch (error) {
        failed = true;
        crashes.push({ store, workload, error: error instanceof Error ? error.message : String(error) });
        log(`  FAILED: ${crashes.at(-1)!.error}`);
      }
    }
  }
  if (soakSeconds > 0) {
    for (const store of stores.filter((s) => s !== 'markdown')) {
      log(`soak: ${store}, ${processes} processes for ${soakSeconds} s…`);
      try {
        const t = target(store, 'soak');
        const report = await soak({
          program,
          open: openBenchPorts,
          target: t,
          processes,
          durationMs: soakSeconds * 1000,
          ...(seed === undefined ? {} : { seed }),
        });
        soaks.push({ store, ...report });
        if (store === 'sqlite' && sqliteIntegrity(String(t.path)) !== 'ok') failed = true;
      } catch (error) {
        failed = true;
        soaks.push({ store, error: error instanceof Error ? error.message : String(error) });
        log(`  FAILED: ${soaks.at(-1)!.error}`);
      }
    }
  }
} finally {
  program.dispose();
  rmSync(dir, { recursive: true, force: true });
  if (admin) {
    for (const schema of schemas) await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end({ timeout: 5 });
  }
}

const total = (r: Record<string, number> | undefined) => Object.values(r ?? {}).reduce((a, b) => a + b, 0);
const rows: (string | number | null)[][] = [
  ...crashes.map((c) => [
    `crash ${c.store}`,
    c.workload,
    c.kills ?? null,
    c.acked ?? null,
    c.error ? 'FAILED' : `${c.acked} of ${c.acked}`,
    c.inFlightCommitted === undefined ? null : `${c.inFlightCommitted} / ${c.inFlightLost}`,
    c.error
      ? c.error.slice(0, 200)
      : `reopened after every kill${c.integrity ? `, integrity_check ${c.integrity}` : ''}`,
    c.ms === undefined ? null : Math.round(c.ms / 1000),
  ]),
  ...soaks.map((s) => [
    `soak ${s.store}`,
    `${s.processes ?? processes} processes × ${soakSeconds} s`,
    null,
    total(s.acked) || null,
    s.error ? 'FAILED' : `${s.documents} documents equal to the log`,
    s.refused
      ? Object.entries(s.refused)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')
      : null,
    s.error
      ? s.error.slice(0, 200)
      : Object.entries(s.acked ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
    s.ms === undefined ? null : Math.round(s.ms / 1000),
  ]),
];

saveReport(
  {
    bench: 'crash',
    title: 'Crash safety and concurrency',
    table: {
      columns: [
        'run',
        'workload',
        'SIGKILLs',
        'acknowledged ops',
        'found afterwards',
        'in flight committed / not (crash) · refusals (soak)',
        'checks',
        'seconds',
      ],
      rows,
    },
    chart: {
      title: 'Acknowledged operations checked',
      unit: 'ops',
      bars: [
        ...crashes.map((c) => ({ label: `${c.store} ${c.workload}`, value: c.acked ?? 0 })),
        ...soaks.map((s) => ({ label: `soak ${s.store}`, value: total(s.acked) })),
      ],
    },
    notes: [
      'Crash: after every SIGKILL a fresh instance opens the store; every acknowledged write must be found (an edit at its acknowledged version, or the next one when that was in flight), nothing unacknowledged may appear, and the indexes must agree (a search finds the newest documents).',
      'Soak: every process logs what it acknowledged; afterwards each document must equal its log (version = number of acknowledged writes, no two writes acknowledged with the same version, content and key of the last, ratings counted), no duplicate key, and no error but CONFLICT, KEY_TAKEN, NOT_FOUND or ALREADY_RATED reaches a caller (no SQLITE_BUSY).',
    ],
    data: { kills, soakSeconds, processes, lanes, crashes, soaks },
  },
  values.out,
);

if (values.json) console.log(JSON.stringify({ crashes, soaks }));
else {
  for (const c of crashes)
    console.log(
      c.error
        ? `crash ${c.store} ${c.workload}: FAILED ${c.error}`
        : `crash ${c.store} ${c.workload}: ${c.kills} SIGKILLs survived, ${c.acked} acknowledged ops all found (in flight: ${c.inFlightCommitted} committed, ${c.inFlightLost} not), ${Math.round(c.ms! / 1000)} s${c.integrity ? `, integrity ${c.integrity}` : ''}`,
    );
  for (const s of soaks)
    console.log(
      s.error
        ? `soak ${s.store}: FAILED ${s.error}`
        : `soak ${s.store}: ${s.processes} processes × ${soakSeconds} s, ${total(s.acked)} acknowledged ops (${JSON.stringify(s.acked)}), refused ${JSON.stringify(s.refused)}, ${s.documents} documents equal to the log, nothing lost`,
    );
}
process.exit(failed ? 1 : 0);
