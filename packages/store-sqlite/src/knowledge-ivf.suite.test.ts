// The knowledge conformance suite again, with the approximate vector index trained from the first vector on and
// probing every list: every search goes through the index path (pending rows, int8 candidates, exact re-rank,
// filters, fallback) and must behave exactly as the port says.
import { join } from 'node:path';
import { describeKnowledgeStore, tempFixture } from '@mem/testkit';
import { createSqliteStore } from './index.js';

const index = { vector: { type: 'ivf' as const, minRows: 1, lists: 4, nprobe: 4 } };

describeKnowledgeStore('sqlite (ivf index)', async () =>
  tempFixture('sqlite-ivf-suite', (dir) => createSqliteStore({ path: join(dir, 'mem.db'), index })),
);
