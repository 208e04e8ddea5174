import { describeKnowledgeCounterRaces, describeKnowledgeStore, type KnowledgeStoreFactory } from '@mem/testkit';
import { afterAll } from 'vitest';
import { adminClient, dropSchema, freshSchema, url } from '../test/helpers.js';
import { createPostgresStore } from './index.js';

const admin = adminClient();
afterAll(() => admin.end({ timeout: 5 }));

// Each test gets its own schema; openAnother is a second, independent pool on the same database and schema.
const factory: KnowledgeStoreFactory = async () => {
  const schema = freshSchema('suite');
  const manual = freshSchema('manual');
  const store = await createPostgresStore({ url, schema, max: 4 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await dropSchema(admin, schema);
      await dropSchema(admin, manual);
    },
    openAnother: () => createPostgresStore({ url, schema, max: 4 }),
    openUnmigrated: () => createPostgresStore({ url, schema: manual, max: 2, autoMigrate: false }),
  };
};

describeKnowledgeStore('postgres', factory);
// Two pools on one schema, as two processes would have: a rating or a read that lands while an edit is under way
// must survive the edit (a lost update the eight-process soak found).
describeKnowledgeCounterRaces('postgres', factory);
