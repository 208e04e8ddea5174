import {
  createMemoryKnowledgeStore,
  createMemoryNotebookStore,
  createMemoryStructuredStores,
  createMemoryTranscriptStore,
} from '@mem/core';
import { describeForget } from './index.js';

// The in-memory adapters of @mem/core: every port, checked through the ports (nothing is kept at rest).
describeForget('in-memory', async () => ({
  knowledge: createMemoryKnowledgeStore(),
  structured: createMemoryStructuredStores(),
  transcripts: createMemoryTranscriptStore(),
  notebooks: createMemoryNotebookStore(),
  cleanup: async () => {},
}));
