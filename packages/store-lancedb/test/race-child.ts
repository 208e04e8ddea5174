// One of two processes racing on one LanceDB folder (see store-lancedb.test.ts), through the three stores of
// `createLanceStores`: 20 keyed writes, one contested key, 10 ratings of a shared document, 5 episodes, and 10
// outcome reports of a shared procedure. Prints a JSON summary on stdout.
import { MemError } from '@mem/core';
import { type MemoryRecord, OPEN_VALIDITY } from '@mem/core/adapter';
import { createLanceStores } from '../src/index.js';

const [uri, name, target] = process.argv.slice(2) as [string, string, string];
const NOW = '2026-03-01T12:00:00.000Z';

function record(docId: string, key: string, content: string): MemoryRecord {
  return {
    id: docId,
    docId,
    space: 'acme',
    scope: 'agent',
    agentId: 'alice',
    key,
    name: content,
    content,
    bodyStart: 0,
    chunkIndex: 0,
    chunkCount: 1,
    source: 'manual',
    tags: [],
    embedding: null,
    embeddingModel: null,
    contentHash: `hash-${docId}`,
    createdAt: NOW,
    updatedAt: NOW,
    expiresAt: null,
    accessCount: 0,
    lastAccessedAt: null,
    alpha: 1,
    beta: 1,
    version: 1,
    ...OPEN_VALIDITY,
  };
}

const stores = createLanceStores({ uri });
const store = stores.knowledge;
const writes = Array.from({ length: 20 }, (_, i) =>
  store.insertDocument([record(`${name}-${i}`, `/race/${name}-${i}`, `${name} writes ${i}`)]),
);
const ratings = Array.from({ length: 10 }, (_, i) =>
  store.addRating({
    docId: target,
    space: 'acme',
    taskId: `${name}-${i}`,
    useful: true,
    note: null,
    agentId: `rater-${name}-${i}`,
    at: NOW,
    counted: true,
  }),
);
let contested = 'won';
try {
  await store.insertDocument([record(`${name}-contested`, '/race/contested', `${name} wants the key`)]);
} catch (error) {
  if (!MemError.is(error, 'KEY_TAKEN')) throw error;
  contested = 'KEY_TAKEN';
}
const episodes = Array.from({ length: 5 }, (_, i) =>
  stores.episodes.insert(
    'acme',
    {
      id: `${name}-episode-${i}`,
      summary: `${name} did task ${i}`,
      keyDecisions: [],
      toolsUsed: [],
      outcome: 'success',
      sessionId: null,
      timestamp: NOW,
      tags: ['race'],
      metadata: {},
    },
    null,
  ),
);
const outcomes = Array.from({ length: 10 }, (_, i) =>
  stores.procedures.incrementOutcome('acme', 'shared-procedure', i % 2 === 0, NOW),
);
await Promise.all([...writes, ...ratings, ...episodes, ...outcomes]);
await stores.close();
process.stdout.write(JSON.stringify({ contested, writes: writes.length }));
