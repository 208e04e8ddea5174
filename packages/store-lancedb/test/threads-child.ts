/**
 * A fresh process for the compute-threads test: opens a store (whose creation sizes LanceDB's compute pool, see
 * src/native-runtime.ts), gives LanceDB's compute pool concurrent work (an index build and searches), then prints
 * how many threads of LanceDB's compute runtime (`lance-cpu`) the process has. argv: folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createHashingEmbedder } from '@mem/core';
import { memoryRecord } from '@mem/testkit';
import { createLanceStore } from '../src/index.js';

const uri = process.argv[2]!;
const store = createLanceStore({ uri, index: { vector: { minRows: 256 } }, maintenance: { auto: false } });
const embedder = createHashingEmbedder({ dimension: 64 });
const texts = Array.from({ length: 2000 }, (_, i) => `note ${i} about deploy rollback cache ${i % 37} agent ${i % 11}`);
const vectors = await embedder.embed(texts);
const now = '2026-03-01T12:00:00.000Z';
await store.insertDocuments(
  texts.map((content, i) => [
    memoryRecord({ content, embedding: vectors[i]!, embeddingModel: embedder.id, createdAt: now, updatedAt: now }),
  ]),
);
await Promise.all([
  store.optimize(),
  ...vectors
    .slice(0, 8)
    .map((vector) => store.vectorSearch({ filter: { space: 'acme', viewerAgentId: 'alice', now }, vector, limit: 10 })),
]);
const threads = readdirSync('/proc/self/task').filter(
  (t) => readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim() === 'lance-cpu',
);
await store.close();
process.stdout.write(JSON.stringify({ lanceCpuThreads: threads.length, env: process.env.LANCE_CPU_THREADS ?? null }));
