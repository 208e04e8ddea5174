import { join } from 'node:path';
import {
  describeKnowledgeCounterRaces,
  describeKnowledgeStore,
  type KnowledgeStoreFactory,
  tempFixture,
} from '@mem/testkit';
import { createSqliteStore } from './index.js';

const factory: KnowledgeStoreFactory = async () => {
  const f = tempFixture('sqlite-suite', (dir) => createSqliteStore({ path: join(dir, 'mem.db') }));
  return {
    ...f,
    openUnmigrated: async () => createSqliteStore({ path: join(f.dir, 'manual.db'), autoMigrate: false }),
  };
};

describeKnowledgeStore('sqlite', factory);
// Two connections on one file, as two processes would have: a rating or a read that lands while an edit is under
// way must survive the edit (a lost update the eight-process soak found).
describeKnowledgeCounterRaces('sqlite', factory);
