/**
 * Where PostgreSQL's search time goes (issue 18, point 1): on a schema the scale bench filled (`mem bench scale
 * --store postgres` leaves its `bench_…` schema; its row names it), times the keyword arm and the vector arm apart
 * and the whole engine search, over the scale bench's queries, and keeps each query's keyword top 10 so that a
 * change of the keyword SQL can be checked against them (`--compare` a file written by `--save`).
 * Usage: node --conditions=dev-source --import tsx apps/bench/src/scale-postgres-profile.ts --schema bench_xxx
 *        [--queries 200] [--save top10.json] [--compare top10.json]   (MEM_BENCH_POSTGRES_URL names the server)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createHashingEmbedder, createStack, type Principal } from '@mem/core';
import { queryTerms, type SearchFilter } from '@mem/core/adapter';
import { createPostgresStore } from '@mem/store-postgres';
import { keywordHits, vectorHits } from '@mem/testkit';
import { queries } from './corpus.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    schema: { type: 'string' },
    queries: { type: 'string', default: '200' },
    save: { type: 'string' },
    compare: { type: 'string' },
  },
});
const url = process.env.MEM_BENCH_POSTGRES_URL;
if (!url || !values.schema) {
  process.stderr.write(
    'profile: set MEM_BENCH_POSTGRES_URL and pass --schema bench_… (a schema the scale bench filled)\n',
  );
  process.exit(2);
}
const store = await createPostgresStore({ url, schema: values.schema });
const hashing = createHashingEmbedder({ dimension: 512 });
const qs = queries(Number(values.queries));
const vectors = await hashing.embed(qs);
const stack = createStack({ knowledge: store, embedder: hashing });
const viewer: Principal = { space: 'bench', agentId: 'agent-1', role: 'worker' };
// The arms' candidate count of a limit-10 search (core's default: 3 × limit).
const CANDIDATES = 30;
const keyword: number[] = [];
const vector: number[] = [];
const engine: number[] = [];
const top10: string[][] = [];
for (const [i, q] of qs.entries()) {
  const filter: SearchFilter = { space: 'bench', viewerAgentId: 'agent-1', now: new Date().toISOString() };
  const terms = queryTerms(q);
  let t0 = performance.now();
  const hits = await keywordHits(store, { filter, terms, limit: CANDIDATES });
  keyword.push(performance.now() - t0);
  top10.push(hits.slice(0, 10).map((h) => h.id));
  t0 = performance.now();
  await vectorHits(store, { filter, vector: vectors[i]!, limit: CANDIDATES });
  vector.push(performance.now() - t0);
  t0 = performance.now();
  await stack.knowledge.search(viewer, { query: q, limit: 10 });
  engine.push(performance.now() - t0);
}
await store.close();
const pct = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)) });
const out: Record<string, unknown> = {
  schema: values.schema,
  queries: qs.length,
  keyword_ms: pct(keyword),
  vector_ms: pct(vector),
  engine_ms: pct(engine),
};
if (values.compare) {
  const before = JSON.parse(readFileSync(values.compare, 'utf8')) as { top10: string[][] };
  let shared = 0;
  let total = 0;
  let same = 0;
  for (const [i, ids] of top10.entries()) {
    const old = new Set(before.top10[i] ?? []);
    shared += ids.filter((id) => old.has(id)).length;
    total += Math.max(old.size, ids.length);
    if (ids.join() === (before.top10[i] ?? []).join()) same++;
  }
  out.top10_overlap = total ? round(shared / total, 4) : 1;
  out.top10_identical_queries = same;
}
if (values.save) writeFileSync(values.save, `${JSON.stringify({ ...out, top10 })}\n`);
console.log(JSON.stringify(out));
