import {
  createInMemoryNotebookData,
  createInMemoryNotebookStore,
  createInMemoryTranscriptData,
  createInMemoryTranscriptStore,
} from '@mem/core';
import { describeNotebookStore, describeTranscriptStore } from './index.js';

// The in-memory transcript and notebook adapters of @mem/core run their suites too. "Another instance" shares the
// same data, as a second connection to one database would.
describeTranscriptStore('in-memory', async (options) => {
  const data = createInMemoryTranscriptData();
  return {
    store: createInMemoryTranscriptStore({ data, ...options }),
    cleanup: async () => {},
    openAnother: async (o = {}) => createInMemoryTranscriptStore({ data, ...o }),
  };
});

describeNotebookStore('in-memory', async () => {
  const data = createInMemoryNotebookData();
  return {
    store: createInMemoryNotebookStore({ data }),
    cleanup: async () => {},
    openAnother: async () => createInMemoryNotebookStore({ data }),
  };
});
