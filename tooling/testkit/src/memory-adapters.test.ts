import { createMemoryKnowledgeStore } from '@mem/core';
import { describeKnowledgeStore } from './index.js';

// The in-memory adapters of @mem/core run every suite too.
describeKnowledgeStore('in-memory', async () => ({ store: createMemoryKnowledgeStore(), cleanup: async () => {} }));
