import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHashingEmbedder, createStack, MemError, type Principal } from '@mem/core';
import { createSqliteStore } from '@mem/store-sqlite';
import { corpus } from './corpus.js';
const n = Number(process.argv[2] ?? 20000);
const items = corpus(n);
const hashing = createHashingEmbedder({ dimension: 512 });
const vecs = await hashing.embed(items.map((i) => i.content));
const cache = new Map(items.map((it, i) => [it.content, vecs[i]!]));
const dir = mkdtempSync(join(tmpdir(), 'mem-ingest-'));
const store = createSqliteStore({ path: join(dir, 'b.db') });
const stack = createStack({ knowledge: store, embedder: { id: hashing.id, dimension: 512, embed: async (t) => Promise.all(t.map(async (x) => cache.get(x) ?? (await hashing.embed([x]))[0]!)) } });
if (process.env.DROP) {
  await stack.knowledge.store({ space: 'warm', agentId: 'x', role: 'worker' }, { content: 'warm up' });
  const { createRequire } = await import('node:module');
  const D = createRequire(import.meta.url)('/work/main/packages/store-sqlite/node_modules/better-sqlite3');
  const raw = new D(join(dir, 'b.db'));
  raw.exec(process.env.DROP);
  raw.close();
}
const loader: Principal = { space: 'bench', agentId: 'bench-loader', role: 'lead' };
const now = Date.now();
const t0 = performance.now();
for (let s = 0; s < n; s += 1000) {
  const slice = items.slice(s, s + 1000);
  const r = await stack.knowledge.storeMany(loader, slice.map((it) => ({ content: it.content, tags: it.tags, scope: it.scope, source: 'manual' })),
    slice.map((it) => ({ agentId: it.agentId, createdAt: new Date(now - it.ageDays * 86400000).toISOString() })));
  for (const x of r) if (MemError.is(x)) throw x;
}
console.log('ingest/s', Math.round(n / ((performance.now() - t0) / 1000)), dir);
await store.close();
