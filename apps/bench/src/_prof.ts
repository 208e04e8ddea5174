import { createHashingEmbedder, createStack, type Principal } from '@mem/core';
import { createSqliteStore } from '@mem/store-sqlite';
import { queries } from './corpus.js';
import { percentile } from './stats.js';
const path = process.argv[2]!;
const store = createSqliteStore({ path });
const hashing = createHashingEmbedder({ dimension: 512 });
const qs = queries(200);
const qv = await hashing.embed(qs);
const cache = new Map(qs.map((q, i) => [q, qv[i]!]));
const stack = createStack({ knowledge: store, embedder: { id: hashing.id, dimension: 512, embed: async (t) => t.map((x) => cache.get(x)!) } });
const viewer: Principal = { space: 'bench', agentId: 'agent-1', role: 'worker' };
const filter = { space: 'bench', viewerAgentId: 'agent-1', now: new Date().toISOString() };
const { queryTerms } = await import('@mem/core/adapter').then((m: any) => m).catch(() => ({}));
const time = async (label: string, f: (i: number) => Promise<unknown>) => {
  const t: number[] = [];
  for (let i = 0; i < qs.length; i++) { const t0 = performance.now(); await f(i); t.push(performance.now() - t0); }
  console.log(label, 'p50', percentile(t, 50).toFixed(2), 'p95', percentile(t, 95).toFixed(2));
};
await time('warm', (i) => stack.knowledge.search(viewer, { query: qs[i]!, limit: 10 }));
await time('search', (i) => stack.knowledge.search(viewer, { query: qs[i]!, limit: 10 }));
const terms = (q: string) => q.toLowerCase().split(/\W+/).filter((w) => w.length > 2 && !['what','know','about','how','the'].includes(w));
await time('keyword30', (i) => store.keywordSearch({ filter, terms: terms(qs[i]!), limit: 30 }));
await time('vector30', (i) => store.vectorSearch({ filter, vector: qv[i]!, limit: 30 }));
await store.close();
