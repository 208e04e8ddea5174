/**
 * Search latency and scale (apps/bench/README.md): a seeded synthetic corpus, vectors from the hashing embedder (512-d) so
 * that embedding time does not hide engine time, 200 queries per size. Per store and size: ingest memories/s,
 * search p50/p95/p99 engine-only (query vector precomputed), search p50 end-to-end with the local embedder, on-disk
 * size, peak RSS, and recall@10 of the store's vector arm against exact brute force.
 * Ingest goes through `storeMany` in batches of 1,000 (the batch path of `mem import`); the durability cost of one
 * write per memory (`store`, one transaction each) is not measured here but by the per-item store/import paths.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/scale.ts [--n 10000] [--store sqlite,in-memory,lancedb,lancedb-flat,postgres]
 *        [--queries 200] [--json] [--out bench-results]   (postgres needs MEM_BENCH_POSTGRES_URL)
 *        Peers: `--store mem0,langgraph` (src/peers/; budgets MEM_BENCH_PEER_INGEST_S=600, MEM_BENCH_PEER_SEARCH_S=180).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack, MemError, type Principal } from '@mem/core';
import { cosine, type Embedder, type KnowledgeStore, type SearchFilter } from '@mem/core/adapter';
import { createLocalEmbedder } from '@mem/embed-local';
import { createSqliteStore } from '@mem/store-sqlite';
import { corpus, queries } from './corpus.js';
import { installedPeers, isPeer, runPeerScale } from './peers/index.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    // Peers (mem0, langgraph) run by default when their packages are installed.
    store: { type: 'string', default: ['sqlite', ...installedPeers()].join(',') },
    queries: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const sizes = values.n!.split(',').map(Number);
const stores = values.store!.split(',');
const qn = Number(values.queries);
const INGEST_BATCH = 1_000;
const log = (s: string) => process.stderr.write(`${s}\n`);

function dirSize(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    total += entry.isDirectory() ? dirSize(p) : statSync(p).size;
  }
  return total;
}

async function open(kind: string, dir: string): Promise<{ store: KnowledgeStore; disk: () => number }> {
  switch (kind) {
    case 'in-memory':
      return { store: createInMemoryKnowledgeStore(), disk: () => 0 };
    case 'sqlite':
      return { store: createSqliteStore({ path: join(dir, 'bench.db') }), disk: () => dirSize(dir) };
    case 'lancedb':
    case 'lancedb-flat': {
      // `lancedb`: the default ANN index (IVF_HNSW_SQ past 5,000 vectors); `lancedb-flat`: no ANN index, exact search.
      const { createLanceStore } = await import('@mem/store-lancedb');
      const vector = kind === 'lancedb-flat' ? { type: 'none' as const } : {};
      return { store: createLanceStore({ uri: join(dir, 'lance'), index: { vector } }), disk: () => dirSize(dir) };
    }
    case 'postgres': {
      const url = process.env.MEM_BENCH_POSTGRES_URL;
      if (!url) throw new Error('set MEM_BENCH_POSTGRES_URL to a PostgreSQL database with pgvector');
      const { createPostgresStore } = await import('@mem/store-postgres');
      const schema = `bench_${Date.now().toString(36)}`;
      const store = await createPostgresStore({ url, schema });
      return { store, disk: () => 0 };
    }
    default:
      throw new Error(`unknown store ${kind}`);
  }
}

/**
 * Indexes of the `k` most similar items among `visible` (best first; ties keep item order, as a stable sort would),
 * without sorting or allocating per item — at 1,000,000 items a full sort per query dominated the bench.
 */
function exactTop(visible: { i: number }[], query: Float32Array, vectors: Float32Array[], k: number): number[] {
  const top: { i: number; s: number }[] = [];
  for (const { i } of visible) {
    const s = cosine(query, vectors[i]!);
    if (top.length === k && !(s > top[k - 1]!.s)) continue;
    let at = top.length;
    while (at > 0 && s > top[at - 1]!.s) at--;
    top.splice(at, 0, { i, s });
    if (top.length > k) top.pop();
  }
  return top.map((t) => t.i);
}

const hashing = createHashingEmbedder({ dimension: 512 });
const local = createLocalEmbedder();
const runs: Record<string, unknown>[] = [];

for (const n of sizes) {
  const items = corpus(n);
  const qs = queries(qn);
  const itemVectors = await hashing.embed(items.map((i) => i.content));
  const queryVectors = await hashing.embed(qs);
  const cache = new Map<string, Float32Array>();
  for (const [i, it] of items.entries()) cache.set(it.content, itemVectors[i]!);
  for (const [i, q] of qs.entries()) cache.set(q, queryVectors[i]!);
  const precomputed: Embedder = {
    id: hashing.id,
    dimension: 512,
    embed: async (texts) => Promise.all(texts.map(async (t) => cache.get(t) ?? (await hashing.embed([t]))[0]!)),
  };
  const viewer: Principal = { space: 'bench', agentId: 'agent-1', role: 'worker' };
  // Exact top-10 under the viewer's visibility, for the recall of each store's vector arm.
  const visible = items
    .map((it, i) => ({ it, i }))
    .filter(({ it }) => it.scope === 'swarm' || it.agentId === 'agent-1');
  for (const kind of stores) {
    if (isPeer(kind)) {
      log(`${kind} n=${n}: ingesting…`);
      const ctx = { n, items, queries: qs, itemVectors, queryVectors, embedder: precomputed, local, viewer: 'agent-1' };
      runs.push(await runPeerScale(kind, ctx));
      continue;
    }
    const dir = mkdtempSync(join(tmpdir(), `mem-scale-${kind}-`));
    try {
      const { store, disk } = await open(kind, dir);
      const stack = createStack({ knowledge: store, embedder: precomputed });
      const now = Date.now();
      log(`${kind} n=${n}: ingesting…`);
      let t0 = performance.now();
      const docIds: string[] = [];
      // Batch ingest (storeMany, 1,000 per batch: one embedder call and one store write per batch). A lead loads
      // every agent's items, each owned by its agent through the per-item override.
      const loader: Principal = { space: 'bench', agentId: 'bench-loader', role: 'lead' };
      for (let start = 0; start < items.length; start += INGEST_BATCH) {
        const slice = items.slice(start, start + INGEST_BATCH);
        const results = await stack.knowledge.storeMany(
          loader,
          slice.map((it) => ({ content: it.content, tags: it.tags, scope: it.scope, source: 'manual' })),
          slice.map((it) => ({
            agentId: it.agentId,
            createdAt: new Date(now - it.ageDays * 86_400_000).toISOString(),
          })),
        );
        for (const r of results) {
          if (MemError.is(r)) throw r;
          docIds.push(r.id);
        }
      }
      const ingestS = (performance.now() - t0) / 1000;
      const engine: number[] = [];
      let recallSum = 0;
      for (const [qi, q] of qs.entries()) {
        t0 = performance.now();
        await stack.knowledge.search(viewer, { query: q, limit: 10 });
        engine.push(performance.now() - t0);
        const filter: SearchFilter = { space: 'bench', viewerAgentId: 'agent-1', now: new Date().toISOString() };
        const got = await store.vectorSearch({ filter, vector: queryVectors[qi]!, limit: 10 });
        const exact = exactTop(visible, queryVectors[qi]!, itemVectors, 10);
        // Tie-aware: a hit counts when it is in the exact top 10, or as similar as the exact 10th (the synthetic
        // corpus repeats texts across agents, so equal similarities are common and either copy is a right answer).
        const exactIds = new Set(exact.map((i) => docIds[i]!));
        const kth = cosine(queryVectors[qi]!, itemVectors[exact[exact.length - 1]!]!);
        const right = got.filter((h) => exactIds.has(h.id) || h.similarity >= kth - 1e-4).length;
        recallSum += Math.min(right, exact.length) / exact.length;
      }
      await local.embed(['warm up']);
      const e2eStack = createStack({
        knowledge: store,
        embedder: { id: hashing.id, dimension: 512, embed: (t) => local.embed(t) },
      });
      const e2e: number[] = [];
      for (const q of qs.slice(0, Math.min(qn, 100))) {
        t0 = performance.now();
        await e2eStack.knowledge.search(viewer, { query: q, limit: 10 });
        e2e.push(performance.now() - t0);
      }
      await store.close();
      runs.push({
        store: kind,
        n,
        ingest_per_s: round(n / ingestS, 0),
        search_ms: {
          p50: round(percentile(engine, 50)),
          p95: round(percentile(engine, 95)),
          p99: round(percentile(engine, 99)),
        },
        e2e_ms: { p50: round(percentile(e2e, 50)), p95: round(percentile(e2e, 95)) },
        recall10_vs_exact: round(recallSum / qs.length, 3),
        disk_bytes: disk(),
        peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
      });
    } catch (error) {
      runs.push({ store: kind, n, error: (error as Error).message });
    } finally {
      // Each run as it ends, so that a long run that is stopped still leaves its finished figures.
      log(`done: ${JSON.stringify(runs[runs.length - 1])}`);
      // MEM_BENCH_KEEP=1 keeps the store's folder (e.g. to tune an index on the 1,000,000-memory file afterwards).
      if (process.env.MEM_BENCH_KEEP) log(`kept ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    }
  }
}

const ok = (runs as any[]).filter((r) => !r.error);
saveReport(
  {
    bench: 'scale',
    title: 'Search latency and scale',
    table: {
      columns: [
        'store',
        'n',
        'ingest/s',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'e2e p50 ms',
        'recall@10 vs exact',
        'disk MB',
        'peak RSS MB',
        'error',
      ],
      rows: (runs as any[]).map((r) =>
        r.error
          ? [r.store, r.n, null, null, null, null, null, null, null, null, r.error]
          : [
              r.store,
              r.n,
              r.ingest_per_s,
              r.search_ms.p50,
              r.search_ms.p95,
              r.search_ms.p99,
              r.e2e_ms?.p50 ?? null,
              r.recall10_vs_exact ?? null,
              r.disk_bytes ? round(r.disk_bytes / 1e6, 1) : null,
              r.peak_rss_bytes ? Math.round(r.peak_rss_bytes / 1e6) : null,
              null,
            ],
      ),
    },
    chart: {
      title: 'Search p50, engine only (query vector precomputed)',
      unit: 'ms',
      note: 'lower is better',
      bars: ok.map((r) => ({ label: `${r.store} @${r.n}`, value: r.search_ms.p50 })),
    },
    notes: [
      'Seeded synthetic corpus, 512-d hashing vectors; e2e embeds each query with the local embedder.',
      'Peak RSS is the bench process: it grows across the stores and sizes of one run.',
    ],
    data: { runs },
  },
  values.out,
);
if (values.json) console.log(JSON.stringify({ runs }));
else {
  console.log('store     n        ingest/s  p50ms   p95ms   p99ms   e2e p50  recall@10  disk MB  rss MB');
  for (const r of runs as any[]) {
    if (r.error) {
      console.log(`${r.store.padEnd(9)} ${String(r.n).padEnd(8)} error: ${r.error}`);
      continue;
    }
    console.log(
      `${r.store.padEnd(9)} ${String(r.n).padEnd(8)} ${String(r.ingest_per_s).padEnd(9)} ${String(r.search_ms.p50).padEnd(7)} ${String(r.search_ms.p95).padEnd(7)} ${String(r.search_ms.p99).padEnd(7)} ${String(r.e2e_ms.p50).padEnd(8)} ${String(r.recall10_vs_exact).padEnd(10)} ${(r.disk_bytes / 1e6).toFixed(1).padEnd(8)} ${(r.peak_rss_bytes / 1e6).toFixed(0)}`,
    );
  }
  for (const r of (runs as any[]).filter((x) => x.hop_ms !== undefined)) {
    console.log(
      `${r.store} n=${r.n}: HTTP hop ${r.hop_ms} ms p50 (an embedding request answered without computing); ${r.queries} queries`,
    );
  }
}
