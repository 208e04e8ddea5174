/**
 * Ingest rate and search latency at N memories on SQLite (issue 2's measurement; `mem bench scale` grows from it).
 * Engine-only: vectors from the hashing embedder (512-d), the query vector precomputed, so only the store and the
 * core's ranking are timed. End-to-end: the same search with the query embedded by the local model each time.
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/scale-sqlite.ts [--n 10000] [--queries 200]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHashingEmbedder, createStack, type Embedder, type Principal } from '@mem/core';
import { createLocalEmbedder } from '@mem/embed-local';
import { createSqliteStore } from '@mem/store-sqlite';
import { corpus, queries } from './corpus.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '10000' }, queries: { type: 'string', default: '200' } },
});
const n = Number(values.n);
const qn = Number(values.queries);
const dir = mkdtempSync(join(tmpdir(), 'mem-bench-'));
const path = join(dir, 'bench.db');
const hashing = createHashingEmbedder({ dimension: 512 });

// Precompute every vector so that ingest and engine-only search time no embedding.
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
  embed: async (texts) => texts.map((t) => cache.get(t) ?? (hashing.embed([t]) as unknown as Float32Array)),
};

const store = createSqliteStore({ path });
const stack = createStack({ knowledge: store, embedder: precomputed });
const now = Date.now();
let t0 = performance.now();
for (const it of items) {
  const p: Principal = { space: 'bench', agentId: it.agentId, role: 'worker' };
  await stack.memory.store(
    p,
    { content: it.content, tags: it.tags, scope: it.scope, source: it.source },
    { createdAt: new Date(now - it.ageDays * 86_400_000).toISOString() },
  );
}
const ingestS = (performance.now() - t0) / 1000;

const viewer: Principal = { space: 'bench', agentId: 'agent-1', role: 'worker' };
const engine: number[] = [];
for (const q of qs) {
  t0 = performance.now();
  await stack.memory.search(viewer, { query: q, limit: 10 });
  engine.push(performance.now() - t0);
}

const local = createLocalEmbedder();
await local.embed(['warm up']);
const e2eStack = createStack({
  knowledge: store,
  embedder: { id: hashing.id, dimension: 512, embed: (t) => local.embed(t) },
});
const e2e: number[] = [];
for (const q of qs.slice(0, Math.min(qn, 100))) {
  t0 = performance.now();
  await e2eStack.memory.search(viewer, { query: q, limit: 10 });
  e2e.push(performance.now() - t0);
}
await store.close();
const disk = ['', '-wal'].reduce((s, suf) => {
  try {
    return s + statSync(path + suf).size;
  } catch {
    return s;
  }
}, 0);
rmSync(dir, { recursive: true, force: true });

const result = {
  store: 'sqlite',
  n,
  ingest_per_s: round(n / ingestS, 0),
  search_ms: {
    p50: round(percentile(engine, 50)),
    p95: round(percentile(engine, 95)),
    p99: round(percentile(engine, 99)),
  },
  e2e_ms: { p50: round(percentile(e2e, 50)), p95: round(percentile(e2e, 95)) },
  disk_bytes: disk,
  peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
};
console.log(JSON.stringify(result));
