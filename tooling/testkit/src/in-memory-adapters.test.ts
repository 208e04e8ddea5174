import { createHashingEmbedder, createInMemoryKnowledgeStore } from '@mem/core';
import type { KnowledgeStore } from '@mem/core/adapter';
import { describeEmbedder, describeKnowledgeCounterRaces, describeKnowledgeStore } from './index.js';

// The in-memory adapters of @mem/core run every suite too.
describeKnowledgeStore('in-memory', async () => ({ store: createInMemoryKnowledgeStore(), cleanup: async () => {} }), {
  unavailableWhenClosed: false,
});

// One process's store, used by two services at once (the second "instance" is the same store, closed as a no-op):
// a rating or a read that lands while an edit awaits its embedding must survive the edit.
describeKnowledgeCounterRaces('in-memory', async () => {
  const store = createInMemoryKnowledgeStore();
  const shared: KnowledgeStore = Object.create(store, { close: { value: async () => {} } });
  return { store, cleanup: async () => {}, openAnother: async () => shared };
});

// The hashing embedder of @mem/core spends no tokens: no embedWithUsage, zero in every result.
describeEmbedder('hashing', async () => ({ embedder: createHashingEmbedder({ dimension: 64 }) }));
