/**
 * mem0's open-source TypeScript `Memory` (npm `mem0ai`, entry `mem0ai/oss`) as a bench peer: adds with inference off
 * (no LLM), its default `memory` vector store, its own hybrid search (cosine + BM25 + entity boost). Its embedder is
 * OpenAI-compatible, pointed at an embeddings server on 127.0.0.1 that serves the bench's embedder; its LLM is
 * pointed there too, and is never called (the server refuses anything but /v1/embeddings, and ingest checks).
 * Telemetry is off (MEM0_TELEMETRY=false, read when the module loads) and its home directory is a temporary one.
 *
 * Choices, all in mem0's favour: its `memory` store is a SQLite table that every search reads whole (then filters by
 * user id in JS), so each namespace gets a `Memory` of its own (same ranking as one store with a user id per
 * namespace: its BM25 statistics are computed after the filter); its files live on tmpfs (/dev/shm) when there is
 * one, so the one transaction per added memory costs no disk flush; its history is disabled.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startEmbeddingServer } from './embed-server.js';
import type { Peer, PeerDoc, PeerOptions } from './types.js';

type Mem0Module = typeof import('mem0ai/oss');
type Memory = InstanceType<Mem0Module['Memory']>;
interface Internals {
  embedder: { embed(text: string): Promise<number[]> };
  vectorStore?: { db?: { close(): void } };
  _entityStore?: { db?: { close(): void } };
}

export async function openMem0({ embedder, dir }: PeerOptions): Promise<Peer> {
  const base = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/mem-bench-mem0-') : dir;
  process.env.MEM0_TELEMETRY = 'false';
  process.env.MEM0_DIR = join(base, 'home');
  // The CommonJS build: its ES build cannot load the peers it `require`s (compromise, for the entity boost).
  const { Memory } = createRequire(import.meta.url)('mem0ai/oss') as Mem0Module;
  const server = await startEmbeddingServer(embedder);
  const local = { apiKey: 'bench-local', baseURL: server.baseURL };
  const memories = new Map<string, Memory>();
  const memoryOf = (namespace: string): Memory => {
    let m = memories.get(namespace);
    if (!m) {
      m = new Memory({
        version: 'v1.1',
        embedder: { provider: 'openai', config: { ...local, model: embedder.id } },
        vectorStore: {
          provider: 'memory',
          config: {
            collectionName: 'bench',
            dimension: embedder.dimension,
            dbPath: join(base, `vectors-${memories.size}.db`),
          },
        },
        llm: { provider: 'openai', config: { ...local, model: 'no-llm-in-the-bench' } },
        disableHistory: true,
      });
      memories.set(namespace, m);
    }
    return m;
  };
  const toBench = new Map<string, string>();

  return {
    name: 'mem0',
    async ingest(batch: PeerDoc[]) {
      for (const doc of batch) {
        const metadata = doc.owner !== undefined ? { owner: doc.owner, scope: doc.shared ? 'shared' : 'private' } : {};
        const r = await memoryOf(doc.namespace).add(doc.text, { userId: doc.namespace, metadata, infer: false });
        const id = r.results[0]?.id;
        if (!id) throw new Error(`mem0 stored nothing for ${doc.id}`);
        toBench.set(id, doc.id);
      }
      if (server.stats.otherCalls > 0) throw new Error('mem0 called a non-embedding endpoint (an LLM?)');
    },
    async search(query, k, namespace, viewer) {
      const filters: Record<string, unknown> = { user_id: namespace };
      if (viewer !== undefined) filters.OR = [{ scope: 'shared' }, { owner: viewer }];
      const r = await memoryOf(namespace).search(query, { topK: k, filters });
      return r.results.map((m) => toBench.get(m.id) ?? m.id);
    },
    embedMs: () => server.stats.computeMs,
    /** Through mem0's own OpenAI embedder client, against the server answering without computing. */
    async hopMs(samples = 200) {
      const first = memories.values().next().value as Memory | undefined;
      if (!first) return Number.NaN;
      const client = (first as unknown as Internals).embedder;
      server.noop = true;
      try {
        const times: number[] = [];
        for (let i = 0; i < samples; i++) {
          const t0 = performance.now();
          await client.embed('hop probe');
          times.push(performance.now() - t0);
        }
        times.sort((a, b) => a - b);
        return times[Math.floor(times.length / 2)]!;
      } finally {
        server.noop = false;
      }
    },
    async close() {
      for (const m of memories.values()) {
        const i = m as unknown as Internals;
        for (const db of [i.vectorStore?.db, i._entityStore?.db]) db?.close();
      }
      await server.close();
      if (base !== dir) rmSync(base, { recursive: true, force: true });
    },
  };
}
