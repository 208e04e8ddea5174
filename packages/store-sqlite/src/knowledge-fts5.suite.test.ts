// The knowledge conformance suite again with the keyword arm on FTS5 (`index.keyword.type: 'fts5'`): both keyword
// paths of the store must behave exactly as the port says (the default run, knowledge.suite.test.ts, uses the
// pruned index).
import { join } from 'node:path';
import { describeKnowledgeStore, tempFixture } from '@mem/testkit';
import { createSqliteStore } from './index.js';

describeKnowledgeStore('sqlite (fts5 keyword arm)', async () =>
  tempFixture('sqlite-fts5-suite', (dir) =>
    createSqliteStore({ path: join(dir, 'mem.db'), index: { keyword: { type: 'fts5' } } }),
  ),
);
