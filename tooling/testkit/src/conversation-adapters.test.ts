import {
  createMemoryNotebookData,
  createMemoryNotebookStore,
  createMemoryTranscriptData,
  createMemoryTranscriptStore,
} from '@mem/core';
import { describeNotebookStore, describeTranscriptStore } from './index.js';

// The in-memory transcript and notebook adapters of @mem/core run their suites too. "Another instance" shares the
// same data, as a second connection to one database would.
describeTranscriptStore('in-memory', async (options) => {
  const data = createMemoryTranscriptData();
  return {
    store: createMemoryTranscriptStore({ data, ...options }),
    cleanup: async () => {},
    openAnother: async (o = {}) => createMemoryTranscriptStore({ data, ...o }),
  };
});

describeNotebookStore('in-memory', async () => {
  const data = createMemoryNotebookData();
  return {
    store: createMemoryNotebookStore({ data }),
    cleanup: async () => {},
    openAnother: async () => createMemoryNotebookStore({ data }),
  };
});
