import {
  createHashingEmbedder,
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
} from '@mem/core';
import { type KnowledgeStore, storeBundle } from '@mem/core/adapter';
import {
  describeEmbedder,
  describeKnowledgeCounterRaces,
  describeKnowledgeStore,
  describeStoreBundle,
} from './index.js';

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

// Every in-memory port as one bundle (the adapter kit's storeBundle): the shape the store packages share.
describeStoreBundle('in-memory', async () => ({
  bundle: storeBundle({
    knowledge: createInMemoryKnowledgeStore(),
    transcripts: createInMemoryTranscriptStore(),
    notebooks: createInMemoryNotebookStore(),
    structured: createInMemoryStructuredStores(),
  }),
  unavailableAfterClose: false,
  cleanup: async () => {},
}));
