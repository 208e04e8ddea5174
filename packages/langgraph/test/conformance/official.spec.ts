// Run by vitest 4 (the suite's own vitest) from checkpointer.conformance.test.ts, not by the repo's vitest.
import { specTest } from '@langchain/langgraph-checkpoint-validation';
import initializer from './initializer.js';

specTest(initializer);
