import { chunkId, type FormationEntry, type MemoryRecord, OPEN_VALIDITY } from '@mem/core/adapter';

let seq = 0;

/**
 * A one-chunk memory as the core would build it, for adapter tests that write rows straight to a store: owner alice in
 * space acme, agent scope, stored at 2026-03-01T12:00Z, written on purpose (open validity); every field can be overridden. Document ids count up from
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
    ...OPEN_VALIDITY,
    ...over,
  };
}

/**
 * A decision-log line of a distillation (docs/formation.md), for adapter tests of `form` and `formationLog`: an `add`
 * by the offline extractor for agent alice in space acme, citing message m-1; every field can be overridden.
 */
export function formationEntry(memoryId: string, over: Partial<FormationEntry> = {}): FormationEntry {
  return {
    id: `log-${memoryId}-${over.decision ?? 'add'}`,
    space: 'acme',
    memoryId,
    decision: 'add',
    previousId: null,
    text: 'The user prefers morning flights.',
    evidence: ['m-1'],
    extractor: 'offline',
    model: null,
    promptVersion: 'offline-1',
    related: [],
    agentId: 'alice',
    userId: null,
    at: '2026-03-02T09:00:05.000Z',
    ...over,
  };
}
