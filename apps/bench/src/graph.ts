/**
 * The memory graph at scale (apps/bench/README.md, issue 34): `--entities` entities and `--relations` relations
 * written through the graph service (1,000 per call, names resolved as every write resolves them), then, over
 * `--queries` random entities: a 2-hop neighbourhood, the resolution of a new entity (create_entities with one new
 * name: the lookup and the write), open_nodes of a known name, and search_nodes of one of its words. Per store: ingest
 * rate, p50 / p95 of each, and the file size. `postgres` needs MEM_BENCH_POSTGRES_URL.
 *
 *   node --conditions=dev-source --import tsx apps/bench/src/graph.ts [--entities 100000] [--relations 500000]
 *        [--store sqlite,postgres] [--queries 200] [--json] [--out bench-results]
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createStack, type Principal, type Stack } from '@mem/core';
import { createPostgresStores } from '@mem/store-postgres';
import { createSqliteStores } from '@mem/store-sqlite';
import { resolutionScores } from './graph-resolution.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    entities: { type: 'string', default: '100000' },
    relations: { type: 'string', default: '500000' },
    store: { type: 'string', default: 'sqlite,postgres' },
    queries: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const log = (s: string) => process.stderr.write(`${s}\n`);
const whole = (flag: string, text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    log(`INVALID_INPUT: --${flag} takes a positive whole number, got "${text}"`);
    process.exit(2);
  }
  return n;
};
const N = whole('entities', values.entities!);
const R = whole('relations', values.relations!);
const Q = whole('queries', values.queries!);
const stores = values.store!.split(',').map((s) => s.trim());
for (const s of stores) {
  if (s !== 'sqlite' && s !== 'postgres') {
    log(`INVALID_INPUT: --store takes sqlite and postgres, got "${s}"`);
    process.exit(2);
  }
}

const me: Principal = { space: 'bench', agentId: 'graph-bench', role: 'worker' };
const TYPES = ['person', 'organization', 'place', 'project', 'product'];
const RELATIONS = ['works_at', 'knows', 'located_in', 'manages', 'uses', 'owns', 'member_of', 'reports_to'];
/** Seeded random numbers (mulberry32), so every store gets the same graph. */
function random(seed: number) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = Math.imul(t ^ (t >>> 15), 1 | t);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const nameOf = (i: number) => `Entity ${i.toString(36)} ${['Alpha', 'Beta', 'Gamma', 'Delta', 'Omega'][i % 5]}`;

interface Row {
  store: string;
  entities: number;
  relations: number;
  ingest_s: number;
  entities_per_s: number;
  relations_per_s: number;
  neighbours2_ms: { p50: number; p95: number };
  resolve_new_ms: { p50: number; p95: number };
  open_ms: { p50: number; p95: number };
  search_ms: { p50: number; p95: number };
  mean_2hop_entities: number;
  disk_mb: number | null;
}

async function timed(runs: number, work: (i: number) => Promise<unknown>) {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await work(i);
    ms.push(performance.now() - t0);
  }
  return { p50: round(percentile(ms, 50), 2), p95: round(percentile(ms, 95), 2) };
}

async function run(store: string): Promise<Row | { store: string; skipped: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-graph-'));
  let stack: Stack;
  const schema = `bench_graph_${Date.now().toString(36)}`;
  if (store === 'postgres') {
    const url = process.env.MEM_BENCH_POSTGRES_URL;
    if (!url) return { store, skipped: 'set MEM_BENCH_POSTGRES_URL (tooling/postgres-start prints it)' };
    stack = createStack({ stores: await createPostgresStores({ url, schema }) });
  } else stack = createStack({ stores: createSqliteStores({ path: join(dir, 'mem.db') }) });
  try {
    const graph = stack.service('graph');
    const rnd = random(34);
    const t0 = performance.now();
    for (let i = 0; i < N; i += 1000) {
      const entities = [];
      for (let j = i; j < Math.min(N, i + 1000); j++) {
        entities.push({
          name: nameOf(j),
          entityType: TYPES[j % TYPES.length]!,
          observations: [`Observation ${j} about ${nameOf(j)}`],
        });
      }
      await graph.createEntities(me, { entities });
    }
    const tEntities = performance.now();
    for (let i = 0; i < R; i += 1000) {
      const relations = [];
      for (let j = i; j < Math.min(R, i + 1000); j++) {
        relations.push({
          from: nameOf(Math.floor(rnd() * N)),
          to: nameOf(Math.floor(rnd() * N)),
          relationType: RELATIONS[Math.floor(rnd() * RELATIONS.length)]!,
        });
      }
      await graph.createRelations(me, { relations });
      if ((i / 1000) % 50 === 0) log(`${store}: ${i} relations`);
    }
    const tRelations = performance.now();
    const pick = random(99);
    let reached = 0;
    const neighbours2 = await timed(Q, async () => {
      const r = await graph.neighbours(me, { name: nameOf(Math.floor(pick() * N)), hops: 2 });
      reached += r.entities.length;
    });
    const resolveNew = await timed(Q, (i) =>
      graph.createEntities(me, { entities: [{ name: `New entity ${i}`, entityType: 'person', observations: [] }] }),
    );
    const open = await timed(Q, () => graph.openNodes(me, { names: [nameOf(Math.floor(pick() * N)).toUpperCase()] }));
    const search = await timed(Q, () => graph.searchNodes(me, { query: Math.floor(pick() * N).toString(36) }));
    // The SQLite file with its WAL (PostgreSQL: not measured here).
    const disk =
      store === 'sqlite' ? round(readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0) / 1e6, 1) : null;
    const ingest = (tRelations - t0) / 1000;
    return {
      store,
      entities: N,
      relations: R,
      ingest_s: round(ingest, 1),
      entities_per_s: Math.round(N / ((tEntities - t0) / 1000)),
      relations_per_s: Math.round(R / ((tRelations - tEntities) / 1000)),
      neighbours2_ms: neighbours2,
      resolve_new_ms: resolveNew,
      open_ms: open,
      search_ms: search,
      mean_2hop_entities: Math.round(reached / Q),
      disk_mb: disk,
    };
  } finally {
    if (store === 'postgres') {
      const { default: postgres } = await import('postgres');
      const sql = postgres(process.env.MEM_BENCH_POSTGRES_URL!, { max: 1, onnotice: () => {} });
      await stack.close();
      await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await sql.end();
    } else await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

log('graph bench: entity resolution on the test set…');
const resolution = await resolutionScores();
const pr = (x: {
  precision: number;
  recall: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
}) =>
  `precision ${x.precision}, recall ${x.recall} (${x.truePositives} joined right, ${x.falsePositives} wrongly, ${x.falseNegatives} missed)`;
const rows: (Row | { store: string; skipped: string })[] = [];
for (const s of stores) {
  log(`graph bench: ${s}, ${N} entities, ${R} relations…`);
  rows.push(await run(s));
}
const done = rows.filter((r): r is Row => 'entities' in r);
const ms = (x: { p50: number; p95: number }) => `${x.p50} / ${x.p95}`;
saveReport(
  {
    bench: 'graph',
    title: `The memory graph at ${N} entities and ${R} relations`,
    table: {
      columns: [
        'store',
        'ingest entities/s',
        'ingest relations/s',
        '2-hop neighbours p50 / p95 ms',
        'resolve + write a new entity p50 / p95 ms',
        'open_nodes p50 / p95 ms',
        'search_nodes p50 / p95 ms',
        'entities within 2 hops',
        'disk MB',
      ],
      rows: done.map((r) => [
        r.store,
        r.entities_per_s,
        r.relations_per_s,
        ms(r.neighbours2_ms),
        ms(r.resolve_new_ms),
        ms(r.open_ms),
        ms(r.search_ms),
        r.mean_2hop_entities,
        r.disk_mb ?? '—',
      ]),
    },
    notes: [
      `Entity resolution on the test set (${resolution.rules.pairs} pairs of @mem/testkit): rules alone ${pr(resolution.rules)}; with the local embedder ${pr(resolution.localEmbedder)}. Wrongly joined: ${resolution.localEmbedder.falseMerges.join('; ') || 'none'}. Missed: ${resolution.localEmbedder.missed.join('; ') || 'none'}.`,
      'Written through the graph service, 1,000 entities or relations per call (names resolved as every write resolves them); each relation joins two random entities.',
      ...rows.filter((r) => 'skipped' in r).map((r) => `${r.store}: skipped — ${(r as { skipped: string }).skipped}`),
    ],
    data: { entities: N, relations: R, queries: Q, rows, resolution },
  },
  values.out,
);
if (values.json) console.log(JSON.stringify({ rows, resolution }));
else {
  console.log(JSON.stringify({ resolution }));
  for (const r of rows) console.log(JSON.stringify(r));
}
