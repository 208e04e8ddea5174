import { chunkId, type MemoryRecord } from '@mem/core/adapter';

let seq = 0;

/**
 * A one-chunk memory as the core would build it, for adapter tests that write rows straight to a store: owner alice in
 * space acme, agent scope, stored at 2026-03-01T12:00Z; every field can be overridden. Document ids count up from
 * `<prefix>000001` within a test process.
 */
export function memoryRecord(over: Partial<MemoryRecord> & { content: string }, prefix = 'doc'): MemoryRecord {
  const docId = over.docId ?? `${prefix}${String(++seq).padStart(6, '0')}`;
  const at = '2026-03-01T12:00:00.000Z';
  return {
    id: chunkId(docId, 0),
    docId,
    space: 'acme',
    scope: 'agent',
    agentId: 'alice',
    key: `/agent/manual/${docId}`,
    name: over.content.slice(0, 40),
    bodyStart: 0,
    chunkIndex: 0,
    chunkCount: 1,
    source: 'manual',
    tags: [],
    embedding: null,
    embeddingModel: null,
    contentHash: `hash-${docId}`,
    createdAt: at,
    updatedAt: at,
    expiresAt: null,
    accessCount: 0,
    lastAccessedAt: null,
    alpha: 1,
    beta: 1,
    version: 1,
    ...over,
  };
}
