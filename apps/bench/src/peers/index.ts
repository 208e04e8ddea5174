/**
 * The peers of the benches (apps/bench/README.md): mem0 OSS and LangGraph's InMemoryStore, each behind the small `Peer`
 * interface, run on the same data with the same embedder as the mem stacks. A peer that cannot run is reported with
 * the reason in its row, never dropped.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cosine, type Embedder } from '@mem/core/adapter';
import type { Conversation } from '../locomo.js';
import { percentile, round } from '../stats.js';
import type { Peer, PeerDoc } from './types.js';

export type { Peer, PeerDoc } from './types.js';

export const PEERS = ['mem0', 'langgraph'] as const;
const PACKAGES: Record<string, string> = { mem0: 'mem0ai/oss', langgraph: '@langchain/langgraph' };

export const isPeer = (name: string): boolean => (PEERS as readonly string[]).includes(name);

/** Why a peer cannot run here (its package is not installed), or undefined. */
export function peerMissing(name: string): string | undefined {
  try {
    createRequire(import.meta.url).resolve(PACKAGES[name]!);
    return undefined;
  } catch {
    return `${name}: package ${PACKAGES[name]} is not installed`;
  }
}

export const installedPeers = (): string[] => PEERS.filter((p) => !peerMissing(p));

export async function openPeer(name: string, embedder: Embedder, dir: string): Promise<Peer> {
  const missing = peerMissing(name);
  if (missing) throw new Error(missing);
  if (name === 'mem0') return (await import('./mem0.js')).openMem0({ embedder, dir });
  if (name === 'langgraph') return (await import('./langgraph.js')).openLangGraph({ embedder, dir });
  throw new Error(`unknown peer ${name}`);
}

/**
 * LoCoMo on a peer: every turn one document in the conversation's namespace (id = its dia id), then a ranker for
 * the questions. A search's time excludes the time spent computing embeddings (the mem stacks embed queries from a
 * cache too), so it is the engine plus, for mem0, the HTTP hop.
 */
export async function openRetrievalPeer(name: string, conversations: Conversation[], embedder: Embedder) {
  const dir = mkdtempSync(join(tmpdir(), `mem-retrieval-${name}-`));
  const peer = await openPeer(name, embedder, dir);
  const t0 = performance.now();
  for (const c of conversations) {
    await peer.ingest(c.turns.map((t): PeerDoc => ({ id: t.diaId, text: t.content, namespace: c.id })));
  }
  const ingestS = (performance.now() - t0) / 1000;
  const hopMs = peer.hopMs ? await peer.hopMs() : undefined;
  return {
    ingestS,
    hopMs,
    idOf: (c: Conversation) => {
      const ids = new Set(c.turns.map((t) => t.diaId));
      return (diaId: string) => (ids.has(diaId) ? diaId : undefined);
    },
    async search(c: Conversation, query: string, k = 20): Promise<{ ids: string[]; ms: number }> {
      const e0 = peer.embedMs();
      const t = performance.now();
      const ids = await peer.search(query, k, c.id);
      return { ids, ms: performance.now() - t - (peer.embedMs() - e0) };
    },
    async close() {
      await peer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ScaleContext {
  n: number;
  items: { content: string; scope: string; agentId: string }[];
  queries: string[];
  itemVectors: Float32Array[];
  queryVectors: Float32Array[];
  /** The precomputed (hashing) embedder of the engine-only runs. */
  embedder: Embedder;
  /** The local embedder, for the end-to-end runs. */
  local: Embedder;
  viewer: string;
}

const budget = (env: string, fallback: number) => Number(process.env[env] ?? fallback) * 1000;

function dirSize(path: string): number {
  let total = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    total += e.isDirectory() ? dirSize(p) : statSync(p).size;
  }
  return total;
}

/**
 * The scale bench on a peer, as one run record of scale.ts: ingest in batches of 1,000 (stopped past
 * MEM_BENCH_PEER_INGEST_S, default 600 s), engine-only search with the precomputed vectors (stopped past
 * MEM_BENCH_PEER_SEARCH_S, default 180 s, after at least 20 queries), end-to-end search with the local embedder on
 * every query (same budget), recall@10 of its results against exact cosine over the viewer's visible items, and
 * the process RSS sampled during the run.
 */
export async function runPeerScale(kind: string, ctx: ScaleContext): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), `mem-scale-${kind}-`));
  let rssPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 100);
  sampler.unref();
  let current = ctx.embedder;
  const switchable: Embedder = {
    id: ctx.embedder.id,
    dimension: ctx.embedder.dimension,
    embed: (t) => current.embed(t),
  };
  let peer: Peer | undefined;
  const base = { store: kind, n: ctx.n };
  try {
    peer = await openPeer(kind, switchable, dir);
    const ingestBudget = budget('MEM_BENCH_PEER_INGEST_S', 600);
    const t0 = performance.now();
    for (let start = 0; start < ctx.items.length; start += 1_000) {
      const docs = ctx.items.slice(start, start + 1_000).map(
        (it, j): PeerDoc => ({
          id: String(start + j),
          text: it.content,
          namespace: 'bench',
          owner: it.agentId,
          shared: it.scope === 'swarm',
        }),
      );
      await peer.ingest(docs);
      const elapsed = performance.now() - t0;
      if (elapsed > ingestBudget && start + 1_000 < ctx.items.length) {
        const done = start + docs.length;
        const rate = Math.round(done / (elapsed / 1000));
        return {
          ...base,
          ingest_per_s: rate,
          error: `ingest stopped after ${Math.round(elapsed / 1000)} s at ${done} of ${ctx.n} memories (${rate}/s; ${ctx.n} would take ~${Math.round(ctx.n / rate / 60)} min)`,
        };
      }
    }
    const ingestS = (performance.now() - t0) / 1000;
    const visible = ctx.items
      .map((it, i) => ({ it, i }))
      .filter(({ it }) => it.scope === 'swarm' || it.agentId === ctx.viewer);
    const searchBudget = budget('MEM_BENCH_PEER_SEARCH_S', 180);
    const engine: number[] = [];
    let recallSum = 0;
    const s0 = performance.now();
    for (const [qi, q] of ctx.queries.entries()) {
      if (qi >= 20 && performance.now() - s0 > searchBudget) break;
      const e0 = peer.embedMs();
      const t = performance.now();
      const got = new Set(await peer.search(q, 10, 'bench', ctx.viewer));
      engine.push(performance.now() - t - (peer.embedMs() - e0));
      const exact = visible
        .map(({ i }) => ({ id: String(i), s: cosine(ctx.queryVectors[qi]!, ctx.itemVectors[i]!) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10);
      recallSum += exact.filter((e) => got.has(e.id)).length / exact.length;
    }
    const hop = peer.hopMs ? await peer.hopMs() : undefined;
    current = ctx.local;
    await ctx.local.embed(['warm up']);
    const e2e: number[] = [];
    const e0 = performance.now();
    for (const q of ctx.queries) {
      if (e2e.length >= 20 && performance.now() - e0 > searchBudget) break;
      const t = performance.now();
      await peer.search(q, 10, 'bench', ctx.viewer);
      e2e.push(performance.now() - t);
    }
    return {
      ...base,
      ingest_per_s: round(ctx.n / ingestS, 0),
      search_ms: {
        p50: round(percentile(engine, 50)),
        p95: round(percentile(engine, 95)),
        p99: round(percentile(engine, 99)),
      },
      e2e_ms: { p50: round(percentile(e2e, 50)), p95: round(percentile(e2e, 95)), p99: round(percentile(e2e, 99)) },
      e2e_queries: e2e.length,
      recall10_vs_exact: round(recallSum / engine.length, 3),
      disk_bytes: dirSize(dir),
      peak_rss_bytes: rssPeak,
      queries: engine.length,
      ...(hop !== undefined ? { hop_ms: round(hop, 3) } : {}),
    };
  } catch (error) {
    return { ...base, error: (error as Error).message };
  } finally {
    clearInterval(sampler);
    await peer?.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
