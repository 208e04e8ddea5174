/**
 * The pruned keyword index of the SQLite store against FTS5's exhaustive bm25() (apps/bench/README.md): the same file
 * searched through both keyword arms (`index.keyword.type` 'pruned', the default, and 'fts5'), per query the top-10
 * overlap, whether the order is identical, and the time of each arm.
 * - LoCoMo: every conversation's turns stored as memories (one space per conversation), every question a query.
 * - The scale bench's synthetic corpus at `--n` memories (8 agents, swarm and agent scopes) and its 200 queries.
 *
 *   node --conditions=dev-source --import tsx apps/bench/src/keyword.ts [--dataset ../shared/data/locomo10.json]
 *        [--n 100000] [--queries 200] [--json] [--out bench-results]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createHashingEmbedder, createStack, MemError, type Principal } from '@mem/core';
import { type KeywordHit, queryTerms, type SearchFilter } from '@mem/core/adapter';
import { createSqliteStore } from '@mem/store-sqlite';
import { keywordHits } from '@mem/testkit';
import { corpus, queries } from './corpus.js';
import { loadLocomo } from './locomo.js';
import { saveReport } from './report.js';
import { percentile, round } from './stats.js';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: '../shared/data/locomo10.json' },
    n: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const log = (s: string) => process.stderr.write(`${s}\n`);

function positive(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    log(`INVALID_INPUT: --${flag} takes positive whole numbers (comma-separated for --n), got "${text}"`);
    process.exit(2);
  }
  return n;
}
const sizes = values.n!.split(',').map((s) => positive('n', s.trim()));
const queryCount = positive('queries', values.queries!);
const embedder = createHashingEmbedder({ dimension: 64 });

interface Item {
  space: string;
  agentId: string;
  scope: 'swarm' | 'agent';
  content: string;
}
interface Query {
  filter: SearchFilter;
  text: string;
}

async function compare(label: string, items: Item[], qs: Query[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-keyword-'));
  try {
    const path = join(dir, 'bench.db');
    const pruned = createSqliteStore({ path, index: { vector: { type: 'none' } } });
    const exact = createSqliteStore({ path, index: { vector: { type: 'none' }, keyword: { type: 'fts5' } } });
    const stack = createStack({ knowledge: pruned, embedder });
    const t0 = performance.now();
    for (let start = 0; start < items.length; start += 1000) {
      const slice = items.slice(start, start + 1000);
      const bySpace = new Map<string, Item[]>();
      for (const it of slice) bySpace.set(it.space, [...(bySpace.get(it.space) ?? []), it]);
      for (const [space, group] of bySpace) {
        const lead: Principal = { space, agentId: 'loader', role: 'lead' };
        const results = await stack.knowledge.storeMany(
          lead,
          group.map((it) => ({ content: it.content, scope: it.scope })),
          group.map((it) => ({ agentId: it.agentId })),
        );
        for (const r of results) if (MemError.is(r)) throw r;
      }
    }
    log(`${label}: ${items.length} memories stored in ${round((performance.now() - t0) / 1000, 1)} s`);
    const tp: number[] = [];
    const te: number[] = [];
    let overlap = 0;
    let sameOrder = 0;
    let counted = 0;
    const run = async (store: typeof pruned, q: Query, times: number[]): Promise<KeywordHit[]> => {
      const started = performance.now();
      const hits = await keywordHits(store, { filter: q.filter, terms: queryTerms(q.text), limit: 10 });
      times.push(performance.now() - started);
      return hits;
    };
    for (const q of qs) {
      if (queryTerms(q.text).length === 0) continue;
      // Alternate which arm goes first, so that neither gets the other's warm pages.
      const first = counted % 2 === 0;
      const a = first ? await run(pruned, q, tp) : undefined;
      const b = await run(exact, q, te);
      const p = a ?? (await run(pruned, q, tp));
      const want = new Set(b.map((h) => h.id));
      overlap += want.size === 0 ? (p.length === 0 ? 1 : 0) : p.filter((h) => want.has(h.id)).length / want.size;
      if (p.map((h) => h.id).join() === b.map((h) => h.id).join()) sameOrder++;
      counted++;
    }
    await pruned.close();
    await exact.close();
    return {
      corpus: label,
      memories: items.length,
      queries: counted,
      overlap10: round(overlap / counted, 4),
      same_order: round(sameOrder / counted, 4),
      pruned_ms: { p50: round(percentile(tp, 50), 2), p95: round(percentile(tp, 95), 2) },
      fts5_ms: { p50: round(percentile(te, 50), 2), p95: round(percentile(te, 95), 2) },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const runs = [];
const now = () => new Date().toISOString();
try {
  const conversations = loadLocomo(values.dataset!);
  const items: Item[] = [];
  const qs: Query[] = [];
  for (const c of conversations) {
    for (const t of c.turns)
      items.push({ space: `locomo-${c.id}`, agentId: 'reader', scope: 'swarm', content: t.content });
    for (const q of c.questions)
      qs.push({ filter: { space: `locomo-${c.id}`, viewerAgentId: 'reader', now: now() }, text: q.question });
  }
  runs.push(await compare('LoCoMo', items, qs));
} catch (error) {
  log(`LoCoMo skipped: ${(error as Error).message}`);
}
for (const n of sizes) {
  const items = corpus(n).map((it) => ({ space: 'bench', agentId: it.agentId, scope: it.scope, content: it.content }));
  const qs = queries(queryCount).map((text) => ({
    filter: { space: 'bench', viewerAgentId: 'agent-1', now: now() },
    text,
  }));
  runs.push(await compare(`synthetic ${n}`, items, qs));
}
saveReport(
  {
    bench: 'keyword',
    title: 'Pruned keyword index vs FTS5 bm25() (SQLite)',
    table: {
      columns: [
        'corpus',
        'memories',
        'queries',
        'top-10 overlap',
        'same order',
        'pruned p50 / p95 ms',
        'FTS5 p50 / p95 ms',
      ],
      rows: runs.map((r) => [
        r.corpus,
        r.memories,
        r.queries,
        r.overlap10,
        r.same_order,
        `${r.pruned_ms.p50} / ${r.pruned_ms.p95}`,
        `${r.fts5_ms.p50} / ${r.fts5_ms.p95}`,
      ]),
    },
    chart: {
      title: 'Keyword arm p50, limit 10',
      unit: 'ms',
      note: 'lower is better',
      bars: runs.flatMap((r) => [
        { label: `pruned ${r.corpus}`, value: r.pruned_ms.p50 },
        { label: `FTS5 ${r.corpus}`, value: r.fts5_ms.p50 },
      ]),
    },
    notes: [
      'One file, both keyword arms of the SQLite store; overlap = share of FTS5’s top 10 that the pruned arm returns.',
    ],
    data: { runs },
  },
  values.out,
);
if (values.json) console.log(JSON.stringify({ runs }));
else for (const r of runs) console.log(JSON.stringify(r));
