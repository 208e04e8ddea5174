import {
  createInMemoryKnowledgeStore,
  createInMemoryNotebookStore,
  createInMemoryStructuredStores,
  createInMemoryTranscriptStore,
} from '@mem/core';
import { describeForget } from './index.js';

// The in-memory adapters of @mem/core: every port, checked through the ports (nothing is kept at rest).
describeForget('in-memory', async () => ({
  knowledge: createInMemoryKnowledgeStore(),
  structured: createInMemoryStructuredStores(),
  transcripts: createInMemoryTranscriptStore(),
  notebooks: createInMemoryNotebookStore(),
  cleanup: async () => {},
}));
