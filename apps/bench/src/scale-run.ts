/**
 * One run of the scale bench: one store at one size, measured in the process that calls it (scale.ts starts a fresh
 * child process per run, so the peak RSS of a run is its own). Builds the seeded corpus and its hashing vectors,
 * ingests in batches of 1,000, then engine-only search (query vector precomputed) with recall@10 of the vector arm
 * against exact brute force, then end-to-end search with the local embedder embedding each query.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createInMemoryKnowledgeStore, createStack, MemError, type Principal } from '@mem/core';
import { cosine, type Embedder, type KnowledgeStore, type SearchFilter } from '@mem/core/adapter';
import { createLocalEmbedder } from '@mem/embed-local';
import { createSqliteStore } from '@mem/store-sqlite';
import { vectorHits } from '@mem/testkit';
import { corpus, queries } from './corpus.js';
import { isPeer, runPeerScale } from './peers/index.js';
import { percentile, round } from './stats.js';

const INGEST_BATCH = 1_000;

/** What a run tells while it goes: its phase and, during ingest, how far it got (the parent keeps the last one). */
export type Progress = (phase: string, done?: number) => void;

export function dirSize(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    total += entry.isDirectory() ? dirSize(p) : statSync(p).size;
  }
  return total;
}

interface Opened {
  store: KnowledgeStore;
  disk: () => number;
  /** PostgreSQL: the bench's schema, whose size on the server is the run's disk figure. */
  schema?: string;
}

async function open(kind: string, dir: string): Promise<Opened> {
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
      if (!url)
        throw new Error(
          'skipped: set MEM_BENCH_POSTGRES_URL to a PostgreSQL database with pgvector (tooling/postgres-start)',
        );
      const { createPostgresStore } = await import('@mem/store-postgres');
      const schema = `bench_${Date.now().toString(36)}`;
      const store = await createPostgresStore({ url, schema });
      return { store, disk: () => 0, schema };
    }
    default:
      throw new Error(`unknown store ${kind}`);
  }
}

/**
 * Indexes of the `k` most similar items among `visible` (best first; ties keep item order, as a stable sort would),
 * without sorting or allocating per item — at 1,000,000 items a full sort per query dominated the bench.
 */
export function exactTop(visible: { i: number }[], query: Float32Array, vectors: Float32Array[], k: number): number[] {
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

const pct = (xs: number[]) => ({
  p50: round(percentile(xs, 50)),
  p95: round(percentile(xs, 95)),
  p99: round(percentile(xs, 99)),
});

/** Measures `kind` at `n` memories with `qn` queries; a failure is returned as a row with `error`, never thrown. */
export async function runScale(
  kind: string,
  n: number,
  qn: number,
  progress: Progress,
): Promise<Record<string, unknown>> {
  progress('corpus');
  const hashing = createHashingEmbedder({ dimension: 512 });
  const local = createLocalEmbedder();
  const items = corpus(n);
  const qs = queries(qn);
  const itemVectors = await hashing.embed(items.map((i) => i.content));
  const queryVectors = await hashing.embed(qs);
  // Other queries of the same kind, for the warm-up pass (mem's stores only).
  const warmQs = queries(qn, 8);
  const warmVectors = await hashing.embed(warmQs);
  const cache = new Map<string, Float32Array>();
  for (const [i, q] of warmQs.entries()) cache.set(q, warmVectors[i]!);
  for (const [i, it] of items.entries()) cache.set(it.content, itemVectors[i]!);
  for (const [i, q] of qs.entries()) cache.set(q, queryVectors[i]!);
  const precomputed: Embedder = {
    id: hashing.id,
    dimension: 512,
    embed: async (texts) => Promise.all(texts.map(async (t) => cache.get(t) ?? (await hashing.embed([t]))[0]!)),
  };
  if (isPeer(kind)) {
    progress('ingest', 0);
    const ctx = { n, items, queries: qs, itemVectors, queryVectors, embedder: precomputed, local, viewer: 'agent-1' };
    return runPeerScale(kind, ctx);
  }
  const viewer: Principal = { space: 'bench', agentId: 'agent-1', role: 'worker' };
  // Exact top-10 under the viewer's visibility, for the recall of each store's vector arm.
  const visible = items
    .map((it, i) => ({ it, i }))
    .filter(({ it }) => it.scope === 'swarm' || it.agentId === 'agent-1');
  const dir = mkdtempSync(join(tmpdir(), `mem-scale-${kind}-`));
  try {
    const opened = await open(kind, dir);
    const { store, schema } = opened;
    const stack = createStack({ knowledge: store, embedder: precomputed });
    const now = Date.now();
    progress('ingest', 0);
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
      if ((start / INGEST_BATCH) % 10 === 9) progress('ingest', start + slice.length);
    }
    const ingestS = (performance.now() - t0) / 1000;
    // Warm-up: a first pass of other queries of the same kind, as a long-running process would have served, fills
    // the store's in-memory caches (the SQLite store's posting and vector-list caches); its times are the cold figures.
    const timed = async (texts: readonly string[]) => {
      const times: number[] = [];
      for (const q of texts) {
        const start = performance.now();
        await stack.knowledge.search(viewer, { query: q, limit: 10 });
        times.push(performance.now() - start);
      }
      return times;
    };
    progress('warm-up');
    const cold = await timed(warmQs);
    progress('search');
    const engine = await timed(qs);
    // Recall in a loop of its own: the exact brute force between two timed searches would evict the engine's working
    // set from the CPU caches and count that against the engine.
    progress('recall');
    let recallSum = 0;
    for (const qi of qs.keys()) {
      const filter: SearchFilter = { space: 'bench', viewerAgentId: 'agent-1', now: new Date().toISOString() };
      const got = await vectorHits(store, { filter, vector: queryVectors[qi]!, limit: 10 });
      const exact = exactTop(visible, queryVectors[qi]!, itemVectors, 10);
      // Tie-aware: a hit counts when it is in the exact top 10, or as similar as the exact 10th (the synthetic
      // corpus repeats texts across agents, so equal similarities are common and either copy is a right answer).
      const exactIds = new Set(exact.map((i) => docIds[i]!));
      const kth = cosine(queryVectors[qi]!, itemVectors[exact[exact.length - 1]!]!);
      const right = got.filter((h) => exactIds.has(h.id) || h.similarity >= kth - 1e-4).length;
      recallSum += Math.min(right, exact.length) / exact.length;
    }
    progress('e2e');
    await local.embed(['warm up']);
    const e2eStack = createStack({
      knowledge: store,
      embedder: { id: hashing.id, dimension: 512, embed: (t) => local.embed(t) },
    });
    const e2e: number[] = [];
    for (const q of qs) {
      t0 = performance.now();
      await e2eStack.knowledge.search(viewer, { query: q, limit: 10 });
      e2e.push(performance.now() - t0);
    }
    const disk = schema ? await postgresSchemaBytes(schema) : opened.disk();
    await store.close();
    return {
      store: kind,
      n,
      ingest_per_s: round(n / ingestS, 0),
      search_ms: pct(engine),
      search_cold_ms: pct(cold),
      e2e_ms: pct(e2e),
      recall10_vs_exact: round(recallSum / qs.length, 3),
      disk_bytes: disk,
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
      queries: qs.length,
      ...(schema ? { schema } : {}),
    };
  } catch (error) {
    return { store: kind, n, error: (error as Error).message };
  } finally {
    // MEM_BENCH_KEEP=1 keeps the store's folder (e.g. to tune an index on the 1,000,000-memory file afterwards).
    if (process.env.MEM_BENCH_KEEP) process.stderr.write(`kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** Bytes of a bench schema's tables with their indexes and TOAST, on the server of MEM_BENCH_POSTGRES_URL. */
async function postgresSchemaBytes(schema: string): Promise<number> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(process.env.MEM_BENCH_POSTGRES_URL!, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
      FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname = ${schema} AND c.relkind IN ('r', 'm')`;
    return Number(rows[0]!.bytes);
  } finally {
    await sql.end();
  }
}
